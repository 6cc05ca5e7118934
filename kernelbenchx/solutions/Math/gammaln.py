import torch
import triton
import triton.language as tl


@triton.jit
def _lgamma_positive(x):
    # ln Γ(x) for x > 0: shift up to z ≥ 8 with Γ(x) = Γ(z) / (x (x+1) … (z-1)), then Stirling's series
    z = x
    p = tl.full(x.shape, 1.0, tl.float32)
    for _ in tl.static_range(8):
        low = z < 8.0
        p = tl.where(low, p * z, p)
        z = tl.where(low, z + 1.0, z)
    r = 1.0 / z
    r2 = r * r
    series = r * (1.0 / 12.0 - r2 * (1.0 / 360.0 - r2 * (1.0 / 1260.0 - r2 * (1.0 / 1680.0 - r2 / 1188.0))))
    return (z - 0.5) * tl.log(z) - z + 0.91893853320467274 + series - tl.log(p)


@triton.jit
def _sinpi_abs(x):
    # |sin(πx)| with exact argument reduction: r = x - round(x) in [-1/2, 1/2], then an odd Taylor series of
    # sin(πr) (relative accuracy near the poles, where the hardware sine has only absolute accuracy)
    r = x - tl.floor(x + 0.5)
    t = 3.14159265358979324 * r
    t2 = t * t
    p = 1.0 / 1307674368000.0
    p = p * t2 - 1.0 / 6227020800.0
    p = p * t2 + 1.0 / 39916800.0
    p = p * t2 - 1.0 / 362880.0
    p = p * t2 + 1.0 / 5040.0
    p = p * t2 - 1.0 / 120.0
    p = p * t2 + 1.0 / 6.0
    return tl.abs(t - t * (t2 * p))


@triton.jit
def _gammaln_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    neg = x < 0.0
    pos = tl.where(neg, 1.0 - x, x)  # reflection for x < 0: ln|Γ(x)| = ln π − ln|sin πx| − ln Γ(1 − x)
    pos = tl.where(pos > 0.0, pos, 1.0)  # ±0 handled below
    lg = _lgamma_positive(tl.minimum(pos, 3.0e38))
    refl = 1.1447298858494002 - tl.log(_sinpi_abs(x)) - lg
    y = tl.where(neg, refl, lg)
    # poles (0, negative integers, and every float32 ≤ −2^23), ±inf → +inf; NaN stays NaN
    pole = (x <= 0.0) & (tl.floor(x) == x)
    y = tl.where(pole | (tl.abs(x) == float("inf")), float("inf"), y)
    y = tl.where(x != x, x, y)
    tl.store(y_ptr + offs, y, mask=mask)


def gammaln(input: torch.Tensor) -> torch.Tensor:
    x = input.contiguous()
    y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = x.numel()
    if n == 0:
        return y
    BLOCK = 1024 if n < (1 << 20) else 2048
    _gammaln_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=4 if BLOCK == 1024 else 8)
    return y
