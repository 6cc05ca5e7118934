import torch
import triton
import triton.language as tl


@triton.jit
def _sgd_kernel(p_ptr, g_ptr, b_ptr, n, lr, momentum, weight_decay, dampening,
                HAS_DECAY: tl.constexpr, HAS_MOMENTUM: tl.constexpr, ZERO_BUF: tl.constexpr,
                NESTEROV: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask)
    g = tl.load(g_ptr + offs, mask=mask)
    if HAS_DECAY:
        g = g + weight_decay * p
    if HAS_MOMENTUM:
        if ZERO_BUF:  # no buffer given: it starts as zeros
            buf = (1.0 - dampening) * g
        else:
            buf = tl.load(b_ptr + offs, mask=mask) * momentum + (1.0 - dampening) * g
        tl.store(b_ptr + offs, buf, mask=mask)
        if NESTEROV:
            g = g + momentum * buf
        else:
            g = buf
    tl.store(p_ptr + offs, p - lr * g, mask=mask)


def sgd_step(param, grad, momentum_buffer=None, lr=0.1, momentum=0.9, weight_decay=0.0, dampening=0.0,
             nesterov=False):
    has_momentum = momentum > 0
    # Work on contiguous storage; copy back only if the caller's tensors were strided.
    p = param if param.is_contiguous() else param.contiguous()
    g = grad.contiguous()
    if not has_momentum:
        b = p  # unused
    elif momentum_buffer is None:
        b = torch.empty(param.shape, dtype=param.dtype, device=param.device)
    else:
        b = momentum_buffer if momentum_buffer.is_contiguous() else momentum_buffer.contiguous()
    n = p.numel()
    if n:
        BLOCK = 1024
        _sgd_kernel[(triton.cdiv(n, BLOCK),)](
            p, g, b, n, float(lr), float(momentum), float(weight_decay), float(dampening),
            HAS_DECAY=weight_decay != 0, HAS_MOMENTUM=has_momentum, ZERO_BUF=momentum_buffer is None,
            NESTEROV=bool(nesterov), BLOCK=BLOCK)
    if p is not param:
        param.copy_(p)
    if not has_momentum:
        return param, None
    if momentum_buffer is None:
        return param, b
    if b is not momentum_buffer:
        momentum_buffer.copy_(b)
    return param, momentum_buffer
