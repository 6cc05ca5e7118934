import triton
import triton.language as tl


@triton.jit
def _lion_kernel(p_ptr, g_ptr, m_ptr, n, lr, beta1, beta2, decay, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask)
    g = tl.load(g_ptr + offs, mask=mask)
    m = tl.load(m_ptr + offs, mask=mask)
    u = m * beta1 + g * (1.0 - beta1)
    sign = tl.where(u > 0, 1.0, tl.where(u < 0, -1.0, 0.0))
    tl.store(p_ptr + offs, p * decay - lr * sign, mask=mask)
    tl.store(m_ptr + offs, m * beta2 + g * (1.0 - beta2), mask=mask)


def lion_step(param, grad, exp_avg, lr=1e-4, beta1=0.9, beta2=0.99, weight_decay=0.0):
    # Work on contiguous storage; copy back only where the caller's tensors were strided views.
    p = param if param.is_contiguous() else param.contiguous()
    m = exp_avg if exp_avg.is_contiguous() else exp_avg.contiguous()
    g = grad.contiguous()
    n = p.numel()
    if n:
        BLOCK = 1024
        _lion_kernel[(triton.cdiv(n, BLOCK),)](p, g, m, n, float(lr), float(beta1), float(beta2),
                                               1.0 - lr * weight_decay, BLOCK=BLOCK)
    if p is not param:
        param.copy_(p)
    if m is not exp_avg:
        exp_avg.copy_(m)
    return param, exp_avg
