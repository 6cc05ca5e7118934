"""Reduce/min: minimum values and their indices along one dimension; first occurrence wins."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
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
    keep = bool(torch.randint(2, (), generator=gen))
    yield "rows", Call(sample((257, 1025), gen, mode), 1, keep)
    yield "cols_ties", Call(coarse((1025, 129), gen, mode), 0, not keep)
    yield "middle_keepdim", Call(coarse((6, 301, 37), gen, mode), 1, True)
    yield "vector", Call(sample((100_003,), gen, mode), -1)


def perf_cases(gen):
    # upstream's rows: (64 … 524288) × 1024, reduced over dim 1
    yield "rows_64x1024", Call(sample((64, 1024), gen), 1)
    yield "rows_16384x1024", Call(sample((16384, 1024), gen), 1)
    yield "rows_131072x1024", Call(sample((131072, 1024), gen), 1)
    yield "rows_524288x1024", Call(sample((524288, 1024), gen), 1)


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
    deviations=(
        Deviation(Kind.COVERAGE, "rows of N(0, 1) values reduced over dim 1",
                  "adds ties, NaN, ±inf, other and negative dims, keepdim, vectors and size-1 dimensions",
                  "the same torch.min semantics; the first-occurrence rule is what a wrong reduction order breaks"),
        Deviation(Kind.PERF, "14 sizes (64 … 524288) × 1024 over dim 1", "64, 16384, 131072 and 524288 rows "
                  "of 1024", "a subset spanning upstream's range"),
    ),
    flops=input_flops(1),
)
