"""Activation/sigmoid: the logistic function 1 / (1 + exp(-x)), elementwise."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset

SPECIALS = [float("nan"), float("inf"), -float("inf"), -0.0, 0.0, -20.0, 20.0, -88.0, -100.0, 100.0, -1e4, 1e4]


def reference(input: torch.Tensor) -> torch.Tensor:
    return torch.sigmoid(input)


def fixed_cases(gen):
    yield "zeros", Call(torch.zeros(17))
    yield "empty", Call(torch.zeros(2, 0, 3))
    yield "unit_dims", Call(sample((1, 129, 1), gen) * 5)
    yield "ramp", Call(torch.linspace(-30.0, 30.0, 1001))
    yield "specials", Call(torch.tensor(SPECIALS))
    yield "matrix", Call(sample((33, 65), gen))
    yield "wide", Call(sample((7, 19), gen) * 8)


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode))
    yield "matrix", Call(sample((129, 257), gen, mode))
    yield "batch_wide", Call(sample((4, 31, 127), gen, mode) * 4)


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen))
    yield "n2^24", Call(sample((1 << 24,), gen))
    yield "n2^27", Call(sample((1 << 27,), gen))


TASK = Task(
    id="Activation/sigmoid",
    entry="sigmoid",
    signature="sigmoid(input: Tensor) -> Tensor",
    description="Computes the logistic sigmoid 1 / (1 + exp(-x)) of every element. The result lies in [0, 1]: "
                "-inf (and very negative inputs) give 0, +inf gives 1, NaN stays NaN; there must be no NaN from "
                "inf/inf for large |x|. The input may have any shape; the output is a new tensor with the input's "
                "shape and dtype.",
    math=r"\sigma(x) = \frac{1}{1 + e^{-x}}",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape; output float32, same shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5)),
    flops=elementwise_flops(4),
    deviations=(
        Deviation(Kind.COVERAGE, "an `out=` argument (never passed by the tests)", "no `out=` argument",
                  "the output is returned as a new tensor; the values computed are the same"),
        Deviation(Kind.COVERAGE, "small fixed vectors and random matrices of N(0, 1) values",
                  "adds NaN, ±inf, large |x| where exp overflows, empty and size-1 dimensions; random inputs of "
                  "65 537, 129×257 and 4×31×127 elements", "special values and odd shapes under the same semantics"),
        sweep_subset(),
    ),
)
