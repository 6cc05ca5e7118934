"""Activation/gelu: the Gaussian error linear unit, exact (erf) or tanh-approximated."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample


def reference(input: torch.Tensor, approximate: str = "none") -> torch.Tensor:
    return F.gelu(input, approximate=approximate)


def fixed_cases(gen):
    yield "zeros", Call(torch.zeros(17))
    yield "ramp", Call(torch.linspace(-8.0, 8.0, 1001))
    yield "ramp_tanh", Call(torch.linspace(-8.0, 8.0, 1001), approximate="tanh")
    yield "extremes", Call(torch.tensor([-1e4, -30.0, -5.0, -1e-8, 0.0, 1e-8, 5.0, 30.0, 1e4]))
    yield "matrix", Call(sample((33, 65), gen))


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode))
    yield "matrix_tanh", Call(sample((129, 257), gen, mode), approximate="tanh")
    yield "batch", Call(sample((4, 31, 127), gen, mode))


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen))
    yield "n2^24", Call(sample((1 << 24,), gen))
    yield "n2^27_tanh", Call(sample((1 << 27,), gen), approximate="tanh")


TASK = Task(
    id="Activation/gelu",
    entry="gelu",
    signature="gelu(input: Tensor, approximate: str = 'none') -> Tensor",
    description="Applies GELU elementwise: x·Φ(x) with Φ the standard normal CDF when approximate='none', "
                "or the tanh approximation 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))) when approximate='tanh'. "
                "The output has the input's shape and dtype.",
    math=r"\mathrm{GELU}(x) = x\,\Phi(x) = \tfrac{x}{2}\left(1 + \mathrm{erf}(x/\sqrt{2})\right)",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape; output float32, same shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5)),
    flops=elementwise_flops(8),
)
