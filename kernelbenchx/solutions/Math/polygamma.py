import math

import torch
import triton
import triton.language as tl

@triton.jit
def _poch(b, S: tl.constexpr, M: tl.constexpr):
    # b · S (S+1) … (S+M−1), folded at compile time
    c = b
    for j in tl.static_range(M):
        c = c * (S + j)
    return c


@triton.jit
def _polygamma_kernel(x_ptr, y_ptr, numel, sign_fact, N: tl.constexpr, BLOCK: tl.constexpr):
    # ψ⁽ᴺ⁾(x) = ψ⁽ᴺ⁾(x + m) + (−1)^(N+1) N! Σ_{k<m} (x + k)^−(N+1)   (for N = 0: ψ(x + m) − Σ 1/(x + k))
    # with m chosen so that x + m ≥ 6, then the asymptotic series at z = x + m (8 terms: ~1e-9 relative at z = 6).
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    x = tl.load(x_ptr + offs, mask=mask, other=6.0)
    xs = tl.where(x == x, x, 6.0)  # NaN: result set below
    m = tl.maximum(tl.ceil(6.0 - tl.min(xs, axis=0)), 0.0).to(tl.int32)  # shifts the block's smallest x needs
    s = tl.zeros([BLOCK], tl.float32)
    cnt = tl.zeros([BLOCK], tl.float32)
    for k in range(0, m):
        a = xs + k  # one rounding per term (no running sum of shifts)
        active = a < 6.0
        p = a
        for _ in tl.static_range(N):
            p = p * a
        # correctly rounded: at half-integers x < 0 the terms ±2^k must cancel exactly, as in the reference
        s += tl.where(active, tl.math.div_rn(tl.full([BLOCK], 1.0, tl.float32), p), 0.0)
        cnt += tl.where(active, 1.0, 0.0)
    z = xs + cnt
    w = 1.0 / z
    w2 = w * w
    if N == 0:
        # ψ(z) = ln z − 1/(2z) − Σ B₂ₖ/(2k z^2k)
        t = -3617.0 / 8160.0
        t = t * w2 + 1.0 / 12.0
        t = t * w2 - 691.0 / 32760.0
        t = t * w2 + 1.0 / 132.0
        t = t * w2 - 1.0 / 240.0
        t = t * w2 + 1.0 / 252.0
        t = t * w2 - 1.0 / 120.0
        t = t * w2 + 1.0 / 12.0
        y = tl.log(z) - 0.5 * w - w2 * t - s
    else:
        # ζ(s, z) = z^(1−s)/(s−1) + z^−s/2 + Σ B₂ₖ/(2k)! · s(s+1)…(s+2k−2) · z^(−s−2k+1),  s = N + 1
        t = _poch(-3617.0 / 10670622842880000.0, N + 1, 15)
        t = t * w2 + _poch(1.0 / 74724249600.0, N + 1, 13)
        t = t * w2 + _poch(-691.0 / 1307674368000.0, N + 1, 11)
        t = t * w2 + _poch(1.0 / 47900160.0, N + 1, 9)
        t = t * w2 + _poch(-1.0 / 1209600.0, N + 1, 7)
        t = t * w2 + _poch(1.0 / 30240.0, N + 1, 5)
        t = t * w2 + _poch(-1.0 / 720.0, N + 1, 3)
        t = t * w2 + _poch(1.0 / 12.0, N + 1, 1)
        wn = w
        for _ in tl.static_range(N - 1):
            wn = wn * w
        zeta = wn * (1.0 / N + w * (0.5 + w * t))
        y = sign_fact * (s + zeta)
    # x = 0 is a pole: (−1)^(N+1)·inf (the k = 0 term is already ±inf); NaN stays NaN
    y = tl.where(x != x, x, y)
    tl.store(y_ptr + offs, y, mask=mask)


def polygamma(n: int, input: torch.Tensor) -> torch.Tensor:
    x = input.contiguous()
    y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    numel = x.numel()
    if numel == 0:
        return y
    sign_fact = float((-1) ** (n + 1) * math.factorial(n))
    # the CPU interpreter pays per operation, not per element: large blocks there
    BLOCK = 512 if x.is_cuda else 16384
    _polygamma_kernel[(triton.cdiv(numel, BLOCK),)](x, y, numel, sign_fact, N=n, BLOCK=BLOCK, num_warps=4)
    return y
