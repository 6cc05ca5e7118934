"""Fusion/fused_cos_signbit: cosine and the sign bit of the cosine, in one pass."""

import math

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample


def reference(input: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    cos_result = torch.cos(input)
    return cos_result, torch.signbit(cos_result)


def fixed_cases(gen):
    yield "zeros", Call(torch.zeros(17))
    yield "example", Call(torch.tensor([1.4309, 1.2706, -0.8562, 0.9796]))
    yield "ramp", Call(torch.linspace(-4 * math.pi, 4 * math.pi, 1001))
    yield "half_pi_multiples", Call(torch.tensor([k * math.pi / 2 for k in range(-7, 8)]))
    yield "large", Call(torch.tensor([-1e4, -123.25, 40.0, 1e3 + 0.5, 3e4]))
    yield "matrix", Call(sample((33, 65), gen))


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode) * 3.0)
    yield "matrix", Call(sample((129, 257), gen, mode) * 3.0)
    yield "batch", Call(sample((4, 31, 127), gen, mode) * 3.0)


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen) * 3.0)
    yield "n2^24", Call(sample((1 << 24,), gen) * 3.0)
    yield "n2^27", Call(sample((1 << 27,), gen) * 3.0)


TASK = Task(
    id="Fusion/fused_cos_signbit",
    entry="fused_cos_signbit",
    signature="fused_cos_signbit(input: Tensor) -> tuple[Tensor, Tensor]",
    description="Returns a pair (cos_result, sign_bit): cos_result = cos(input) elementwise (float32, same shape) "
                "and sign_bit = signbit(cos_result), a bool tensor that is True exactly where the sign bit of "
                "the float32 cosine is set (negative values, including -0.0). Inputs are finite.",
    math=r"c = \cos(x),\quad s = \mathrm{signbit}(c)",
    difficulty=1,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 (finite); outputs float32 and bool, same shape as input",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="sign_bit is compared exactly: compute the cosine accurately (libdevice-grade, not a "
                            "fast approximation) so its sign is right where it is tiny, e.g. near odd multiples "
                            "of π/2."),
    flops=elementwise_flops(9),
)
