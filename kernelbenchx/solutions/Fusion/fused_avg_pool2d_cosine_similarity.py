import torch
import triton
import triton.language as tl


@triton.jit
def _cosine_kernel(a_ptr, b_ptr, s_ptr, C, H, W, as0, as1, as2, as3, bs0, bs1, bs2, bs3, eps,
                   CB: tl.constexpr, BLOCK: tl.constexpr):
    """s[n, p] = Σ_c a·b / (max(‖a‖, eps)·max(‖b‖, eps)) for a block of pixels p = h·W + w of sample n."""
    n = tl.program_id(0).to(tl.int64)
    p = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    ok = p < H * W
    h = (p // W).to(tl.int64)
    w = (p % W).to(tl.int64)
    a_base = a_ptr + n * as0 + h * as2 + w * as3
    b_base = b_ptr + n * bs0 + h * bs2 + w * bs3
    dot = tl.zeros([CB, BLOCK], dtype=tl.float32)
    na = tl.zeros([CB, BLOCK], dtype=tl.float32)
    nb = tl.zeros([CB, BLOCK], dtype=tl.float32)
    for c0 in range(0, C, CB):
        cs = c0 + tl.arange(0, CB)
        m = (cs < C)[:, None] & ok[None, :]
        a = tl.load(a_base[None, :] + cs.to(tl.int64)[:, None] * as1, mask=m, other=0.0)
        b = tl.load(b_base[None, :] + cs.to(tl.int64)[:, None] * bs1, mask=m, other=0.0)
        dot += a * b
        na += a * a
        nb += b * b
    dot = tl.sum(dot, axis=0)
    na = tl.sum(na, axis=0)
    nb = tl.sum(nb, axis=0)
    s = dot / (tl.maximum(tl.sqrt(na), eps) * tl.maximum(tl.sqrt(nb), eps))
    tl.store(s_ptr + n * H * W + p, s, mask=ok)


@triton.jit
def _avg_pool2d_kernel(s_ptr, out_ptr, H, W, Ho, Wo, ksize, stride, pad, inv_area, BLOCK: tl.constexpr):
    n = tl.program_id(0).to(tl.int64)
    q = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    ok = q < Ho * Wo
    oy = q // Wo
    ox = q % Wo
    y0 = oy * stride - pad
    x0 = ox * stride - pad
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(0, ksize):
        for j in range(0, ksize):
            y = y0 + i
            x = x0 + j
            inside = ok & (y >= 0) & (y < H) & (x >= 0) & (x < W)
            acc += tl.load(s_ptr + n * H * W + y * W + x, mask=inside, other=0.0)
    tl.store(out_ptr + n * Ho * Wo + q, acc * inv_area, mask=ok)


def fused_avg_pool2d_cosine_similarity(x1, x2, kernel_size, stride=None, padding=0, eps=1e-8):
    N, C, H, W = x1.shape
    k = int(kernel_size)
    s = k if stride is None else int(stride)
    p = int(padding)
    Ho = (H + 2 * p - k) // s + 1
    Wo = (W + 2 * p - k) // s + 1
    out = torch.empty((N, 1, Ho, Wo), dtype=torch.float32, device=x1.device)
    if N == 0 or Ho <= 0 or Wo <= 0:
        return out
    sim = torch.empty((N, H, W), dtype=torch.float32, device=x1.device)
    BLOCK = 256
    _cosine_kernel[(N, triton.cdiv(H * W, BLOCK))](x1, x2, sim, C, H, W, *x1.stride(), *x2.stride(), float(eps),
                                                   CB=8, BLOCK=BLOCK, num_warps=4)
    _avg_pool2d_kernel[(N, triton.cdiv(Ho * Wo, BLOCK))](sim, out, H, W, Ho, Wo, k, s, p, 1.0 / (k * k),
                                                         BLOCK=BLOCK, num_warps=4)
    return out
