"""Fusion/fused_log_tanh: hyperbolic tangent of the natural logarithm, elementwise, on positive inputs."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample


def reference(input: torch.Tensor) -> torch.Tensor:
    return torch.tanh(torch.log(input))


def positive(shape, gen, mode="standard"):
    return sample(shape, gen, mode).abs() + 1e-3


def fixed_cases(gen):
    yield "example", Call(torch.tensor([1.0, 2.0, 3.0, 4.0, 0.5, 1.5, 2.5, 0.1]))
    yield "ones", Call(torch.ones(17))
    yield "ramp", Call(torch.linspace(1e-3, 20.0, 1001))
    yield "near_one", Call(1.0 + torch.linspace(-1e-3, 1e-3, 257))
    # x² underflows below ~1e-19 and overflows above ~1.8e19: tanh(log x) must not follow it.
    yield "domain_edges", Call(torch.tensor([1e-45, 1e-40, 1e-30, 1e-20, 1e-3, 0.5, 1.0, 2.0, 1e10, 1e20, 1e30,
                                             3e38, float("inf"), float("nan")]))
    yield "matrix", Call(positive((33, 65), gen))
    yield "batch", Call(positive((3, 5, 7), gen) * 100.0)


def random_cases(gen, mode):
    yield "vector", Call(positive((65_537,), gen, mode))
    yield "matrix", Call(positive((129, 257), gen, mode))
    yield "batch_wide_range", Call(torch.exp((sample((4, 31, 127), gen, mode) * 20.0).clamp(-85.0, 85.0)))


def perf_cases(gen):
    yield "n2^16", Call(positive((1 << 16,), gen))
    yield "n2^24", Call(positive((1 << 24,), gen))
    yield "n2^27", Call(positive((1 << 27,), gen))


TASK = Task(
    id="Fusion/fused_log_tanh",
    entry="fused_log_tanh",
    signature="fused_log_tanh(input: Tensor) -> Tensor",
    description="Computes tanh(log(x)) elementwise and returns a new tensor of the input's shape and dtype. "
                "Every input value is positive (or +inf, or NaN): +inf gives 1 and NaN gives NaN. (For x > 0 this "
                "equals (x² − 1)/(x² + 1), but the result must stay accurate where x² would overflow or "
                "underflow, e.g. x = 1e-30 or 1e30.) The upstream `out=` argument is dropped.",
    math=r"\mathrm{out}_i = \tanh(\log x_i)",
    difficulty=1,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape (positive values, +inf or NaN); output float32, "
                             "same shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5)),
    flops=elementwise_flops(2),
    deviations=(
        Deviation(Kind.COVERAGE, "cases of 3 values, values near 0 and |N(0,1)| + 0.1 at 4096 elements; "
                  "non-positive inputs raise ValueError",
                  "adds values near 1, tiny and huge positives (1e-45 … 3e38), +inf, NaN and log-uniform values "
                  "over e^±85, at up to 65 537 elements; never passes x ≤ 0",
                  "the range where x² over- or underflows is where a shortcut formula breaks; x ≤ 0 stays "
                  "outside the tested domain, as upstream's own check puts it"),
        Deviation(Kind.PERF, "16 sizes, 1-D 2^12 … 2^27 elements of U(0, 1) + 1e-6",
                  "1-D 2^16, 2^24 and 2^27 elements of |N(0, 1)| + 1e-3",
                  "a subset spanning small to largest; the values do not change the work"),
    ),
)
