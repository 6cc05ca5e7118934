import torch
import triton
import triton.language as tl

# cos(x) = ±cos(r) or ±sin(r) with r = x − k·π/2: the reduction runs in float64 (exact enough that r keeps its
# sign even for x within a few ulps of a zero of cos), the polynomials in float32 on |r| ≤ π/4. The sign bit of
# the result is then right wherever the float32 cosine's is, which a fast hardware approximation does not give.


@triton.jit
def _cos_signbit_kernel(x_ptr, cos_ptr, sign_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    xd = x.to(tl.float64)
    k = tl.floor(xd * 0.6366197723675814 + 0.5)
    # π/2 split in two float64 parts (Cody–Waite): k·P1 is exact for |k| < 2^21.
    r = ((xd - k * 1.5707963267341256) - k * 6.077100506506192e-11).to(tl.float32)
    q = (k - 4.0 * tl.floor(k * 0.25)).to(tl.int32)
    r2 = r * r
    s = r + r * r2 * (-1.6666666666666666e-1 + r2 * (8.333333333333333e-3 + r2 * (-1.984126984126984e-4
                      + r2 * (2.7557319223985893e-6 + r2 * -2.505210838544172e-8))))
    c = 1.0 + r2 * (-0.5 + r2 * (4.1666666666666664e-2 + r2 * (-1.388888888888889e-3 + r2 * (
        2.48015873015873e-5 + r2 * (-2.755731922398589e-7 + r2 * 2.08767569878681e-9)))))
    res = tl.where(q == 0, c, tl.where(q == 1, -s, tl.where(q == 2, -c, s)))
    tl.store(cos_ptr + offs, res, mask=mask)
    tl.store(sign_ptr + offs, res.to(tl.int32, bitcast=True) < 0, mask=mask)


def fused_cos_signbit(input: torch.Tensor):
    x = input.contiguous()
    cos = torch.empty(input.shape, dtype=torch.float32, device=input.device)
    sign = torch.empty(input.shape, dtype=torch.bool, device=input.device)
    n = x.numel()
    if n == 0:
        return cos, sign
    BLOCK = 1024
    _cos_signbit_kernel[(triton.cdiv(n, BLOCK),)](x, cos, sign, n, BLOCK=BLOCK, num_warps=4)
    return cos, sign
