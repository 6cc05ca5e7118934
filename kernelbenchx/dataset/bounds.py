"""Error bounds for accumulations, for tolerances of scale "bound" (Task.error_bound).

A floating-point sum of n terms computed in any order (sequential runs, blocked, tree, atomics, split) has an
error governed by the partial sums it forms. For terms of mixed signs the partial sums grow like √k·RMS and the
rounding errors add like a random walk; for same-sign terms (losses, squared deviations, norms, data with a
large mean) the partial sums grow like k·mean and sequential summation drifts like u·√n·|Σx|/3 (u = ε/2).
Over the n terms reduced into one output,

    B_sum = C · ε · √n · (‖x‖₂ + |Σx|),        C = 2, ε = 2⁻²³ (fp32 accumulation) or 2⁻⁵² (float64),

is ≥ 9 standard deviations of the sequential-summation error for both kinds of data, blocked, tree and atomic
orders are far inside it, and accumulating in fp16/bf16 or dropping a block of terms exceeds it
(tests/test_tolerances.py measures both). One limit: when the terms are all equal (an expanded input), the
rounding of a running sum is systematic rather than random and grows like n·u/4 relative; B_sum covers it for
running sums of up to 16·√n terms, hence the admitted orders are those in which no single accumulator adds
more than 256 terms one after the other (lanes, tiles, trees, atomics and split reductions all do); a single
running sum over 2^20 copies of 0.1 is 1% off and is rejected. Everything derived from sums (means, variances,
norms, dot products, losses) adds the rounding of its elementwise steps as a few ε relative to the magnitudes
combined, written out per function below. All bounds are float64 tensors computed on the trusted side from
the inputs.
"""

from __future__ import annotations

import math
from typing import Iterable

import torch

C = 2.0
EPS = {torch.float64: 2.0 ** -52, torch.float32: 2.0 ** -23, torch.float16: 2.0 ** -10, torch.bfloat16: 2.0 ** -7}
EPS32 = EPS[torch.float32]

SUM_TEXT = BOUND_TEXT = ("B_sum(t) = 2·ε·√n·(‖t‖₂ + |Σt|) for a sum of n terms t, with ε = 2⁻²³ (fp32 accumulation; "
            "2⁻⁵² for float64): any summation order in the accumulation precision (blocked, tree, atomics, split, "
            "sequential runs) stays well inside it, provided no single accumulator adds more than ~256 terms one "
            "after the other (a single running sum over many equal terms rounds systematically)")


def eps_of(dtype: torch.dtype) -> float:
    return EPS.get(dtype, EPS32)


def dims_of(x: torch.Tensor, dim: int | Iterable[int] | None) -> tuple[int, ...]:
    if dim is None:
        return tuple(range(x.dim()))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return tuple(sorted({d % max(x.dim(), 1) for d in dims})) if x.dim() else ()


def count(x: torch.Tensor, dims: tuple[int, ...]) -> int:
    return math.prod(x.shape[d] for d in dims) if x.dim() else 1


def reduce_sum(t: torch.Tensor, dims: tuple[int, ...], keepdim: bool) -> torch.Tensor:
    if not dims:
        return t.clone()
    return t.sum(dim=dims, keepdim=keepdim)


def sum_bound(x: torch.Tensor, dim=None, keepdim: bool = False, acc: torch.dtype = torch.float32) -> torch.Tensor:
    """B_sum for sum(x, dim) accumulated in `acc`, per output element (float64)."""
    x = x.detach().double()
    dims = dims_of(x, dim)
    n = count(x, dims)
    norm = reduce_sum(x.pow(2), dims, keepdim).sqrt()
    drift = reduce_sum(x, dims, keepdim).abs()
    return C * eps_of(acc) * math.sqrt(max(n, 1)) * (norm + drift)


def mean_bound(x: torch.Tensor, dim=None, keepdim: bool = False, acc: torch.dtype = torch.float32) -> torch.Tensor:
    """B for mean(x, dim): B_sum / n plus the rounding of the division and of the result."""
    x = x.detach().double()
    dims = dims_of(x, dim)
    n = max(count(x, dims), 1)
    mean = reduce_sum(x, dims, keepdim) / n
    return sum_bound(x, dims, keepdim, acc) / n + 2 * eps_of(acc) * mean.abs()


def moments(x: torch.Tensor, dims: tuple[int, ...], keepdim: bool):
    """(n, mean, M2 = Σ(x − mean)², B_mean, B_M2) in float64, per output element, for fp32 accumulation.

    B_M2 covers two-pass (mean, then Σ(x − mean)²), Welford and Chan-merged partial statistics: the sum of the
    squared deviations d² (same-sign terms) as B_sum(d²), the rounding of each d and d² (2ε relative), the
    error of the mean entering each d (first order, random signs: 2·B_mean·√M2; second order n·B_mean²)."""
    x = x.detach().double()
    n = count(x, dims)
    mean_k = reduce_sum(x, dims, True) / max(n, 1)
    d2 = (x - mean_k).pow(2)
    m2 = reduce_sum(d2, dims, keepdim)
    b_mean = mean_bound(x, dims, keepdim)
    b_m2 = (sum_bound(d2, dims, keepdim) + 2 * EPS32 * m2 + 2 * b_mean * m2.sqrt() + n * b_mean.pow(2))
    mean = mean_k if keepdim else reduce_sum(x, dims, False) / max(n, 1)
    return n, mean, m2, b_mean, b_m2


def var_bound(x: torch.Tensor, dim=None, correction: float = 1, keepdim: bool = False):
    """(var, B_var) for the variance with divisor max(0, n − correction) (inf/NaN where it is 0)."""
    dims = dims_of(x, dim)
    n, _, m2, _, b_m2 = moments(x, dims, keepdim)
    dof = max(n - correction, 0)
    if dof == 0:
        return m2 / 0.0, torch.full_like(m2, math.inf)
    var = m2 / dof
    return var, b_m2 / dof + EPS32 * var


def sqrt_bound(v: torch.Tensor, b_v: torch.Tensor) -> torch.Tensor:
    """B for sqrt(v) when v carries an error ≤ b_v: |√(v+δ) − √v| ≤ 2δ/(√v + √δ), plus the rounding."""
    root = v.clamp_min(0).sqrt()
    return 2 * b_v / (root + b_v.sqrt()).clamp_min(1e-300) + EPS32 * root


def std_bound(x: torch.Tensor, dim=None, correction: float = 1, keepdim: bool = False) -> torch.Tensor:
    var, b_var = var_bound(x, dim, correction, keepdim)
    return sqrt_bound(var, b_var)


MOMENTS_TEXT = ("with d = x − mean over the n elements of a slice: B_mean = B_sum(x)/n + 2ε·|mean|; "
                "B_M2 = B_sum(d²) + 2ε·Σd² + 2·B_mean·√(Σd²) + n·B_mean²; B_var = B_M2/(n − correction) + ε·var")
STD_TEXT = MOMENTS_TEXT + "; B = 2·B_var/(√var + √B_var) + ε·std, where " + SUM_TEXT


def loss_bound(loss: torch.Tensor, elem: torch.Tensor, reduction: str, divisor=None,
               b_divisor=None) -> torch.Tensor:
    """B for a loss reduced from elementwise values `loss` (float64, the exact per-element losses) that a kernel
    computes with per-element errors ≤ `elem`: 'none' → elem; 'sum' → Σelem + B_sum(loss); 'mean' → the same
    over `divisor` (default: the count), plus |mean|·b_divisor/divisor when the divisor is itself a sum."""
    loss, elem = loss.double(), elem.double()
    if reduction == "none":
        return elem
    total = elem.sum() + sum_bound(loss)
    if reduction == "sum":
        return total + EPS32 * loss.sum().abs()
    div = float(loss.numel()) if divisor is None else divisor
    div = torch.as_tensor(div, dtype=torch.float64)
    mean = loss.sum() / div
    out = total / div + 2 * EPS32 * mean.abs()
    if b_divisor is not None:
        out = out + mean.abs() * b_divisor / div
    return torch.where(div == 0, torch.zeros_like(out), out)


LOSS_TEXT = ("for reduction='none', B = e elementwise; for 'sum', B = Σe + B_sum(ℓ) + ε·|Σℓ|; for 'mean', "
             "that divided by the divisor, + 2ε·|mean| (+ |mean|·B_sum(divisor terms)/divisor when the divisor "
             "is a sum of weights); where ℓ are the exact elementwise losses and e their per-element rounding "
             "allowance given below, and " + SUM_TEXT)


def norm_rel_bound(v: torch.Tensor, p: float, dim, keepdim: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    """(‖v‖_p, relative B) over `dim`, v exact (float64): the terms t = |v|^p carry 2ε·(1 + p·|log|v||) each
    (a pow through exp/log), their sum B_sum(t), and the p-th root divides the relative error by p and adds
    2ε·(1 + |log S|/p). p = inf (a max) and p = 0 (a count) are exact apart from 2ε."""
    v = v.detach().double().abs()
    dims = dims_of(v, dim)
    if p == math.inf:
        return reduce_max(v, dims, keepdim), torch.full_like(reduce_max(v, dims, keepdim), 2 * EPS32)
    if p == -math.inf:
        return reduce_min(v, dims, keepdim), torch.full_like(reduce_min(v, dims, keepdim), 2 * EPS32)
    if p == 0:
        nz = reduce_sum((v != 0).double(), dims, keepdim)
        return nz, torch.full_like(nz, 2 * EPS32)
    t = v.pow(p)
    s = reduce_sum(t, dims, keepdim)
    logv = torch.where(v > 0, v.log().abs(), torch.zeros_like(v))
    elem = reduce_sum(t * 2 * EPS32 * (1 + p * logv), dims, keepdim)
    rel_s = (elem + sum_bound(t, dims, keepdim)) / s.clamp_min(1e-300)
    norm = s.pow(1.0 / p)
    rel = rel_s / p + 2 * EPS32 * (1 + torch.where(s > 0, s.log().abs(), torch.zeros_like(s)) / p)
    return norm, rel


def reduce_max(t: torch.Tensor, dims: tuple[int, ...], keepdim: bool) -> torch.Tensor:
    out = t
    for d in sorted(dims, reverse=True):
        out = out.amax(dim=d, keepdim=keepdim) if out.shape[d] else out.sum(dim=d, keepdim=keepdim)
    return out


def reduce_min(t: torch.Tensor, dims: tuple[int, ...], keepdim: bool) -> torch.Tensor:
    out = t
    for d in sorted(dims, reverse=True):
        out = out.amin(dim=d, keepdim=keepdim) if out.shape[d] else out.sum(dim=d, keepdim=keepdim)
    return out


NORM_TEXT = ("for a p-norm ‖v‖_p = (Σ|v|^p)^(1/p) of n terms, relative error rel = (Σ 2ε(1 + p·|ln|v||)·|v|^p + "
             "B_sum(|v|^p)) / (p·Σ|v|^p) + 2ε·(1 + |ln Σ|v|^p|/p) (2ε for p = inf)")
