import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def _asin_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    a = tl.abs(x)
    # |x| ≤ 0.5: asin(x) = x + x·z·P(z), z = x²; |x| > 0.5: asin(|x|) = π/2 − 2·asin(s) with s = sqrt((1 − |x|)/2),
    # which stays accurate near ±1 where asin is steep. Same minimax polynomial on both (argument ≤ 0.5).
    big = a > 0.5
    z = tl.where(big, 0.5 * (1.0 - a), a * a)
    s = tl.where(big, tl.sqrt_rn(z), a)
    p = (((4.2163199048e-2 * z + 2.4181311049e-2) * z + 4.5470025998e-2) * z + 7.4953002686e-2) * z \
        + 1.6666752422e-1
    r = s + s * z * p
    r = tl.where(big, 1.5707963267948966 - 2.0 * r, r)
    y = tl.where(x < 0.0, -r, tl.where(x == 0.0, x, r))  # keeps the sign of ±0
    y = tl.where(a > 1.0, float("nan"), y)  # outside [−1, 1] (±inf included); NaN propagates through r
    tl.store(y_ptr + offs, y, mask=mask)


def asin(input: torch.Tensor) -> torch.Tensor:
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        _asin_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=4)
    return y
