"""Reduce/min: minimum values and their indices along one dimension; first occurrence wins."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, input_flops, sample

NAN, INF = float("nan"), float("inf")


def reference(input: torch.Tensor, dim: int, keepdim: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    values, indices = torch.min(input, dim, keepdim)
    return values, indices


def coarse(shape, gen, mode="standard"):
    """Values on a 0.5 grid, so equal minima (ties) are common."""
    return (sample(shape, gen, mode) * 2).round() / 2


def fixed_cases(gen):
    yield "rows", Call(torch.tensor([[0.5, -1.0, 3.0], [2.0, 4.0, -7.0]]), 1)
    yield "ties_rows", Call(torch.tensor([[1.0, -3.0, -3.0, 0.0], [2.0, 2.0, 2.0, 2.0], [-1.0, 5.0, -1.0, -1.0]]), 1)
    yield "ties_cols_keepdim", Call(coarse((41, 6), gen), 0, True)
    yield "nan_is_min", Call(torch.tensor([[1.0, NAN, -5.0, NAN], [-INF, 2.0, -INF, 0.0], [INF, INF, INF, INF]]), 1)
    yield "middle_dim", Call(coarse((3, 17, 5), gen), -2)
    yield "vector", Call(coarse((77,), gen), 0)
    yield "size_one_dim", Call(sample((4, 1, 3), gen), 1, keepdim=True)


def random_cases(gen, mode):
    yield "rows", Call(sample((257, 1025), gen, mode), 1)
    yield "cols_ties", Call(coarse((1025, 129), gen, mode), 0)
    yield "middle_keepdim", Call(coarse((6, 301, 37), gen, mode), 1, True)


def perf_cases(gen):
    yield "rows_64x1024", Call(sample((64, 1024), gen), 1)
    yield "rows_262144x1024", Call(sample((262144, 1024), gen), 1)
    yield "cols_8192x8192", Call(sample((8192, 8192), gen), 0)


TASK = Task(
    id="Reduce/min",
    entry="min",
    signature="min(input: Tensor, dim: int, keepdim: bool = False) -> tuple[Tensor, Tensor]",
    description="Reduces `input` along dimension `dim` (negative dims count from the end) and returns a tuple "
                "(values, indices): the minimum of each reduced slice (input dtype) and its int64 index along "
                "`dim`. Both have the input's shape without `dim`, or with it as size 1 when keepdim is True. Ties: "
                "when the minimum occurs several times, the smallest index (first occurrence) is returned. NaN "
                "propagates: a slice containing NaN has value NaN and the index of its first NaN. ±inf are ordinary "
                "values. (Only this reducing form of torch.min is part of the task; not the elementwise "
                "min(input, other) nor the full reduction min(input).)",
    math=r"v = \min_i x_i,\quad \mathrm{idx} = \min\{\, i : x_i = v \,\}",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32; outputs (float32 values, int64 indices)",
                      tolerance=Tolerance(rtol=0.0, atol=0.0),
                      accumulation="exact (comparisons only)",
                      notes="Values are selected, not computed, so they must match exactly; indices too, including "
                            "the first-occurrence rule for ties and NaN."),
    flops=input_flops(1),
)
