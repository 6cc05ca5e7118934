import torch
import triton
import triton.language as tl

# ψ in float32, following torch's case analysis:
#   x = ±0 → ∓inf; negative integers (every x ≤ −2^23) and −inf → NaN;
#   x < 0 → ψ(1 − x) − π/tan(πx), with tan(πx) = tan(πr), r = x − round(x) ∈ [−1/2, 1/2] (exact), so the
#           reflection stays accurate next to the poles;
#   y > 0 → if y < 6: ψ(y) = ψ(y + 6) − Σ_{k<6} 1/(y + k), the six terms summed as one fraction (one division);
#           then the asymptotic series ln z − 1/(2z) − Σ_{k≤5} B₂ₖ/(2k·z^{2k}) at z ≥ 6 (truncation < 1e-11).
BLOCK = 1024


@triton.jit
def _digamma_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    pi = 3.141592653589793

    neg = x < 0.0
    r = x - tl.floor(x + 0.5)
    refl = pi * tl.cos(pi * r) / tl.sin(pi * r)
    y = tl.where(neg, 1.0 - x, x)

    shift = y < 6.0
    a0 = y
    a1 = y + 1.0
    a2 = y + 2.0
    a3 = y + 3.0
    a4 = y + 4.0
    a5 = y + 5.0
    p01 = a0 * a1
    p23 = a2 * a3
    p45 = a4 * a5
    num = ((a0 + a1) * p23 + (a2 + a3) * p01) * p45 + (a4 + a5) * (p01 * p23)
    den = (p01 * p23) * p45
    head = tl.where(shift, num / tl.where(shift, den, 1.0), 0.0)

    zz = tl.where(shift, y + 6.0, y)
    rz = 1.0 / zz
    w = rz * rz
    series = w * (8.33333333333333333e-2 - w * (8.33333333333333333e-3 - w * (3.96825396825396825e-3
                  - w * (4.16666666666666667e-3 - w * 7.57575757575757576e-3))))
    psi = tl.log(zz) - 0.5 * rz - series - head
    psi = tl.where(neg, psi - refl, psi)

    # negative integers and −inf (x + 0.5 rounds for odd |x| ≥ 2^23, so r is no pole test there)
    psi = tl.where(neg & (x == tl.floor(x)), float("nan"), psi)
    psi = tl.where(x == 0.0, tl.where((x.to(tl.int32, bitcast=True) < 0), float("inf"), -float("inf")), psi)
    tl.store(y_ptr + offs, psi, mask=mask)


def digamma(input: torch.Tensor) -> torch.Tensor:
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        _digamma_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=4)
    return y
