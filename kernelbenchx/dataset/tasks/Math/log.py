"""Math/log: elementwise natural logarithm."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset


def reference(input: torch.Tensor) -> torch.Tensor:
    return torch.log(input)


def fixed_cases(gen):
    inf, nan = float("inf"), float("nan")
    yield "domain_edges", Call(torch.tensor([0.0, -0.0, -1.0, -1e-30, 1.0, inf, -inf, nan, 1e-30, 3e38]))
    yield "ramp", Call(torch.linspace(1e-4, 100.0, 1001))
    yield "near_one", Call(1.0 + torch.linspace(-1e-3, 1e-3, 257))
    yield "mixed_signs", Call(sample((33, 65), gen))
    yield "scalar_0d", Call(torch.tensor(2.5))


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode).abs() + 1e-3)
    yield "matrix", Call(sample((129, 257), gen, mode).abs() * 100 + 1e-3)
    yield "batch", Call(sample((4, 31, 127), gen, mode).abs() + 1e-3)
    yield "wide_range", Call(torch.exp((sample((1, 4099), gen, mode) * 20).clamp(-80.0, 80.0)))  # e^±80


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen).abs() + 1e-3)
    yield "n2^24", Call(sample((1 << 24,), gen).abs() + 1e-3)
    yield "n2^27", Call(sample((1 << 27,), gen).abs() + 1e-3)


TASK = Task(
    id="Math/log",
    entry="log",
    signature="log(input: Tensor) -> Tensor",
    description="Returns the natural logarithm of every element of `input`, as a new tensor of the same shape "
                "and dtype. IEEE edge behaviour as in torch.log: log(±0) = -inf, log(x < 0) = NaN, "
                "log(+inf) = +inf, log(NaN) = NaN. (torch's `out=` argument is not part of the task.)",
    math=r"y_i = \ln x_i",
    difficulty=1,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape; output float32, same shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5)),
    flops=elementwise_flops(1),
    deviations=(sweep_subset(extra_reason="values are |N(0,1)| + 1e-3 (upstream's randn makes half of them NaN)"),),
)
