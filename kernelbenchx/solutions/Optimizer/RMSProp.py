import triton
import triton.language as tl


@triton.jit
def _rmsprop_kernel(p_ptr, g_ptr, v_ptr, n, lr, alpha, eps, weight_decay, HAS_DECAY: tl.constexpr,
                    BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask)
    g = tl.load(g_ptr + offs, mask=mask)
    v = tl.load(v_ptr + offs, mask=mask)
    if HAS_DECAY:
        g = g + weight_decay * p
    v = alpha * v + (1.0 - alpha) * g * g
    tl.store(p_ptr + offs, p - lr * g / (tl.sqrt(v) + eps), mask=mask)
    tl.store(v_ptr + offs, v, mask=mask)


def rmsprop_step(param, grad, square_avg, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0):
    # Work on contiguous storage; copy back only where the caller's tensors were strided views.
    p = param if param.is_contiguous() else param.contiguous()
    v = square_avg if square_avg.is_contiguous() else square_avg.contiguous()
    g = grad.contiguous()
    n = p.numel()
    if n:
        BLOCK = 1024
        _rmsprop_kernel[(triton.cdiv(n, BLOCK),)](p, g, v, n, float(lr), float(alpha), float(eps),
                                                  float(weight_decay), HAS_DECAY=weight_decay != 0, BLOCK=BLOCK)
    if p is not param:
        param.copy_(p)
    if v is not square_avg:
        square_avg.copy_(v)
    return param, square_avg
