"""Math/sqrt_tanh: tanh(sqrt(x)) elementwise."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset


def reference(input: torch.Tensor) -> torch.Tensor:
    return torch.tanh(torch.sqrt(input))


def fixed_cases(gen):
    inf, nan = float("inf"), float("nan")
    yield "domain_edges", Call(torch.tensor([0.0, -0.0, -1.0, -1e-30, inf, -inf, nan, 0.25, 1.0, 4.0, 9.0, 1e4]))
    yield "tiny", Call(torch.tensor([1e-30, 1e-20, 1e-12, 1e-8, 1e-6, 1e-4]))
    yield "ramp", Call(torch.linspace(0.0, 10.0, 1001))
    yield "mixed_signs", Call(sample((33, 65), gen))


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode).abs())
    yield "matrix", Call(sample((129, 257), gen, mode).abs() * 0.01)
    yield "batch", Call(sample((4, 31, 127), gen, mode).abs() * 4)


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen).abs())
    yield "n2^24", Call(sample((1 << 24,), gen).abs())
    yield "n2^27", Call(sample((1 << 27,), gen).abs())


TASK = Task(
    id="Math/sqrt_tanh",
    entry="sqrt_tanh",
    signature="sqrt_tanh(input: Tensor) -> Tensor",
    description="Returns tanh(sqrt(x)) for every element x of `input`, as a new tensor of the same shape and "
                "dtype. Edge behaviour follows the two torch ops: x < 0 gives NaN (sqrt is NaN), ±0 gives ±0, "
                "+inf gives 1. (The `out=` argument of the original is not part of the task.)",
    math=r"y_i = \tanh\left(\sqrt{x_i}\right)",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape; output float32, same shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5)),
    flops=elementwise_flops(2),
    deviations=(sweep_subset(extra_reason="values are |N(0,1)| (upstream's randn makes half of them NaN)"),),
)
