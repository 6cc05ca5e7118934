"""Reduce/argmax: index of the maximum along one dimension (or of the flattened input); first occurrence wins."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, input_flops, sample

NAN, INF = float("nan"), float("inf")


def reference(input: torch.Tensor, dim: int | None = None, keepdim: bool = False) -> torch.Tensor:
    return torch.argmax(input, dim=dim, keepdim=keepdim)


def coarse(shape, gen, mode="standard", dtype=torch.float32):
    """Values on a 0.5 grid, so equal maxima (ties) are common."""
    return ((sample(shape, gen, mode) * 2).round() / 2).to(dtype)


def flip(gen) -> bool:
    return bool(torch.randint(2, (), generator=gen))


def fixed_cases(gen):
    yield "flat", Call(torch.tensor([0.5, -1.0, 3.0, 2.0, 3.0, -7.0]))
    yield "ties_rows", Call(torch.tensor([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 2.0, 2.0], [-1.0, -5.0, -1.0, -1.0]]), 1)
    yield "ties_cols_keepdim", Call(coarse((41, 6), gen), 0, True)
    yield "nan_is_max", Call(torch.tensor([[1.0, NAN, 5.0, NAN], [INF, 2.0, INF, 0.0], [-INF, -INF, -INF, -INF]]),
                             dim=1)
    yield "flat_nan", Call(torch.tensor([[INF, 1.0], [NAN, 2.0], [NAN, 3.0]]))
    yield "middle_dim", Call(coarse((3, 17, 5), gen), -2)
    yield "flat_keepdim", Call(coarse((4, 9), gen), None, True)
    yield "single", Call(torch.tensor([-2.5]), 0)
    yield "size_one_dim", Call(sample((4, 1, 3), gen), 1, True)
    yield "float16_rows", Call(coarse((9, 33), gen, dtype=torch.float16), 1)
    yield "float16_nan_inf", Call(torch.tensor([[1.0, NAN, 65504.0], [-INF, 65504.0, INF]], dtype=torch.float16), 1)
    # rows longer than one 4096-wide tile whose maximum recurs in every tile: the first occurrence must win even
    # where a kernel keeps a running max per lane across tiles
    yield "ties_across_tiles", Call(torch.randint(0, 3, (3, 9000), generator=gen).float(), 1)


def random_cases(gen, mode):
    yield "rows", Call(sample((257, 1025), gen, mode), 1, flip(gen))
    yield "cols_ties", Call(coarse((1025, 129), gen, mode), 0)
    yield "flat", Call(sample((100_003,), gen, mode), None, flip(gen))
    yield "middle_keepdim", Call(coarse((6, 301, 37), gen, mode), 1, True)
    yield "float16_flat", Call(sample((65_537,), gen, mode, dtype=torch.float16))
    yield "float16_cols_ties", Call(coarse((513, 67), gen, mode, dtype=torch.float16), 0, flip(gen))
    # float32 values 0.01 apart around 1000 (one float16 step there is 0.5), in reductions long enough to be split
    # over several programs: partial maxima kept or merged in float16 tie and pick the wrong index
    yield "split_rows_fp32_close", Call(1000.0 + 0.01 * sample((2, 70_000), gen, mode), -1)
    yield "split_cols_fp32_close", Call(1000.0 + 0.01 * sample((70_000, 3), gen, mode), 0)


def perf_cases(gen):
    # upstream times argmax(x, dim=0) on float16 1-D inputs of 2^12 … 2^29 elements
    for k in (20, 24, 27, 29):
        yield f"flat_fp16_2^{k}", Call(sample((1 << k,), gen, dtype=torch.float16), 0)


TASK = Task(
    id="Reduce/argmax",
    entry="argmax",
    signature="argmax(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor",
    description="Returns the int64 indices of the maximum values of `input` along dimension `dim` (negative dims "
                "count from the end). When dim is None the index into the flattened (row-major) input is returned "
                "as a 0-d tensor, or, with keepdim=True, as a tensor of the input's rank with every dimension of "
                "size 1. With a dim, the result has the input's shape without `dim` (or with it as size 1 when "
                "keepdim is True). Ties: when the maximum occurs several times, the smallest index (first "
                "occurrence) is returned. NaN counts as larger than every number, so a reduction containing NaN "
                "returns the index of its first NaN. +inf and -inf are ordinary values (an all -inf row gives 0).",
    math=r"\mathrm{argmax}_i\, x_i = \min\{\, i : x_i = \max_j x_j \,\}",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 or float16; output int64",
                      tolerance=Tolerance(rtol=0.0, atol=0.0),
                      accumulation="exact (comparisons only)",
                      notes="Indices are compared exactly, including the first-occurrence rule for ties and NaN."),
    deviations=(
        Deviation(Kind.COVERAGE, "float32 inputs only in the correctness tests", "float16 inputs too (stage 1 "
                  "and 2), plus ties, NaN, ±inf and size-1 dimensions",
                  "upstream times float16 inputs, so a kernel must be correct on them; the first-occurrence rule "
                  "for ties and NaN is torch's and is what a wrong reduction order breaks"),
        Deviation(Kind.PERF, "18 float16 1-D sizes, 2^12 … 2^29 elements", "float16 1-D 2^20, 2^24, 2^27 and "
                  "2^29 elements", "a subset spanning upstream's range; below 2^20 elements the time is launch "
                  "overhead"),
    ),
    flops=input_flops(1),
)
