"""Math/rsqrt: elementwise reciprocal square root with torch's IEEE edge semantics."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset


def reference(input: torch.Tensor) -> torch.Tensor:
    return torch.rsqrt(input)


def fixed_cases(gen):
    inf, nan = float("inf"), float("nan")
    yield "domain_edges", Call(torch.tensor([0.0, -0.0, -1.0, -1e-30, inf, -inf, nan, 1.0, 4.0, 1e-30, 3e38]))
    # negatives mixed with valid values: NaN only where x < 0, never for the whole tensor
    yield "mixed_signs", Call(sample((33, 65), gen))
    yield "ramp", Call(torch.linspace(1e-4, 100.0, 1001))
    yield "with_zeros", Call(torch.cat([torch.zeros(5), sample((60,), gen).abs() + 1e-3, -torch.zeros(3)]))


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode).abs() + 1e-3)
    yield "matrix", Call(sample((129, 257), gen, mode).abs() * 1e3 + 1e-3)
    yield "batch", Call(sample((4, 31, 127), gen, mode).abs() + 1e-3)
    yield "wide_range", Call(torch.exp((sample((1, 4099), gen, mode) * 20).clamp(-80.0, 80.0)))  # e^±80


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen).abs() + 1e-3)
    yield "n2^24", Call(sample((1 << 24,), gen).abs() + 1e-3)
    yield "n2^27", Call(sample((1 << 27,), gen).abs() + 1e-3)


TASK = Task(
    id="Math/rsqrt",
    entry="rsqrt",
    signature="rsqrt(input: Tensor) -> Tensor",
    description="Returns 1 / sqrt(x) for every element x of `input`, as a new tensor of the same shape and dtype. "
                "Elementwise IEEE semantics as in torch.rsqrt: NaN only at the positions where x < 0 (or x is NaN), "
                "rsqrt(+0) = +inf, rsqrt(-0) = -inf, rsqrt(+inf) = 0; other positions are unaffected by invalid "
                "neighbours. (torch's `out=` argument is not part of the task.)",
    math=r"y_i = 1 / \sqrt{x_i}",
    difficulty=1,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape; output float32, same shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5)),
    flops=elementwise_flops(2),
    deviations=(sweep_subset(extra_reason="values are |N(0,1)| + 1e-3, as in upstream's correctness test"),),
)
