"""Error bounds for accumulations, for tolerances of scale "bound" (Task.error_bound).

A floating-point sum of n terms computed in any order (sequential, blocked, tree, atomics, split) has an
error whose size is governed by the partial sums it forms. For sums of terms with mixed signs the partial
sums grow like √k·RMS, and the rounding errors add like a random walk; the bound used here,

    B = C · ε_acc · √n · ‖x‖₂   (over the n terms reduced into one output element),

is C·√3 ≈ 3.5 standard deviations above the error of plain sequential summation (the worst order a kernel
would use) and about 100× above what blocked or atomic reductions give in practice, while it stays orders of
magnitude below what a real bug costs (a dropped block, a term counted twice, accumulation in a lower
precision: the latter is ε_low/ε_acc ≈ 8000× worse for fp16). tests/test_tolerances.py measures the
false-failure rate of honest orders against it.
"""

from __future__ import annotations

import math

import torch

C = 2.0
EPS = {torch.float64: 2.0 ** -52, torch.float32: 2.0 ** -23, torch.float16: 2.0 ** -10, torch.bfloat16: 2.0 ** -7}


def sum_bound(x: torch.Tensor, dim: int | tuple[int, ...] | None = None, keepdim: bool = False,
              acc: torch.dtype = torch.float32) -> torch.Tensor:
    """B for sum(x, dim) accumulated in `acc`, per output element (float64)."""
    x = x.detach().double()
    if dim is None:
        n, sq = x.numel(), x.pow(2).sum()
        return C * EPS[acc] * math.sqrt(max(n, 1)) * sq.sqrt()
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    n = math.prod(x.shape[d] for d in dims) if x.dim() else 1
    sq = x.pow(2).sum(dim=dims, keepdim=keepdim)
    return C * EPS[acc] * math.sqrt(max(n, 1)) * sq.sqrt()


def mean_bound(x: torch.Tensor, dim: int | tuple[int, ...] | None = None, keepdim: bool = False,
               acc: torch.dtype = torch.float32) -> torch.Tensor:
    """B for mean(x, dim): the sum's bound over n, plus the rounding of the division."""
    dims = None if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    n = x.numel() if dims is None else math.prod(x.shape[d] for d in dims)
    return sum_bound(x, dim, keepdim, acc) / max(n, 1)


BOUND_TEXT = ("B = 2·ε·√n·‖x‖₂ over the n terms reduced into each output element, with ε = 2⁻²³ for fp32 "
              "accumulation (2⁻⁵² for float64): any summation order in the accumulation precision stays "
              "well inside it")
