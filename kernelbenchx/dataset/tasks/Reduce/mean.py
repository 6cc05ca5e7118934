"""Reduce/mean: arithmetic mean over one or several dimensions (or all), optionally in another dtype."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, input_flops, randint, sample
from kernelbenchx.dataset import bounds as _bounds


def reference(input: torch.Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> torch.Tensor:
    return torch.mean(input, dim=dim, keepdim=keepdim, dtype=dtype)


def bind(input, dim=None, keepdim=False, *, dtype=None):
    return input, dim, keepdim, dtype


def error_bound(call: Call) -> torch.Tensor:
    x, dim, keepdim, dtype = bind(*call.args, **call.kwargs)
    x = x.to(dtype or x.dtype)  # the cast happens before the sum (int32 values beyond 2^24 round here)
    return _bounds.mean_bound(x, dim, keepdim, acc=dtype if dtype == torch.float64 else torch.float32)


def flip(gen) -> bool:
    return bool(torch.randint(2, (), generator=gen))


def cancelling(shape, gen, mode="standard"):
    """Pairs of ±1e8 next to N(0, 1) values: an fp32 accumulation loses the small values, float64 keeps them."""
    x = sample(shape, gen, mode)
    big = torch.where(torch.arange(shape[-1]) % 2 == 0, 1e8, -1e8)
    return torch.where(torch.arange(shape[-1]) % 4 < 2, x + big, x)


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
    yield "float64_cancellation", Call(cancelling((4, 1000), gen), 1, dtype=torch.float64)
    yield "offset", Call(sample((8, 513), gen) + 1000.0, 1)
    yield "empty_dim_nan", Call(torch.empty(3, 0), 1)
    yield "size_one_dim", Call(sample((4, 1, 3), gen), 1, True)


def random_cases(gen, mode):
    yield "rows", Call(sample((257, 1025), gen, mode), 1, flip(gen))
    yield "cols", Call(sample((1025, 129), gen, mode), 0)
    yield "flat", Call(sample((100_003,), gen, mode) + 3.0)
    yield "spatial", Call(sample((8, 16, 33, 35), gen, mode), (2, 3), flip(gen))
    # int32 values up to 2^30: the cast to float32 rounds them; an int32 accumulator would overflow.
    big = randint((33, 1000), gen, -(1 << 30), 1 << 30, dtype=torch.int32)
    yield "int32_large", Call(big, 1, flip(gen), dtype=torch.float32)
    yield "float64_cancellation", Call(cancelling((64, 2001), gen, mode), -1, flip(gen), dtype=torch.float64)


def perf_cases(gen):
    # upstream times mean(x, dim=0) on 1-D inputs of 2^12 … 2^27 elements
    for k in (20, 24, 27):
        yield f"flat_2^{k}", Call(sample((1 << k,), gen), 0)


TASK = Task(
    id="Reduce/mean",
    entry="mean",
    signature="mean(input: Tensor, dim: int | tuple[int, ...] | list[int] | None = None, keepdim: bool = False, "
              "*, dtype: torch.dtype | None = None) -> Tensor",
    description="Returns the mean of `input` over the dimension(s) `dim`: a single int, or a tuple/list of ints "
                "(all reduced together; negative dims count from the end), or None for the mean of all elements. "
                "With keepdim=True the reduced dimensions stay with size 1 (for dim=None: every dimension), "
                "otherwise they are removed (dim=None then gives a 0-d tensor). The mean over an empty dimension is "
                "NaN. When `dtype` is given the input is first cast to it and the result has that dtype (this is "
                "how an integer input such as int32 is averaged: dtype=torch.float32, values beyond 2^24 rounding "
                "in that cast; dtype=torch.float64 accumulates in float64); otherwise the result has the input's "
                "(floating) dtype.",
    math=r"y = \frac{1}{n}\sum_{i=1}^{n} x_i",
    difficulty=1,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 (or int32 with dtype=float32); output float32, or `dtype` when given "
                             "(float64 accumulates in float64)",
                      tolerance=Tolerance(rtol=1e-5, atol=1.0, scale="bound"),
                      bound="B = B_sum(x)/n + 2ε·|mean| over the n elements averaged into each output, where "
                            + _bounds.SUM_TEXT,
                      notes="Summation order is free (atomics, split reductions, trees)."),
    error_bound=error_bound,
    choices={"dtype": (None, torch.float32, torch.float64)},
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "an accumulation bound 2·ε·√n·(‖x‖₂ + |Σx|)/n per output plus rtol 1e-5",
                  "a fixed atol does not grow with the reduction length and the data's magnitude as fp32 rounding "
                  "does; the bound admits every summation order and rejects fp16/bf16 accumulation "
                  "(tests/test_tolerances.py)"),
        Deviation(Kind.COVERAGE, "float32 inputs, reductions over dim 1 or all elements",
                  "adds tuple dims, int32 inputs beyond 2^24 with dtype=float32, float64 accumulation with "
                  "cancellation, empty and size-1 dimensions",
                  "the signature promises them; each catches a plausible bug (int32 overflow, fp32 accumulation "
                  "for dtype=float64, division by zero)"),
        Deviation(Kind.PERF, "16 sizes, 1-D 2^12 … 2^27 elements", "1-D 2^20, 2^24 and 2^27 elements",
                  "a subset spanning upstream's range; below 2^20 elements the time is launch overhead"),
    ),
    flops=input_flops(1),
)
