"""Fusion/fused_softmax_log: softmax of the natural logarithm of a positive tensor."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample, uniform


def reference(input: torch.Tensor, dim: int = -1, dtype=None) -> torch.Tensor:
    if dtype is not None:
        input = input.to(dtype)  # cast before the logarithm
    # Computed in float64 and rounded: torch's CPU softmax sums long rows sequentially in fp32.
    return F.softmax(torch.log(input.to(torch.float64)), dim=dim).to(input.dtype)


def positive(shape, gen, mode="standard"):
    return sample(shape, gen, mode).abs() + 1e-3


def fixed_cases(gen):
    x = uniform((3, 4), gen, 0.0, 10.0)
    yield "example_dim1", Call(x, 1)
    yield "example_dim0", Call(x, 0)
    yield "zeros_in_rows", Call(torch.tensor([[0.0, 1.0, 3.0], [2.0, 0.0, 0.0], [1e-30, 1.0, 1e30]]))
    yield "domain_edges", Call(torch.tensor([[0.0, 0.0, 0.0], [-1.0, 1.0, 2.0], [float("inf"), 1.0, 1.0],
                                             [float("nan"), 1.0, 1.0]]))
    yield "vector", Call(positive((1001,), gen))
    yield "float64_3d_dim1", Call(positive((4, 33, 5), gen), 1, torch.float64)
    yield "negative_dim", Call(positive((3, 7, 9), gen), -2)


def random_cases(gen, mode):
    yield "rows", Call(positive((64, 1000), gen, mode), -1)
    yield "cols", Call(positive((1000, 33), gen, mode), 0)
    yield "batch_float64", Call(positive((4, 100, 257), gen, mode), 1, dtype=torch.float64)


def perf_cases(gen):
    for k in (10, 16, 19):
        yield f"1024x2^{k}", Call(uniform((1024, 1 << k), gen, 1e-6, 1.0))


def flops(call, out):
    return 5 * out.numel()


TASK = Task(
    id="Fusion/fused_softmax_log",
    entry="fused_softmax_log",
    signature="fused_softmax_log(input: Tensor, dim: int = -1, dtype: torch.dtype | None = None) -> Tensor",
    description="Computes softmax(log(input)) along dimension `dim` (negative dims count from the end): "
                "l = log(x) elementwise, then exp(l − max l) / Σ exp(l − max l) over `dim`. For positive inputs "
                "this equals x / Σ x. Edge behaviour follows that composition: x = 0 gives log = −inf and "
                "probability 0 (a slice that is all zeros gives NaN), a negative or NaN entry makes its whole "
                "slice NaN, and +inf makes its slice NaN. When dtype is given (torch.float64), the input is "
                "cast to it first (the logarithm and the softmax are computed in that dtype) and the output has "
                "that dtype; otherwise float32. Returns a new "
                "tensor of the input's shape.",
    math=r"\mathrm{out}_i = \frac{e^{\log x_i}}{\sum_j e^{\log x_j}} = \frac{x_i}{\sum_j x_j}",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 (positive values); output float32, or `dtype` when given",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-6),
                      notes="Summation order is free. atol is 1e-6 rather than 1e-5 because the outputs are "
                            "probabilities of order 1/n: an absolute 1e-5 would accept all-zero rows."),
    flops=flops,
    choices={"dtype": (None, torch.float64)},
    deviations=(
        Deviation(Kind.COVERAGE, "2×2 and 2×3 examples and 128×256 random rows of |N(0,1)| + 0.1 along dim 1",
                  "adds zeros (log = −inf, also in the first entries of a row), all-zero, negative, +inf and NaN "
                  "slices, 1e-30 … 1e30 in one row, dims 0, 1 and −2 of 3-D inputs, float64",
                  "the edge values follow from log then softmax, as upstream computes them; softmax along "
                  "a non-last dimension is a different memory-access pattern"),
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "rtol 1e-5, atol 1e-6",
                  "outputs are probabilities of order 1/n: at n ≥ 10^5 (perf rows of 2^16 and 2^19) an absolute "
                  "1e-5 accepts any output, even zeros; an fp32 softmax's error is relative to each probability "
                  "(the normalizing sum's relative error does not grow with n for blocked sums)"),
        Deviation(Kind.PERF, "16 sizes, 1024 × 2^4 … 2^19 of U(0, 1)",
                  "1024 × 2^10, 2^16 and 2^19 of U(1e-6, 1)", "a subset spanning small to largest"),
    ),
)
