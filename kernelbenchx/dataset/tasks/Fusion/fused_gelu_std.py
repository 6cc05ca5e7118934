"""Fusion/fused_gelu_std: GELU then the standard deviation over some dimensions (or all)."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.refs import gelu
from kernelbenchx.dataset.task import Call, Task, input_flops, sample
from kernelbenchx.dataset.tasks.Fusion import _stat_bounds as sb


def reference(input: torch.Tensor, dim=None, keepdim: bool = False, correction: int = 1,
              approximate: str = "none") -> torch.Tensor:
    return torch.std(gelu(input, approximate=approximate), dim=dim, keepdim=keepdim, correction=correction)


def bind(input, dim=None, keepdim=False, correction=1, approximate="none"):
    return input, dim, keepdim, correction, approximate


def error_bound(call: Call) -> torch.Tensor:
    x, dim, keepdim, correction, approximate = bind(*call.args, **call.kwargs)
    g = gelu(x.double(), approximate=approximate)
    dg = sb.E32 * (sb.K_FN * g.abs() + x.double().abs())  # GELU in fp32: 1 + erf(x/√2) cancels for x ≪ 0
    return sb.std_bound(g, dg, dim, keepdim, correction)


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
    yield "offset_rows_cancellation", Call(sample((6, 500), gen) * 0.01 + 300.0, 1)
    yield "empty_rows", Call(torch.zeros(3, 0), 1)
    # two long columns (N = 20000 ≥ 8 blocks of 2048, so a kernel may split each into chunks and merge partial
    # moments), read with stride 2 and of different spreads; column 0 drifts from 100 to 102, so partial means
    # differ and merging them held below float32 (float16 steps of 1/16 at 100) misplaces the variance
    drift = torch.linspace(100.0, 102.0, 20000) + 0.1 * sample((20000,), gen)
    yield "cols_split_offset", Call(torch.stack([drift, 100.0 + 0.3 * sample((20000,), gen)], dim=1), 0)


def random_cases(gen, mode):
    yield "rows", Call(sample((257, 1025), gen, mode), 1)
    yield "cols_keepdim_tanh", Call(sample((1025, 129), gen, mode), 0, True, approximate="tanh")
    yield "flat_population", Call(sample((100_003,), gen, mode), correction=0)
    yield "tuple_dim", Call(sample((8, 63, 65), gen, mode), (0, 2))
    yield "offset_rows_tanh", Call(sample((40, 3000), gen, mode) + 200.0, -1, approximate="tanh")


def perf_cases(gen):
    yield "all_n2^20", Call(sample((1 << 20,), gen))
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
                      tolerance=Tolerance(rtol=1e-5, atol=1.0, scale="bound"),
                      bound=sb.STD_TEXT,
                      notes="Summation order is free (two-pass, Welford or block-merged moments); the "
                            "cancellation-prone E[g²] − E[g]² form fails on rows with a large mean."),
    error_bound=error_bound,
    flops=input_flops(12),
    choices={"approximate": ("none", "tanh")},
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5", "an error bound propagated through the "
                  "two-pass standard deviation (accumulation, GELU and mean errors) with rtol 1e-5",
                  "a fixed atol does not scale with the reduction; the bound does and stays well below the "
                  "error of the one-pass E[g²] − E[g]² form, which rows with a large mean now expose"),
        Deviation(Kind.PERF, "16 sizes, standard deviation of 1-D tensors of 2^12 … 2^27 elements",
                  "full reductions of 2^20 and 2^27 elements, and row reductions of 16384×8192",
                  "two of upstream's sizes plus a row reduction, the other memory pattern a reduction needs"),
    ),
)
