import torch
import triton
import triton.language as tl


@triton.jit
def _lgamma2(e):
    # ln Γ(2 + e) for |e| ≤ 1/2: (1 − γ)e + Σ_{k≥2} (−1)^k (ζ(k) − 1)/k · e^k (terms shrink like 4^-k/k)
    p = 9.551412130407415e-07
    p = p * e + -2.039215753801366e-06
    p = p * e + 4.3748667899074865e-06
    p = p * e + -9.439488275268398e-06
    p = p * e + 2.0507212775670688e-05
    p = p * e + -4.4926236738133156e-05
    p = p * e + 9.945751278180857e-05
    p = p * e + -0.00022315475845357936
    p = p * e + 0.0005096695247430426
    p = p * e + -0.0011927539117032612
    p = p * e + 0.002890510330741523
    p = p * e + -0.007385551028673988
    p = p * e + 0.020580808427784553
    p = p * e + -0.0673523010531981
    p = p * e + 0.3224670334241133
    p = p * e + 0.42278433509846713
    return p * e


@triton.jit
def _log1p_small(x):
    # ln(1 + x) for |x| ≤ 1/2 as 2·atanh(x / (2 + x)): relative accuracy near 0
    s = x / (2.0 + x)
    s2 = s * s
    q = 1.0 / 19.0
    q = q * s2 + 1.0 / 17.0
    q = q * s2 + 1.0 / 15.0
    q = q * s2 + 1.0 / 13.0
    q = q * s2 + 1.0 / 11.0
    q = q * s2 + 1.0 / 9.0
    q = q * s2 + 1.0 / 7.0
    q = q * s2 + 1.0 / 5.0
    q = q * s2 + 1.0 / 3.0
    return 2.0 * (s + s * (s2 * q))


@triton.jit
def _lgamma_positive(x):
    # ln Γ(x) for x > 0. Below 8.5, with x = n + e (n = round(x), |e| ≤ 1/2): Γ(n + e) = Γ(2 + e)·(2+e)…(n−1+e)
    # for n ≥ 2, and Γ(1 + e) = Γ(2 + e)/(1 + e), Γ(e) = Γ(2 + e)/(e(1 + e)) below; every piece is small or
    # positive, so values near the roots 1 and 2 keep an absolute error of a few 1e-8. From 8.5 on, Stirling's
    # series written as (x − 1/2)(ln x − 1) − 1/2 + ln √(2π) + Σ B₂ₖ/(2k(2k−1)x^(2k−1)).
    nr = tl.floor(x + 0.5)
    e = x - nr  # exact
    l2 = _lgamma2(e)
    q = tl.full(x.shape, 1.0, tl.float32)
    for j in tl.static_range(2, 8):
        q = tl.where(nr > j, q * (e + j), q)
    small = tl.where(x < 0.5, l2 - _log1p_small(x) - tl.log(x),
                     tl.where(x < 1.5, l2 - _log1p_small(e), l2 + tl.log(q)))
    z = tl.maximum(x, 8.5)
    r = 1.0 / z
    r2 = r * r
    series = r * (1.0 / 12.0 - r2 * (1.0 / 360.0 - r2 * (1.0 / 1260.0 - r2 * (1.0 / 1680.0 - r2 / 1188.0))))
    big = (z - 0.5) * (tl.log(z) - 1.0) + (0.91893853320467274 - 0.5) + series
    return tl.where(x < 8.5, small, big)


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
    # the CPU interpreter pays per operation, not per element: large blocks there
    BLOCK = (1024 if n < (1 << 20) else 2048) if x.is_cuda else 16384
    _gammaln_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=4 if BLOCK == 1024 else 8)
    return y
