"""Math/sqrt_exp: exp(sqrt(x)) elementwise."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample


def reference(input: torch.Tensor) -> torch.Tensor:
    return torch.exp(torch.sqrt(input))


def fixed_cases(gen):
    inf, nan = float("inf"), float("nan")
    yield "domain_edges", Call(torch.tensor([0.0, -0.0, -1.0, -1e-30, inf, -inf, nan, 0.25, 1.0, 4.0, 9.0]))
    yield "overflow", Call(torch.tensor([7000.0, 7800.0, 7900.0, 8000.0, 1e10]))
    yield "ramp", Call(torch.linspace(0.0, 100.0, 1001))
    yield "mixed_signs", Call(sample((33, 65), gen))


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode).abs())
    yield "matrix", Call(sample((129, 257), gen, mode).abs() * 20)
    yield "batch", Call(sample((4, 31, 127), gen, mode).abs())


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen).abs())
    yield "n2^24", Call(sample((1 << 24,), gen).abs())
    yield "n2^27", Call(sample((1 << 27,), gen).abs())


TASK = Task(
    id="Math/sqrt_exp",
    entry="sqrt_exp",
    signature="sqrt_exp(input: Tensor) -> Tensor",
    description="Returns exp(sqrt(x)) for every element x of `input`, as a new tensor of the same shape and "
                "dtype. Edge behaviour follows the two torch ops: x < 0 gives NaN (sqrt is NaN), ±0 gives 1, "
                "+inf gives +inf, and results beyond the float32 range (x ≳ 7885) overflow to +inf. "
                "(The `out=` argument of the original is not part of the task.)",
    math=r"y_i = e^{\sqrt{x_i}}",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape; output float32, same shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5)),
    flops=elementwise_flops(2),
)
