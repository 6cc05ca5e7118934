import torch
import triton
import triton.language as tl

MAX_DIMS = 4


@triton.jit
def _log2_accurate(a):
    # log2(a) for finite a > 0: exact exponent plus a short atanh series of the mantissa in [√½, √2);
    # exact at powers of two (the negative-q sums rely on ±2^k terms cancelling exactly, as in the reference)
    tiny = a < 1.1754943508222875e-38
    a = tl.where(tiny, a * 16777216.0, a)
    bits = a.to(tl.int32, bitcast=True)
    e = ((bits >> 23) & 0xFF) - tl.where(tiny, 151, 127)
    m = ((bits & 0x007FFFFF) | 0x3F800000).to(tl.float32, bitcast=True)
    big = m > 1.4142135623730951
    m = tl.where(big, m * 0.5, m)
    e = tl.where(big, e + 1, e)
    s = tl.math.div_rn(m - 1.0, m + 1.0)
    s2 = s * s
    p = 1.0 / 13.0
    p = p * s2 + 1.0 / 11.0
    p = p * s2 + 1.0 / 9.0
    p = p * s2 + 1.0 / 7.0
    p = p * s2 + 1.0 / 5.0
    p = p * s2 + 1.0 / 3.0
    ln_m = 2.0 * (s + s * (s2 * p))
    return e.to(tl.float32) + ln_m * 1.4426950408889634


@triton.jit
def _exp2_accurate(t):
    # 2^t: integer part as exact powers of two, the hardware exp2 only on the fraction (exact for integral t)
    t = tl.minimum(tl.maximum(t, -252.0), 254.0)
    k = tl.floor(t + 0.5)
    p = tl.exp2(t - k)
    ki = k.to(tl.int32)
    k1 = ki // 2
    k2 = ki - k1
    s1 = ((k1 + 127) << 23).to(tl.float32, bitcast=True)
    s2 = ((k2 + 127) << 23).to(tl.float32, bitcast=True)
    return (p * s1) * s2


@triton.jit
def _inv_pow(a, x, x_odd):
    # a^(−x); a < 0 only occurs with an integral x (sign (−1)^x)
    r = _exp2_accurate(-x * _log2_accurate(tl.abs(a)))
    return tl.where((a < 0) & x_odd, -r, r)


@triton.jit
def _zeta_kernel(x_ptr, q_ptr, out_ptr, n, q_scalar, d1, d2, d3, xs0, xs1, xs2, xs3, qs0, qs1, qs2, qs3,
                 FLAT: tl.constexpr, Q_SCALAR: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if FLAT:
        xo = offs
        qo = offs
    else:
        i3 = offs % d3
        rest = offs // d3
        i2 = rest % d2
        rest = rest // d2
        i1 = rest % d1
        i0 = rest // d1
        xo = i0 * xs0 + i1 * xs1 + i2 * xs2 + i3 * xs3
        qo = i0 * qs0 + i1 * qs1 + i2 * qs2 + i3 * qs3
    x = tl.load(x_ptr + xo, mask=mask, other=2.0)
    if Q_SCALAR:
        q = tl.zeros([BLOCK], tl.float32) + q_scalar
    else:
        q = tl.load(q_ptr + qo, mask=mask, other=1.0)
    # work on in-domain stand-ins; the domain rules are applied at the end
    xv = tl.where((x == x) & (x > 1.0), x, 2.0)
    x_int = tl.floor(xv) == xv
    half = xv * 0.5
    x_odd = x_int & (tl.floor(half) != half)
    q_pole = (q <= 0.0) & (tl.floor(q) == q)
    qv = tl.where((q == q) & (~q_pole) & ((q > 0.0) | x_int), q, 1.0)
    # direct terms (q + k)^−x while k < 9 or q + k < 9, then Euler–Maclaurin at w = q + count ≥ 9
    m = tl.maximum(tl.ceil(9.0 - tl.min(tl.where(mask, qv, 1.0), axis=0)), 9.0).to(tl.int32)
    s = tl.zeros([BLOCK], tl.float32)
    cnt = tl.zeros([BLOCK], tl.float32)
    for k in range(0, m):
        a = qv + k
        active = (k < 9) | (a < 9.0)
        s += tl.where(active, _inv_pow(a, xv, x_odd), 0.0)
        cnt += tl.where(active, 1.0, 0.0)
    w = qv + cnt
    b = _inv_pow(w, xv, x_odd)
    # Σ_{k=1}^{12} B₂ₖ/(2k)! · x(x+1)…(x+2k−2) · w^(−x−2k+1), each term from the previous (no overflow of the
    # rising factorial for large x)
    iw2 = 1.0 / (w * w)
    t = b * xv / w * (1.0 / 12.0)
    em = t
    t = t * (-0.016666666666666666) * (xv + 1.0) * (xv + 2.0) * iw2
    em += t
    t = t * (-0.023809523809523808) * (xv + 3.0) * (xv + 4.0) * iw2
    em += t
    t = t * (-0.025) * (xv + 5.0) * (xv + 6.0) * iw2
    em += t
    t = t * (-0.025252525252525252) * (xv + 7.0) * (xv + 8.0) * iw2
    em += t
    t = t * (-0.02531135531135531) * (xv + 9.0) * (xv + 10.0) * iw2
    em += t
    t = t * (-0.02532561505065123) * (xv + 11.0) * (xv + 12.0) * iw2
    em += t
    t = t * (-0.025329131652661065) * (xv + 13.0) * (xv + 14.0) * iw2
    em += t
    t = t * (-0.025330005504037488) * (xv + 15.0) * (xv + 16.0) * iw2
    em += t
    t = t * (-0.02533022338183393) * (xv + 17.0) * (xv + 18.0) * iw2
    em += t
    t = t * (-0.025330277786482922) * (xv + 19.0) * (xv + 20.0) * iw2
    em += t
    t = t * (-0.025330291380456796) * (xv + 21.0) * (xv + 22.0) * iw2
    em += t
    y = s + (0.5 * b + b * w / (xv - 1.0) + em)
    # domain rules (Cephes, as torch): x = 1 → +inf; x < 1 → NaN; q = 0 or a negative integer → +inf; a negative
    # non-integer q with a non-integral x → NaN; NaN in either argument → NaN
    y = tl.where(q_pole, float("inf"), y)
    y = tl.where((q < 0.0) & (~q_pole) & (tl.floor(x) != x), float("nan"), y)
    y = tl.where(x == 1.0, float("inf"), y)
    y = tl.where((x < 1.0) | (x != x) | (q != q), float("nan"), y)
    tl.store(out_ptr + offs, y, mask=mask)


def _padded(t: torch.Tensor, shape) -> list[int]:
    return [0] * (MAX_DIMS - len(shape)) + list(t.expand(shape).stride())


def zeta(input: torch.Tensor, other) -> torch.Tensor:
    q_scalar = not isinstance(other, torch.Tensor)
    shape = input.shape if q_scalar else torch.broadcast_shapes(input.shape, other.shape)
    out = torch.empty(shape, dtype=torch.float32, device=input.device)
    n = out.numel()
    if n == 0:
        return out
    x, q = input, (input if q_scalar else other)
    if len(shape) > MAX_DIMS:  # rare: materialize the broadcast and run flat
        x = x.expand(shape).contiguous()
        q = q if q_scalar else q.expand(shape).contiguous()
    flat = x.shape == shape and x.is_contiguous() and (q_scalar or (q.shape == shape and q.is_contiguous()))
    dims = [1] * (MAX_DIMS - len(shape)) + list(shape)
    xs = [0] * MAX_DIMS if flat else _padded(x, shape)
    qs = [0] * MAX_DIMS if (flat or q_scalar) else _padded(q, shape)
    # the CPU interpreter pays per operation, not per element: large blocks there
    BLOCK = 1024 if x.is_cuda else 16384
    _zeta_kernel[(triton.cdiv(n, BLOCK),)](x, q, out, n, float(other) if q_scalar else 0.0, dims[1], dims[2],
                                          dims[3], *xs, *qs, FLAT=flat, Q_SCALAR=q_scalar, BLOCK=BLOCK, num_warps=8)
    return out
