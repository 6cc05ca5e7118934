"""Reduce/mean: arithmetic mean over one or several dimensions (or all), optionally in another dtype."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, input_flops, sample


def reference(input: torch.Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> torch.Tensor:
    return torch.mean(input, dim=dim, keepdim=keepdim, dtype=dtype)


def fixed_cases(gen):
    yield "all", Call(torch.arange(-50, 53, dtype=torch.float32))
    yield "rows_keepdim", Call(sample((7, 33), gen), 1, True)
    yield "all_keepdim", Call(sample((6, 11), gen), None, True)
    yield "cols", Call(sample((65, 9), gen), 0)
    yield "negative_dim", Call(sample((3, 5, 17), gen), -1)
    yield "two_dims", Call(sample((4, 6, 10, 3), gen), (1, 3))
    yield "two_dims_keepdim", Call(sample((5, 8, 9), gen), [0, -1], True)
    yield "int32_to_float32", Call(torch.arange(-30, 60, dtype=torch.int32).reshape(9, 10), 1, dtype=torch.float32)
    yield "float64_accumulate", Call(sample((16, 1000), gen), 1, dtype=torch.float64)
    yield "offset", Call(sample((8, 513), gen) + 1000.0, 1)


def random_cases(gen, mode):
    yield "rows", Call(sample((257, 1025), gen, mode), 1)
    yield "cols", Call(sample((1025, 129), gen, mode), 0)
    yield "flat", Call(sample((100_003,), gen, mode))
    yield "spatial", Call(sample((8, 16, 33, 35), gen, mode), (2, 3), True)


def perf_cases(gen):
    yield "rows_1024x4096", Call(sample((1024, 4096), gen), 1)
    yield "flat_2^27", Call(sample((1 << 27,), gen))
    yield "rows_16384x8192", Call(sample((16384, 8192), gen), 1)
    yield "spatial_128x256x64x64", Call(sample((128, 256, 64, 64), gen), (2, 3))


TASK = Task(
    id="Reduce/mean",
    entry="mean",
    signature="mean(input: Tensor, dim: int | tuple[int, ...] | list[int] | None = None, keepdim: bool = False, "
              "*, dtype: torch.dtype | None = None) -> Tensor",
    description="Returns the mean of `input` over the dimension(s) `dim`: a single int, or a tuple/list of ints "
                "(all reduced together; negative dims count from the end), or None for the mean of all elements. "
                "With keepdim=True the reduced dimensions stay with size 1 (for dim=None: every dimension), "
                "otherwise they are removed (dim=None then gives a 0-d tensor). When `dtype` is given the input is first cast to it and the result "
                "has that dtype (this is how an integer input such as int32 is averaged: dtype=torch.float32); "
                "otherwise the result has the input's (floating) dtype.",
    math=r"y = \frac{1}{n}\sum_{i=1}^{n} x_i",
    difficulty=1,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 (or int32 with dtype=float32); output float32, or `dtype` when given "
                             "(float64 accumulates in float64)",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="Summation order is free; the tolerance allows for fp32 reassociation."),
    flops=input_flops(1),
)
