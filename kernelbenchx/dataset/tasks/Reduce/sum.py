"""Reduce/sum: sum over one or several dimensions (or all), optionally keeping them, optionally in another dtype."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, input_flops, sample
from kernelbenchx.dataset import bounds as _bounds


def reference(input: torch.Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> torch.Tensor:
    if dim is None:
        total = torch.sum(input, dtype=dtype)
        return total.reshape([1] * input.dim()) if keepdim else total
    return torch.sum(input, dim=dim, keepdim=keepdim, dtype=dtype)


def error_bound(call: Call) -> torch.Tensor:
    x, dim, keepdim, dtype = bind(*call.args, **call.kwargs)
    return _bounds.sum_bound(x.to(dtype or x.dtype), dim, keepdim, acc=dtype or torch.float32)


def bind(input, dim=None, keepdim=False, *, dtype=None):
    return input, dim, keepdim, dtype


def fixed_cases(gen):
    yield "all", Call(torch.arange(-50, 51, dtype=torch.float32))
    yield "all_keepdim", Call(sample((6, 7), gen), None, True)
    yield "rows_keepdim", Call(sample((7, 33), gen), 1, True)
    yield "cols", Call(sample((65, 9), gen), 0)
    yield "negative_dim", Call(sample((3, 5, 17), gen), -1)
    yield "float64_accumulate", Call(sample((16, 1000), gen), 1, dtype=torch.float64)
    yield "two_dims", Call(sample((4, 6, 10, 3), gen), (1, 3))
    yield "list_dims_keepdim", Call(sample((5, 8, 9), gen), [0, -1], True)
    yield "empty_dim", Call(torch.empty(3, 0), 1)
    yield "size_one_dim", Call(sample((4, 1, 3), gen), -2, True)
    # ±1e8 (exact in float32) around N(0, 1) terms: float64 sums them exactly, a float32 accumulator loses them
    x = sample((4, 102), gen)
    x[:, 0] = 1e8 * torch.arange(1.0, 5.0)
    x[:, -1] = -x[:, 0]
    yield "float64_cancellation", Call(x, 1, dtype=torch.float64)


def random_cases(gen, mode):
    yield "rows", Call(sample((257, 1025), gen, mode), 1)
    yield "cols", Call(sample((1025, 129), gen, mode), 0)
    yield "flat", Call(sample((100_003,), gen, mode))
    yield "rows_keepdim", Call(sample((65, 300), gen, mode), -1, True)
    yield "cube_all_keepdim", Call(sample((9, 10, 11), gen, mode), None, True)
    yield "cols_keepdim_float64", Call(sample((513, 129), gen, mode), 0, True, dtype=torch.float64)
    yield "spatial", Call(sample((8, 16, 33, 35), gen, mode), (2, 3), bool(torch.randint(2, (), generator=gen)))
    yield "outer_dims", Call(sample((31, 7, 65), gen, mode), (0, 2))


def perf_cases(gen):
    yield "rows_1024x4096", Call(sample((1024, 4096), gen), 1)
    yield "rows_16384x8192", Call(sample((16384, 8192), gen), 1)
    yield "cols_8192x8192", Call(sample((8192, 8192), gen), 0)


TASK = Task(
    id="Reduce/sum",
    entry="sum",
    signature="sum(input: Tensor, dim: int | tuple[int, ...] | list[int] | None = None, keepdim: bool = False, *, "
              "dtype: torch.dtype | None = None) -> Tensor",
    description="Returns the sum of the input's elements over the dimension(s) `dim`: a single int, or a tuple/list "
                "of ints (all reduced together; negative dims count from the end), or None for all elements. With "
                "keepdim=True the reduced dimensions stay with size 1 (for dim=None: every dimension), otherwise they "
                "are removed (dim=None then gives a 0-d tensor). A sum over an empty dimension is 0. When dtype is "
                "given, the input is cast to it before summing and the result has that dtype.",
    math=r"y_{j} = \sum_i x_{ij}",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32; output float32 (or `dtype` when given)",
                      tolerance=Tolerance(rtol=1e-5, atol=1.0, scale="bound"),
                      bound="B = B_sum(x) over the n elements summed into each output, where " + _bounds.SUM_TEXT,
                      notes="Summation order is free (atomics, split reductions, trees)."),
    error_bound=error_bound,
    choices={"dtype": (None, torch.float64)},
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5", "an fp32 accumulation bound "
                  "2·2⁻²³·√n·(‖x‖₂ + |Σx|) per output plus rtol 1e-5",
                  "a fixed atol rejected honest atomic and split sums of 10⁵ terms by chance (1.6e-4 > 1e-4 "
                  "seen); the bound grows with the reduction as fp32 rounding does"),
        Deviation(Kind.COVERAGE, "no sum whose terms cancel",
                  "adds a dtype=float64 sum of terms that cancel (±1e8 around N(0, 1) terms)",
                  "the signature's dtype argument; only a cancelling sum separates float64 from float32 "
                  "accumulation within the tolerance's rtol"),
        Deviation(Kind.PERF, "16 sizes, 1-D 2^12 … 2^27 elements", "rows of 1024×4096 and 16384×8192, columns "
                  "of 8192×8192", "2-D reductions over rows and columns exercise both memory-access patterns; "
                  "sizes below 2^20 elements measure launch overhead, not the kernel"),
    ),
    flops=input_flops(1),
)
