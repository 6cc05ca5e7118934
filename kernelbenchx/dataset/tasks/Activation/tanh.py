"""Activation/tanh: the hyperbolic tangent, elementwise."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset

SPECIALS = [float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 1e-20, -1e-6, 9.0, -9.0, 50.0, -100.0, 1e4]


def reference(input: torch.Tensor) -> torch.Tensor:
    return torch.tanh(input)


def fixed_cases(gen):
    yield "zeros", Call(torch.zeros(17))
    yield "empty", Call(torch.zeros(2, 0, 3))
    yield "unit_dims", Call(sample((1, 129, 1), gen) * 5)
    yield "ramp", Call(torch.linspace(-10.0, 10.0, 1001))
    yield "specials", Call(torch.tensor(SPECIALS))
    yield "small", Call(sample((9, 13), gen) * 1e-4)
    yield "matrix", Call(sample((33, 65), gen) * 3)


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode))
    yield "matrix", Call(sample((129, 257), gen, mode) * 2)
    yield "batch", Call(sample((4, 31, 127), gen, mode))


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen))
    yield "n2^24", Call(sample((1 << 24,), gen))
    yield "n2^27", Call(sample((1 << 27,), gen))


TASK = Task(
    id="Activation/tanh",
    entry="tanh",
    signature="tanh(input: Tensor) -> Tensor",
    description="Computes the hyperbolic tangent of every element. ±inf give ±1, large |x| saturate to ±1 without "
                "producing NaN (no inf/inf), and NaN stays NaN. The input may have any shape; the output is a new "
                "tensor with the input's shape and dtype.",
    math=r"\tanh(x) = \frac{e^{x} - e^{-x}}{e^{x} + e^{-x}}",
    difficulty=1,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape; output float32, same shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5)),
    flops=elementwise_flops(5),
    deviations=(
        Deviation(Kind.COVERAGE, "an `out=` argument (never passed by the tests)", "no `out=` argument",
                  "the output is returned as a new tensor; the values computed are the same"),
        Deviation(Kind.COVERAGE, "small fixed vectors and random matrices of N(0, 1) values",
                  "adds NaN, ±inf, large |x| where exp overflows, empty and size-1 dimensions; random inputs of "
                  "65 537, 129×257 and 4×31×127 elements", "special values and odd shapes under the same semantics"),
        sweep_subset(),
    ),
)
