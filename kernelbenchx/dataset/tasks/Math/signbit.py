"""Math/signbit: whether each element's IEEE sign bit is set (bool output)."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset


def reference(input: torch.Tensor) -> torch.Tensor:
    return torch.signbit(input)


def fixed_cases(gen):
    inf, nan = float("inf"), float("nan")
    yield "example", Call(torch.tensor([0.7, -1.2, 0.0, 2.3]))
    yield "signed_zeros", Call(torch.tensor([-0.0, 0.0]))
    # -NaN has its sign bit set; comparisons (x < 0) cannot see it
    yield "specials", Call(torch.tensor([inf, -inf, nan, -nan, 1e-45, -1e-45, 3e38, -3e38, -0.0, 0.0]))
    yield "matrix", Call(sample((33, 65), gen))


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode))
    yield "matrix", Call(sample((129, 257), gen, mode))
    # rounding toward zero produces many signed zeros
    yield "with_zeros", Call(torch.trunc(sample((4, 31, 127), gen, mode)))


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen))
    yield "n2^24", Call(sample((1 << 24,), gen))
    yield "n2^27", Call(sample((1 << 27,), gen))


TASK = Task(
    id="Math/signbit",
    entry="signbit",
    signature="signbit(input: Tensor) -> Tensor",
    description="Returns a new bool tensor of the input's shape that is True where the element's IEEE-754 sign bit "
                "is set: negative numbers, -0.0, -inf and NaNs whose sign bit is set are True; positive numbers, "
                "+0.0, +inf and NaNs with a clear sign bit are False. (torch's `out=` argument is not part of the "
                "task.)",
    math=r"y_i = \text{sign bit of } x_i",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape; output bool, same shape (compared exactly)",
                      tolerance=Tolerance(rtol=0.0, atol=0.0)),
    flops=elementwise_flops(1),
    deviations=(sweep_subset(),),
    unit="int",
)
