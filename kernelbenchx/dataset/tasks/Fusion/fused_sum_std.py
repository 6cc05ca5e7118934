"""Fusion/fused_sum_std: standard deviation of all the partial sums of a tensor along given dimensions."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, input_flops, sample


def reference(input: torch.Tensor, dim=None, keepdim: bool = False, dtype=None, correction: int = 1) -> torch.Tensor:
    sums = torch.sum(input, dim=dim, keepdim=keepdim, dtype=dtype)
    return torch.std(sums, correction=correction, keepdim=keepdim)


def fixed_cases(gen):
    yield "vector_all", Call(torch.tensor([1.0, 2.0, 3.0, 4.0]))
    yield "all_correction0", Call(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), correction=0)
    yield "dim0", Call(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), 0)
    yield "dim1_keepdim", Call(torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), 1, True)
    yield "dim_tuple", Call(sample((5, 6, 7), gen), (0, 2))
    yield "negative_dim_correction2", Call(sample((9, 33), gen), -1, correction=2)
    yield "float64", Call(sample((17, 40), gen), 0, dtype=torch.float64)
    yield "dims_keepdim_3d", Call(sample((4, 3, 8), gen), (1,), True, None, 0)
    yield "equal_sums", Call(torch.ones(6, 10), 1)


def random_cases(gen, mode):
    yield "rows", Call(sample((128, 256), gen, mode), 1)
    yield "cols", Call(sample((128, 256), gen, mode), 0)
    yield "batch_tuple_keepdim", Call(sample((16, 33, 65), gen, mode), (0, 2), True, None, 0)


def perf_cases(gen):
    yield "rows_1024x1024", Call(sample((1024, 1024), gen), 1)
    yield "rows_4096x8192", Call(sample((4096, 8192), gen), 1)
    yield "cols_16384x8192", Call(sample((16384, 8192), gen), 0)


TASK = Task(
    id="Fusion/fused_sum_std",
    entry="fused_sum_std",
    signature="fused_sum_std(input: Tensor, dim: int | tuple[int, ...] | None = None, keepdim: bool = False, "
              "dtype: torch.dtype | None = None, correction: int = 1) -> Tensor",
    description="First sums the input over `dim` (an int, a tuple of ints, or None for all dimensions; negative "
                "dims count from the end) as torch.sum(input, dim, keepdim, dtype) (when dtype is given the "
                "input is cast to it first). Then returns the standard deviation of ALL the resulting sums, as "
                "torch.std(sums, correction=correction, keepdim=keepdim): sqrt(Σ (s − mean)² / max(0, M − "
                "correction)) over the M sums. The result is a single value: a 0-d tensor, or with keepdim=True "
                "a tensor with as many dimensions as the input, all of size 1. When M ≤ correction the division "
                "is by zero as in torch (e.g. dim=None gives M = 1, so NaN with correction=1, and 0 with "
                "correction=0). The output dtype is float32, or `dtype` when given. The upstream `out=` argument "
                "is dropped.",
    math=r"s = \sum_{\mathrm{dim}} x,\qquad "
         r"\sigma = \sqrt{\frac{1}{\max(0, M - \delta)}\sum_{i=1}^{M}(s_i - \bar{s})^2}",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32; output float32 (or `dtype` when given), a single value",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="Summation order is free; the tolerance allows for fp32 reassociation."),
    flops=input_flops(1),
)
