"""Fusion/fused_log_tanh: hyperbolic tangent of the natural logarithm, elementwise."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample


def reference(input: torch.Tensor) -> torch.Tensor:
    return torch.tanh(torch.log(input))


def positive(shape, gen, mode="standard"):
    return sample(shape, gen, mode).abs() + 1e-3


def fixed_cases(gen):
    yield "ones", Call(torch.ones(17))
    yield "ramp", Call(torch.linspace(1e-3, 20.0, 1001))
    yield "domain_edges", Call(torch.tensor([-1.0, -0.0, 0.0, 1e-40, 1e-20, 1e-3, 0.5, 1.0, 2.0, 1e20, 1e38,
                                             float("inf"), float("nan")]))
    yield "matrix", Call(positive((33, 65), gen))


def random_cases(gen, mode):
    yield "vector", Call(positive((65_537,), gen, mode))
    yield "matrix", Call(positive((129, 257), gen, mode))
    yield "batch", Call(positive((4, 31, 127), gen, mode))


def perf_cases(gen):
    yield "n2^16", Call(positive((1 << 16,), gen))
    yield "n2^24", Call(positive((1 << 24,), gen))
    yield "n2^27", Call(positive((1 << 27,), gen))


TASK = Task(
    id="Fusion/fused_log_tanh",
    entry="fused_log_tanh",
    signature="fused_log_tanh(input: Tensor) -> Tensor",
    description="Computes tanh(log(x)) elementwise and returns a new tensor of the input's shape and dtype. "
                "The logarithm is defined for positive inputs; as in torch, x = 0 gives log = -inf and so -1, "
                "+inf gives 1, and negative or NaN inputs give NaN. (For x > 0 this equals (x² - 1)/(x² + 1), "
                "but the result must stay accurate where x² would overflow or underflow.) "
                "The upstream `out=` argument is dropped.",
    math=r"\mathrm{out}_i = \tanh(\log x_i)",
    difficulty=1,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape (positive values); output float32, same shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5)),
    flops=elementwise_flops(2),
)
