import torch
import triton
import triton.language as tl


@triton.jit
def _cos(x):
    # Accurate float32 cosine: float64 Cody–Waite reduction to |r| ≤ π/4, float32 polynomials.
    xd = x.to(tl.float64)
    k = tl.floor(xd * 0.6366197723675814 + 0.5)
    r = ((xd - k * 1.5707963267341256) - k * 6.077100506506192e-11).to(tl.float32)
    q = (k - 4.0 * tl.floor(k * 0.25)).to(tl.int32)
    r2 = r * r
    s = r + r * r2 * (-1.6666666666666666e-1 + r2 * (8.333333333333333e-3 + r2 * (-1.984126984126984e-4
                      + r2 * (2.7557319223985893e-6 + r2 * -2.505210838544172e-8))))
    c = 1.0 + r2 * (-0.5 + r2 * (4.1666666666666664e-2 + r2 * (-1.388888888888889e-3 + r2 * (
        2.48015873015873e-5 + r2 * (-2.755731922398589e-7 + r2 * 2.08767569878681e-9)))))
    return tl.where(q == 0, c, tl.where(q == 1, -s, tl.where(q == 2, -c, s)))


@triton.jit
def _cos_avg_pool1d_kernel(x_ptr, out_ptr, R, C, L, L_out, xs0, xs1, xs2, ksize, stride, pad,
                           INCLUDE_PAD: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK: tl.constexpr):
    """A tile of BLOCK_R rows (n·C + c) × BLOCK output positions."""
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    j = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    r_ok = rows < R
    j_ok = j < L_out
    n = (rows // C).to(tl.int64)
    c = (rows % C).to(tl.int64)
    base = x_ptr + n * xs0 + c * xs1
    t = j * stride - pad
    acc = tl.zeros([BLOCK_R, BLOCK], dtype=tl.float32)
    for i in range(0, ksize):
        pos = t + i
        inside = r_ok[:, None] & (j_ok & (pos >= 0) & (pos < L))[None, :]
        x = tl.load(base[:, None] + (pos.to(tl.int64) * xs2)[None, :], mask=inside, other=0.0)
        acc += tl.where(inside, _cos(x), 0.0)
    if INCLUDE_PAD:
        count = tl.minimum(t + ksize, L + pad) - t
    else:
        count = tl.minimum(t + ksize, L) - tl.maximum(t, 0)
    out = acc / count.to(tl.float32)[None, :]
    tl.store(out_ptr + rows.to(tl.int64)[:, None] * L_out + j[None, :], out, mask=r_ok[:, None] & j_ok[None, :])


def fused_cos_avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    k = int(kernel_size[0]) if isinstance(kernel_size, (tuple, list)) else int(kernel_size)
    s = k if stride is None else (int(stride[0]) if isinstance(stride, (tuple, list)) else int(stride))
    p = int(padding[0]) if isinstance(padding, (tuple, list)) else int(padding)
    unbatched = input.dim() == 2
    x = input.unsqueeze(0) if unbatched else input
    N, C, L = x.shape
    span = L + 2 * p - k
    L_out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (L_out - 1) * s >= L + p:  # the last window must start inside the input or left padding
        L_out -= 1
    out = torch.empty((N, C, L_out), dtype=torch.float32, device=input.device)
    R = N * C
    if R * L_out > 0:
        BLOCK = min(1024, max(16, triton.next_power_of_2(L_out)))
        BLOCK_R = max(1, 8192 // BLOCK)  # several rows per program when rows are short
        _cos_avg_pool1d_kernel[(triton.cdiv(R, BLOCK_R), triton.cdiv(L_out, BLOCK))](
            x, out, R, C, L, L_out, x.stride(0), x.stride(1), x.stride(2), k, s, p,
            INCLUDE_PAD=count_include_pad, BLOCK_R=BLOCK_R, BLOCK=BLOCK, num_warps=16)
    return out[0] if unbatched else out
