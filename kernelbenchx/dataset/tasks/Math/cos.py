"""Math/cos: elementwise cosine."""

import math

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset


def reference(input: torch.Tensor) -> torch.Tensor:
    return torch.cos(input)


def fixed_cases(gen):
    inf, nan, pi = float("inf"), float("nan"), math.pi
    yield "zeros", Call(torch.zeros(9))
    yield "empty", Call(torch.zeros(0))
    yield "unit_dims", Call(sample((1, 129, 1), gen) * 3)
    yield "special", Call(torch.tensor([-0.0, pi / 2, -pi / 2, pi, -pi, 2 * pi, 3 * pi / 2, 1e-30, 1e-4]))
    yield "ramp", Call(torch.linspace(-20.0, 20.0, 4001))
    yield "large", Call(torch.tensor([100.0, -1000.0, 1234.5, 4096.25, -8000.0, 355.0]))
    yield "nonfinite", Call(torch.tensor([inf, -inf, nan, 1.0]))
    yield "matrix", Call(sample((33, 65), gen))


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode))
    yield "matrix", Call(sample((129, 257), gen, mode) * 4)
    yield "batch", Call(sample((4, 31, 127), gen, mode))


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen))
    yield "n2^24", Call(sample((1 << 24,), gen))
    yield "n2^27", Call(sample((1 << 27,), gen))


TASK = Task(
    id="Math/cos",
    entry="cos",
    signature="cos(input: Tensor) -> Tensor",
    description="Returns the cosine of every element (radians) as a new float32 tensor of the input's shape. "
                "±inf and NaN give NaN. Arguments up to |x| ≈ 1e4 are tested and must meet the same tolerance "
                "there, so the argument reduction modulo 2π must be accurate, not just the core "
                "approximation on [−π, π]. (torch's `out=` argument is not part of the task.)",
    math=r"\text{out}_i = \cos(\text{input}_i)",
    difficulty=1,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape; output float32, same shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5)),
    flops=elementwise_flops(10),
    deviations=(
        Deviation(Kind.COVERAGE, "small fixed vectors and random N(0, 1) inputs",
                  "adds ±inf, NaN, multiples of π/2 and arguments up to |x| ≈ 8000 (accurate range reduction), empty and size-1 dimensions; random inputs of 65 537, 129×257 (×4) and 4×31×127 elements",
                  "special values and odd shapes under the same semantics"),
        Deviation(Kind.COVERAGE, "an `out=` argument (never passed by the tests)", "no `out=` argument",
                  "the output is returned as a new tensor; the values computed are the same"),
        sweep_subset(),
    ),
)
