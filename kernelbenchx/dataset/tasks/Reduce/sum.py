"""Reduce/sum: sum over one dimension (or all), optionally keeping it, optionally in another dtype."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, input_flops, sample


def reference(input: torch.Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> torch.Tensor:
    if dim is None:
        return torch.sum(input, dtype=dtype)
    return torch.sum(input, dim=dim, keepdim=keepdim, dtype=dtype)


def fixed_cases(gen):
    yield "all", Call(torch.arange(-50, 51, dtype=torch.float32))
    yield "rows_keepdim", Call(sample((7, 33), gen), 1, True)
    yield "cols", Call(sample((65, 9), gen), 0)
    yield "negative_dim", Call(sample((3, 5, 17), gen), -1)
    yield "float64_accumulate", Call(sample((16, 1000), gen), 1, dtype=torch.float64)


def random_cases(gen, mode):
    yield "rows", Call(sample((257, 1025), gen, mode), 1)
    yield "cols", Call(sample((1025, 129), gen, mode), 0)
    yield "flat", Call(sample((100_003,), gen, mode))


def perf_cases(gen):
    yield "rows_1024x4096", Call(sample((1024, 4096), gen), 1)
    yield "rows_16384x8192", Call(sample((16384, 8192), gen), 1)
    yield "cols_8192x8192", Call(sample((8192, 8192), gen), 0)


TASK = Task(
    id="Reduce/sum",
    entry="sum",
    signature="sum(input: Tensor, dim: int | None = None, keepdim: bool = False, *, dtype: torch.dtype | None = None) -> Tensor",
    description="Returns the sum of the input's elements over dimension `dim` (all elements when dim is None), "
                "keeping the reduced dimension with size 1 when keepdim is True. When dtype is given, the input is "
                "cast to it before summing and the result has that dtype.",
    math=r"y_{j} = \sum_i x_{ij}",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32; output float32 (or `dtype` when given)",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-4, scale="abs"), deterministic=False,
                      notes="Summation order is free (atomics allowed); the tolerance allows for fp32 "
                            "reassociation."),
    flops=input_flops(1),
)
