"""Tolerances of the linear-algebra checks (tol = factor·64·√n·ε, from the dtype and the matrix size n) and
the call's matrix size and arguments they are computed from."""

from __future__ import annotations

import math
from typing import Any

import torch

from kernelbenchx.dataset.contract import Tolerance
from kernelbenchx.dataset.task import Call

TOL_SCALE = 64.0


# ---------------------------------------------------------------------------------------------
# Tolerances.


def unit_roundoff(dtype: torch.dtype) -> float:
    return torch.finfo(dtype.to_real() if dtype.is_complex else dtype).eps


def tolerance(dtype: torch.dtype, n: int, factor: float = 1.0) -> float:
    """The relative tolerance for an n-sized problem in `dtype`: factor·64·√n·ε."""
    return factor * TOL_SCALE * math.sqrt(max(n, 1)) * unit_roundoff(dtype)


def tolerance_text(factor: float = 1.0) -> str:
    return (f"tol = {factor * TOL_SCALE:g}·√n·ε (n: the largest matrix dimension; ε: the unit roundoff, 2.22e-16 "
            "for float64, 1.19e-7 for float32)")


def shown_tolerance(dtype: torch.dtype, factor: float = 1.0, rms: bool = True) -> Tolerance:
    """The contract's elementwise line: tol at n = 256 (the notes state how it scales with n)."""
    t = float(f"{tolerance(dtype, 256, factor):.2g}")
    return Tolerance(rtol=t, atol=t, scale="rms") if rms else Tolerance(rtol=t, atol=0.0)


def matrix_size(call: Call) -> int:
    """The largest matrix dimension among the call's tensors (vectors count their length)."""
    sizes = [max(t.shape[-2:]) for t in call.tensors() if t.dim() >= 1 and t.numel()]
    return max(sizes, default=1)


def arg(call: Call, index: int, name: str, default: Any) -> Any:
    """A parameter that may arrive positionally or by keyword."""
    if name in call.kwargs:
        return call.kwargs[name]
    return call.args[index] if len(call.args) > index else default
