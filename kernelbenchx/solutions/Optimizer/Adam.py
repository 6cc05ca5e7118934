import math

import triton
import triton.language as tl


@triton.jit
def _adam_kernel(p_ptr, g_ptr, m_ptr, v_ptr, n, lr, beta1, beta2, eps, weight_decay, step_size, inv_bc2_sqrt,
                 HAS_DECAY: tl.constexpr, DECOUPLED: tl.constexpr, MAXIMIZE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask)
    g = tl.load(g_ptr + offs, mask=mask)
    m = tl.load(m_ptr + offs, mask=mask)
    v = tl.load(v_ptr + offs, mask=mask)
    if MAXIMIZE:
        g = -g
    if HAS_DECAY:
        if DECOUPLED:  # AdamW: param·(1 − lr·wd) before the update
            p = p * (1.0 - lr * weight_decay)
        else:  # Adam: L2 decay folded into the gradient
            g = g + weight_decay * p
    m = m + (1.0 - beta1) * (g - m)
    v = beta2 * v + (1.0 - beta2) * g * g
    denom = tl.sqrt(v) * inv_bc2_sqrt + eps
    tl.store(p_ptr + offs, p - step_size * (m / denom), mask=mask)
    tl.store(m_ptr + offs, m, mask=mask)
    tl.store(v_ptr + offs, v, mask=mask)


def _step(param, grad, exp_avg, exp_avg_sq, step, lr, beta1, beta2, eps, weight_decay, decoupled, maximize):
    # Work on contiguous storage; copy back only where the caller's tensors were strided views.
    p = param if param.is_contiguous() else param.contiguous()
    m = exp_avg if exp_avg.is_contiguous() else exp_avg.contiguous()
    v = exp_avg_sq if exp_avg_sq.is_contiguous() else exp_avg_sq.contiguous()
    g = grad.contiguous()
    n = p.numel()
    if n:
        step_size = lr / (1.0 - beta1 ** step)
        inv_bc2_sqrt = 1.0 / math.sqrt(1.0 - beta2 ** step)
        BLOCK = 1024
        _adam_kernel[(triton.cdiv(n, BLOCK),)](p, g, m, v, n, float(lr), float(beta1), float(beta2), float(eps),
                                               float(weight_decay), step_size, inv_bc2_sqrt,
                                               HAS_DECAY=weight_decay != 0, DECOUPLED=decoupled,
                                               MAXIMIZE=bool(maximize), BLOCK=BLOCK)
    if p is not param:
        param.copy_(p)
    if m is not exp_avg:
        exp_avg.copy_(m)
    if v is not exp_avg_sq:
        exp_avg_sq.copy_(v)
    return param, exp_avg, exp_avg_sq


def adam_step(param, grad, exp_avg, exp_avg_sq, step, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0,
              maximize=False):
    return _step(param, grad, exp_avg, exp_avg_sq, step, lr, beta1, beta2, eps, weight_decay, False, maximize)
