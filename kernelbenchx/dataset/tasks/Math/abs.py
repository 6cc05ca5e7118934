"""Math/abs: elementwise absolute value."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, randint, sample
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset


def reference(input: torch.Tensor) -> torch.Tensor:
    return torch.abs(input)


def fixed_cases(gen):
    inf, nan = float("inf"), float("nan")
    yield "zeros", Call(torch.zeros(17))
    yield "empty", Call(torch.zeros(0))
    yield "scalar_0d", Call(torch.tensor(-2.5))
    yield "signed", Call(torch.tensor([-3.5, -1.0, -1e-30, -0.0, 0.0, 1e-30, 2.0, -3e38, 3e38, -1e-40]))
    yield "nonfinite", Call(torch.tensor([-inf, inf, nan, -nan, -7.0]))
    yield "ramp", Call(torch.linspace(-100.0, 100.0, 1001))
    yield "matrix", Call(sample((33, 65), gen))
    yield "unit_dims", Call(sample((1, 129, 1), gen))
    yield "int32", Call(randint((257,), gen, -(1 << 30), 1 << 30, dtype=torch.int32))
    yield "int32_extremes", Call(torch.tensor([-(1 << 31) + 1, (1 << 31) - 1, -(1 << 24) - 1, -1, 0],
                                              dtype=torch.int32))


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode))
    yield "matrix", Call(sample((129, 257), gen, mode))
    yield "batch", Call(sample((4, 31, 127), gen, mode))
    yield "int32", Call(randint((3, 4099), gen, -(1 << 31) + 1, 1 << 31, dtype=torch.int32))


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen))
    yield "n2^24", Call(sample((1 << 24,), gen))
    yield "n2^27", Call(sample((1 << 27,), gen))


TASK = Task(
    id="Math/abs",
    entry="abs",
    signature="abs(input: Tensor) -> Tensor",
    description="Returns |input| elementwise as a new tensor of the input's shape and dtype. For float32: "
                "-0.0 becomes 0.0, ±inf becomes +inf and NaN stays NaN. For int32 the result is the exact "
                "integer magnitude (inputs never hold INT32_MIN). (torch's `out=` argument is not part of the "
                "task.)",
    math=r"\text{out}_i = |\text{input}_i|",
    difficulty=1,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 (or int32) of any shape; output the same dtype and shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5)),
    flops=elementwise_flops(1),
    deviations=(
        Deviation(Kind.COVERAGE, "float32 only: small fixed vectors, 1024-element and 64×64 random inputs",
                  "adds int32 inputs (exact, beyond 2^24 so a float round trip fails), ±inf, NaN, ±0, "
                  "subnormals, 0-d, empty and size-1 dimensions; random inputs of 65 537, 129×257 and 4×31×127 "
                  "elements", "torch.abs has the same semantics for integers; special values and odd shapes"),
        Deviation(Kind.COVERAGE, "an `out=` argument (never passed by the tests)", "no `out=` argument",
                  "the output is returned as a new tensor; the values computed are the same"),
        sweep_subset(),
    ),
)
