"""Reference building blocks whose special values must not depend on the CPU that computes them.

torch's CPU kernels take vectorized (AVX2/AVX-512) or scalar paths by size and machine, and for a few
functions these paths disagree at ±inf (GELU(+inf) is +inf on one and NaN on another). Expected outputs are
part of the contract, so the references pin those values here; tests/test_cpu_paths.py recomputes every
task's fixed cases with vectorization off and requires the same expected outputs.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


def gelu(x: torch.Tensor, approximate: str = "none") -> torch.Tensor:
    """torch's GELU with the contract's values at ±inf: GELU(+inf) = +inf, GELU(-inf) = NaN (−inf·Φ(−inf) is
    the indeterminate −inf·0, which is what torch's scalar path computes), GELU(NaN) = NaN. Above 10 it is x
    itself (1 − Φ(10) ≈ 7.6e-24, far under any float's precision): torch's AVX-512 path overflowed to +inf on
    3e38, where its other paths give 3e38, and an expected inf must not depend on the machine."""
    y = F.gelu(x, approximate=approximate)
    if not x.is_floating_point():
        return y
    y = torch.where(x > 10, x, y)
    return torch.where(x == float("-inf"), torch.full_like(y, float("nan")), y)
