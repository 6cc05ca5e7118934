"""Reduce/std: standard deviation over one or several dimensions (or all), with a degrees-of-freedom correction."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, input_flops, randint, sample
from kernelbenchx.dataset import bounds as _bounds


def reference(input: torch.Tensor, dim=None, *, correction: int = 1, keepdim: bool = False) -> torch.Tensor:
    return torch.std(input, dim=dim, correction=correction, keepdim=keepdim)


def bind(input, dim=None, *, correction=1, keepdim=False):
    return input, dim, correction, keepdim


def error_bound(call: Call) -> torch.Tensor:
    x, dim, correction, keepdim = bind(*call.args, **call.kwargs)
    return _bounds.std_bound(x, dim, correction, keepdim)


def fixed_cases(gen):
    yield "all", Call(torch.arange(-50, 53, dtype=torch.float32))
    yield "rows_keepdim", Call(sample((7, 33), gen), 1, keepdim=True)
    yield "all_keepdim", Call(sample((6, 11), gen), keepdim=True)
    yield "cols_population", Call(sample((65, 9), gen), 0, correction=0)
    yield "two_dims", Call(sample((4, 6, 10, 3), gen), (1, 3))
    yield "list_dims_keepdim", Call(sample((5, 8, 9), gen), [0, -1], keepdim=True)
    yield "constant_rows", Call(torch.full((3, 20), 2.5), -1)
    yield "large_mean", Call(sample((8, 4097), gen) + 100.0, 1)
    yield "single_element_nan", Call(sample((4, 1), gen), 1)
    yield "dof_zero_inf_nan", Call(torch.tensor([[1.0, 2.0], [3.0, 3.0]]), 1, correction=2)
    yield "correction_3", Call(sample((6, 11), gen), 1, correction=3)
    yield "empty_dim_nan", Call(torch.empty(3, 0), 1)
    # the layout cases derive from two_dims, so the all-elements path needs a non-dense view of its own (a
    # transposed view would not do: the std of all elements is the same in any order)
    yield "all_sliced_view", Call(sample((12, 22), gen)[:, ::2])


def random_cases(gen, mode):
    keep = bool(torch.randint(2, (), generator=gen))
    yield "rows", Call(sample((257, 1025), gen, mode), 1, keepdim=keep)
    yield "cols", Call(sample((1025, 129), gen, mode), 0, correction=int(randint((), gen, 0, 3)))
    yield "flat_offset", Call(sample((100_003,), gen, mode) * 3 + 5)
    yield "spatial_population", Call(sample((8, 16, 33, 35), gen, mode), (2, 3), correction=0, keepdim=not keep)
    yield "large_mean_rows", Call(sample((64, 2049), gen, mode) + 300.0, -1)


def perf_cases(gen):
    yield "flat_2^20", Call(sample((1 << 20,), gen))
    yield "flat_2^24", Call(sample((1 << 24,), gen))
    yield "flat_2^27", Call(sample((1 << 27,), gen))


TASK = Task(
    id="Reduce/std",
    entry="std",
    signature="std(input: Tensor, dim: int | tuple[int, ...] | list[int] | None = None, *, correction: int = 1, "
              "keepdim: bool = False) -> Tensor",
    description="Returns the standard deviation of `input` over the dimension(s) `dim`: a single int, a tuple/list "
                "of ints reduced together (negative dims count from the end), or None for all elements. For the N "
                "elements of each reduced slice with mean x̄, std = sqrt(Σ(x − x̄)² / max(0, N − correction)); "
                "correction=1 (default) is Bessel's correction, 0 the population std. When N − correction ≤ 0 the "
                "division is by zero, giving +inf (or NaN when the sum of squares is 0, e.g. a single element "
                "with correction 1, or an empty dimension). With keepdim=True the reduced dimensions stay with size 1 (also when dim is "
                "None), otherwise they are removed; dim=None without keepdim gives a 0-d tensor. Output dtype = "
                "input dtype. (torch's `out=` argument is not part of this task.)",
    math=r"\sigma = \sqrt{\frac{1}{\max(0,\,N-\delta N)}\sum_{i=0}^{N-1}(x_i-\bar{x})^2}",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32; output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1.0, scale="bound"),
                      bound=_bounds.STD_TEXT,
                      notes="Inputs may have a mean much larger than their spread: use a numerically stable "
                            "method (two passes, or Welford / Chan merging of partial statistics), not "
                            "E[x²] − E[x]². Summation order is otherwise free."),
    error_bound=error_bound,
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "an accumulation bound on the mean and the sum of squared deviations (see the contract) plus "
                  "rtol 1e-5",
                  "a fixed atol does not grow with the reduction length and the data's magnitude as fp32 rounding "
                  "does; the bound admits two-pass, Welford and Chan-merged statistics in any order and rejects "
                  "E[x²] − E[x]² and fp16/bf16 accumulation (tests/test_tolerances.py)"),
        Deviation(Kind.COVERAGE, "float32 N(0, 1) inputs, dim 1 or all elements, correction 1",
                  "adds tuple dims, corrections 0, 2 and 3, data with a large mean, empty and size-1 dimensions",
                  "the signature promises them; a large mean catches the unstable one-pass formula"),
        Deviation(Kind.PERF, "16 sizes, 1-D 2^12 … 2^27 elements", "1-D 2^20, 2^24 and 2^27 elements",
                  "a subset spanning upstream's range; below 2^20 elements the time is launch overhead"),
    ),
    flops=input_flops(3),
)
