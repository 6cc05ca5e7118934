"""Fusion/fused_exp_mean: mean of exp(input) over some dimensions (or all)."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, input_flops, sample


def reference(input: torch.Tensor, dim=None, keepdim: bool = False, dtype=None) -> torch.Tensor:
    return torch.mean(torch.exp(input), dim=dim, keepdim=keepdim, dtype=dtype)


def fixed_cases(gen):
    yield "all", Call(torch.linspace(-5.0, 5.0, 101))
    yield "rows_keepdim", Call(sample((7, 33), gen), 1, True)
    yield "cols", Call(sample((65, 9), gen), 0)
    yield "tuple_negative_dims", Call(sample((4, 6, 10), gen), (0, -1))
    yield "edges", Call(torch.tensor([[0.0, 89.0, -1.0], [-200.0, -1e4, 0.0], [float("-inf"), 1.0, 2.0],
                                      [float("nan"), 0.0, 0.0], [float("inf"), 0.0, -3.0]]), 1)
    yield "float64_accumulate", Call(sample((16, 1000), gen), 1, dtype=torch.float64)


def random_cases(gen, mode):
    yield "rows", Call(sample((257, 1025), gen, mode), 1)
    yield "cols_keepdim", Call(sample((1025, 129), gen, mode), 0, True)
    yield "flat", Call(sample((100_003,), gen, mode))
    yield "tuple_dim", Call(sample((8, 63, 65), gen, mode), (0, 2))


def perf_cases(gen):
    yield "rows_1024x4096", Call(sample((1024, 4096), gen), 1)
    yield "rows_16384x8192", Call(sample((16384, 8192), gen), 1)
    yield "all_n2^28", Call(sample((1 << 28,), gen))


TASK = Task(
    id="Fusion/fused_exp_mean",
    entry="fused_exp_mean",
    signature="fused_exp_mean(input: Tensor, dim: int | tuple[int, ...] | None = None, keepdim: bool = False, "
              "dtype: torch.dtype | None = None) -> Tensor",
    description="Returns the mean of exp(input) over dimension(s) `dim` (an int or a tuple of ints, negative "
                "values allowed), or over all elements when dim is None (a 0-dim tensor). keepdim=True keeps each "
                "reduced dimension with size 1. exp is computed in float32; when dtype is given, exp(input) is "
                "cast to dtype before the mean and the result has that dtype. IEEE rules apply: exp overflows to "
                "+inf for inputs above ~88.72 (so the mean is +inf), exp(-inf) = 0, NaN propagates. The upstream "
                "`out=` argument is dropped.",
    math=r"\mathrm{out} = \frac{1}{|D|}\sum_{i \in D} e^{x_i}",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32; output float32 (or `dtype` when given)",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="Summation order is free; the summands are positive, so rtol covers fp32 "
                            "reassociation."),
    flops=input_flops(2),
)
