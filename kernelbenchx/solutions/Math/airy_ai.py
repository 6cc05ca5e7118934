import torch
import triton
import triton.language as tl

# Ai in float32 from three fits made for this kernel (against mpmath; each < 2e-8 before rounding):
#   −3 ≤ x ≤ 1.5: a degree-14 Chebyshev series of Ai, summed by Clenshaw's recurrence;
#   x < −3:  Ai(x) = π^(−1/2)·y^(−1/4)·(U·cos(ζ − π/4) + V·sin(ζ − π/4)), y = −x, ζ = (2/3)·y^(3/2), with U and V
#            fitted as polynomials in ζ₀/ζ; ζ is formed and reduced modulo 2π in float64, so the phase carries no
#            float32 rounding even where ζ is in the hundreds;
#   x > 1.5: Ai(x) = e^(−ζ)/(2√π·x^(1/4))·F, F fitted as a polynomial in ζ₁/ζ (relative accuracy as Ai decays;
#            it underflows to 0 past x ≈ 26).
# ±inf and NaN give NaN, as torch does.
BLOCK = 1024


@triton.jit
def _airy_ai_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)

    # middle: Clenshaw on u = (2x + 1.5)/4.5 ∈ [−1, 1]
    u = (2.0 * x + 1.5) * (1.0 / 4.5)
    u = tl.minimum(tl.maximum(u, -1.0), 1.0)
    u2 = 2.0 * u
    b1 = tl.zeros_like(u) - 1.194197148148e-07
    b2 = tl.zeros_like(u)
    b1, b2 = u2 * b1 - b2 + 5.583250516521e-07, b1
    b1, b2 = u2 * b1 - b2 + 4.019377776312e-07, b1
    b1, b2 = u2 * b1 - b2 - 1.436372691191e-05, b1
    b1, b2 = u2 * b1 - b2 + 5.112726763524e-05, b1
    b1, b2 = u2 * b1 - b2 + 5.918695962187e-05, b1
    b1, b2 = u2 * b1 - b2 - 1.009260293424e-03, b1
    b1, b2 = u2 * b1 - b2 + 2.530758496809e-03, b1
    b1, b2 = u2 * b1 - b2 + 3.844845051997e-03, b1
    b1, b2 = u2 * b1 - b2 - 3.387017632036e-02, b1
    b1, b2 = u2 * b1 - b2 + 5.09851206827e-02, b1
    b1, b2 = u2 * b1 - b2 + 8.842159720654e-02, b1
    b1, b2 = u2 * b1 - b2 - 3.395483395412e-01, b1
    b1, b2 = u2 * b1 - b2 + 1.681543341523e-01, b1
    middle = u * b1 - b2 + 1.321438223563e-01

    # x < −3: oscillating tail
    y = tl.maximum(-x, 3.0)
    yd = y.to(tl.float64)
    zd = 0.6666666666666666 * yd * tl.sqrt(yd)
    rd = zd - 6.283185307179586 * tl.floor(zd * 0.15915494309189535 + 0.5)
    r = rd.to(tl.float32)
    z = zd.to(tl.float32)
    t = 3.4641016151377544 / z
    v = 2.0 * t - 1.0
    uu = 5.806423103052e-07
    uu = uu * v - 3.683668627845e-06
    uu = uu * v + 5.513773826302e-06
    uu = uu * v + 6.618932038992e-05
    uu = uu * v - 6.524657754392e-04
    uu = uu * v - 1.459673195501e-03
    uu = uu * v + 9.992492061448e-01
    vv = 5.6001793631e-07
    vv = vv * v - 2.141459171071e-06
    vv = vv * v + 4.915414919898e-07
    vv = vv * v + 3.211166343682e-05
    vv = vv * v - 1.643245802998e-04
    vv = vv * v - 4.090063677047e-04
    vv = vv * v + 1.983112205801e-02
    vv = vv * t
    c = tl.cos(r)
    s = tl.sin(r)
    # cos(ζ − π/4) = (c + s)/√2, sin(ζ − π/4) = (s − c)/√2; 1/sqrt(2π) folded into the constant
    negative = 0.3989422804014327 * (uu * (c + s) + vv * (s - c)) / tl.sqrt_rn(tl.sqrt_rn(y))

    # x > 1.5: decaying tail
    xp = tl.maximum(x, 1.5)
    sx = tl.sqrt_rn(xp)
    zp = 0.6666666666666666 * xp * sx
    tp = 1.224744871391589 / zp
    vp = 2.0 * tp - 1.0
    f = 4.760623440395e-06
    f = f * vp - 1.023236139066e-05
    f = f * vp + 1.426418463874e-05
    f = f * vp - 4.311954220147e-05
    f = f * vp + 1.481150630898e-04
    f = f * vp - 5.504924004727e-04
    f = f * vp + 2.638791278761e-03
    f = f * vp - 2.041705966505e-02
    f = f * vp + 9.761731527898e-01
    positive = 0.28209479177387814 * tl.exp(-zp) * f / tl.sqrt_rn(sx)

    res = tl.where(x < -3.0, negative, tl.where(x > 1.5, positive, middle))
    res = tl.where(tl.abs(x) == float("inf"), float("nan"), res)
    res = tl.where(x != x, x, res)
    tl.store(y_ptr + offs, res, mask=mask)


def airy_ai(input: torch.Tensor) -> torch.Tensor:
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        _airy_ai_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=4)
    return y
