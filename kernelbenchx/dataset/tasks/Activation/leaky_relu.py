"""Activation/leaky_relu: max(0, x) + negative_slope · min(0, x), elementwise."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample, uniform
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset

SPECIALS = [float("nan"), float("inf"), -float("inf"), -0.0, 0.0, -1e-30, 1e-30, -3.5, 3.5, -1e4]


def reference(input: torch.Tensor, negative_slope: float = 0.01) -> torch.Tensor:
    return F.leaky_relu(input, negative_slope)


def fixed_cases(gen):
    yield "zeros", Call(torch.zeros(17))
    yield "empty", Call(torch.zeros(0))
    yield "unit_dims", Call(sample((1, 129, 1), gen), -2.0)
    yield "ramp", Call(torch.linspace(-4.0, 4.0, 1001))
    yield "specials", Call(torch.tensor(SPECIALS))
    yield "slope_0.2", Call(sample((9, 13), gen), 0.2)
    yield "slope_zero", Call(sample((7, 11), gen), negative_slope=0.0)
    yield "slope_above_one", Call(sample((5, 21), gen), negative_slope=1.5)
    yield "slope_negative", Call(sample((63,), gen), negative_slope=-0.3)


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode))
    yield "matrix_0.2", Call(sample((129, 257), gen, mode), 0.2)
    slope = round(float(uniform((), gen, -0.5, 2.0)), 3)
    yield "batch", Call(sample((4, 31, 127), gen, mode), negative_slope=slope)


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen))
    yield "n2^24", Call(sample((1 << 24,), gen))
    yield "n2^27", Call(sample((1 << 27,), gen), 0.2)


TASK = Task(
    id="Activation/leaky_relu",
    entry="leaky_relu",
    signature="leaky_relu(input: Tensor, negative_slope: float = 0.01) -> Tensor",
    description="Applies Leaky ReLU elementwise: x when x > 0, otherwise negative_slope · x. `negative_slope` is "
                "any float (0, negative and > 1 are allowed). NaN inputs stay NaN and ±inf map to ±inf·slope "
                "(-inf stays -inf for a positive slope). The input may have any shape; the output is a new tensor "
                "with the input's shape and dtype. (torch's `inplace` option is not part of this task: never "
                "modify the input.)",
    math=r"\mathrm{LeakyReLU}(x) = \max(0, x) + \text{negative\_slope}\cdot\min(0, x)",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape; output float32, same shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="NaN must propagate."),
    flops=elementwise_flops(2),
    deviations=(
        Deviation(Kind.COVERAGE, "`inplace=True` is tested (the input is overwritten and returned)",
                  "no `inplace` argument; the input must stay unchanged and the output is a new tensor",
                  "kbx checks that inputs are not modified; the values computed are the same"),
        Deviation(Kind.COVERAGE, "slopes 0.01 and 0.1; small fixed vectors and random 1024×1024 matrices",
                  "adds slopes 0, negative and above 1 (one drawn per run), NaN, ±inf, ±0, empty and size-1 "
                  "dimensions; random inputs of 65 537, 129×257 and 4×31×127 elements",
                  "the formula holds for any slope; special values and odd shapes under the same semantics"),
        sweep_subset(kbx="1-D inputs of 2^16, 2^24 (slope 0.01) and 2^27 elements (slope 0.2)"),
    ),
)
