"""Fusion/fused_gelu_std: GELU then the standard deviation over some dimensions (or all)."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, input_flops, sample


def reference(input: torch.Tensor, dim=None, keepdim: bool = False, correction: int = 1,
              approximate: str = "none") -> torch.Tensor:
    return torch.std(F.gelu(input, approximate=approximate), dim=dim, keepdim=keepdim, correction=correction)


def fixed_cases(gen):
    yield "example_rows_keepdim", Call(torch.tensor([[0.2035, 1.2959, 1.8101, -0.4644],
                                                     [1.5027, -0.3270, 0.5905, 0.6538]]), 1, True)
    yield "all", Call(torch.linspace(-4.0, 4.0, 101))
    yield "cols_tanh", Call(sample((65, 9), gen), 0, approximate="tanh")
    yield "population_tuple_dim", Call(sample((4, 6, 10), gen), (0, -1), correction=0)
    yield "correction_2", Call(sample((5, 12), gen), 1, False, 2)
    yield "constant_rows", Call(torch.full((3, 8), 1.5), 1)
    yield "too_few_samples", Call(sample((4, 1), gen), 1)  # one sample, correction 1: 0/0 = NaN
    yield "all_keepdim", Call(sample((7, 9), gen), None, True)


def random_cases(gen, mode):
    yield "rows", Call(sample((257, 1025), gen, mode), 1)
    yield "cols_keepdim_tanh", Call(sample((1025, 129), gen, mode), 0, True, approximate="tanh")
    yield "flat_population", Call(sample((100_003,), gen, mode), correction=0)
    yield "tuple_dim", Call(sample((8, 63, 65), gen, mode), (0, 2))


def perf_cases(gen):
    yield "rows_1024x4096", Call(sample((1024, 4096), gen), 1)
    yield "rows_16384x8192", Call(sample((16384, 8192), gen), 1)
    yield "all_n2^27", Call(sample((1 << 27,), gen))


TASK = Task(
    id="Fusion/fused_gelu_std",
    entry="fused_gelu_std",
    signature="fused_gelu_std(input: Tensor, dim: int | tuple[int, ...] | None = None, keepdim: bool = False, "
              "correction: int = 1, approximate: str = 'none') -> Tensor",
    description="Applies GELU elementwise (x·Φ(x) with Φ the standard normal CDF when approximate='none', or "
                "0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))) when approximate='tanh'), then returns the standard "
                "deviation over dimension(s) `dim` (an int or tuple of ints, negative allowed), or over all "
                "elements when dim is None (a 0-dim tensor): sqrt(Σ(g − mean(g))² / max(0, N − correction)) with "
                "N the number of reduced elements. keepdim=True keeps reduced dimensions with size 1. When "
                "N ≤ correction the divisor is 0, giving +inf (or NaN when the sum of squares is 0), as in torch. "
                "Output float32. The upstream `out=` argument is dropped.",
    math=r"\sigma = \sqrt{\frac{1}{\max(0, N - \delta N)}\sum_i (g_i - \bar g)^2},\quad g = \mathrm{GELU}(x)",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32; output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="Summation order is free (two-pass or Welford); avoid the cancellation-prone "
                            "E[g²] − E[g]² form."),
    flops=input_flops(12),
)
