"""Math/abs: elementwise absolute value."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, randint, sample


def reference(input: torch.Tensor) -> torch.Tensor:
    return torch.abs(input)


def fixed_cases(gen):
    inf, nan = float("inf"), float("nan")
    yield "zeros", Call(torch.zeros(17))
    yield "signed", Call(torch.tensor([-3.5, -1.0, -1e-30, -0.0, 0.0, 1e-30, 2.0, -3e38, 3e38]))
    yield "nonfinite", Call(torch.tensor([-inf, inf, nan, -nan, -7.0]))
    yield "ramp", Call(torch.linspace(-100.0, 100.0, 1001))
    yield "matrix", Call(sample((33, 65), gen))
    yield "int32", Call(randint((257,), gen, -(1 << 30), 1 << 30, dtype=torch.int32))


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode))
    yield "matrix", Call(sample((129, 257), gen, mode))
    yield "batch", Call(sample((4, 31, 127), gen, mode))


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
)
