"""Fusion/fused_cos_signbit: cosine and the sign bit of the cosine, in one pass."""

import math

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, randint, sample


def reference(input: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    cos_result = torch.cos(input)
    return cos_result, torch.signbit(cos_result)


def near_zeros(n, gen, kmax=3000):
    """float32 values within a few ulps of odd multiples of π/2, where cos is tiny and its sign is fragile."""
    k = randint((n,), gen, -kmax, kmax).double()
    base = ((2 * k + 1) * (math.pi / 2)).float()
    bits = base.view(torch.int32) + randint((n,), gen, -3, 4, dtype=torch.int32)
    return bits.view(torch.float32)


def fixed_cases(gen):
    yield "zeros", Call(torch.zeros(17))
    yield "example", Call(torch.tensor([1.4309, 1.2706, -0.8562, 0.9796]))
    yield "ramp", Call(torch.linspace(-4 * math.pi, 4 * math.pi, 1001))
    yield "half_pi_multiples", Call(torch.tensor([k * math.pi / 2 for k in range(-7, 8)]))
    yield "large", Call(torch.tensor([-1e4, -123.25, 40.0, 1e3 + 0.5, 3e4]))
    yield "matrix", Call(sample((33, 65), gen))
    yield "near_zeros", Call(near_zeros(4096, gen))
    yield "empty", Call(torch.zeros(0, 3))


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode) * 3.0)
    yield "matrix", Call(sample((129, 257), gen, mode) * 3.0)
    yield "batch", Call(sample((4, 31, 127), gen, mode) * 3.0)
    yield "near_zeros", Call(near_zeros(50_000, gen).reshape(100, 500))


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
    deviations=(
        Deviation(Kind.PERF, "16 sizes, 1-D 2^12 … 2^27 elements", "2^16, 2^24 and 2^27 elements",
                  "three of upstream's sizes span launch-bound to bandwidth-bound"),
        Deviation(Kind.COVERAGE, "N(0, 1) inputs only", "adds inputs within 3 ulps of odd multiples of π/2 (|x| up "
                  "to ~10⁴), where the cosine is tiny", "the sign bit is compared exactly; these inputs separate an "
                  "accurately range-reduced cosine from a fast approximation whose sign is wrong there"),
    ),
)
