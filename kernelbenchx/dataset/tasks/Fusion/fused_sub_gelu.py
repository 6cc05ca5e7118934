"""Fusion/fused_sub_gelu: GELU of input − alpha × other, exact (erf) or tanh-approximated."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.refs import gelu
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample


def reference(input: torch.Tensor, other, alpha=1, approximate: str = "none") -> torch.Tensor:
    return gelu(torch.sub(input, other, alpha=alpha), approximate=approximate)


def fixed_cases(gen):
    yield "zeros", Call(torch.zeros(17), torch.zeros(17))
    yield "example", Call(torch.tensor([1.5, -2.0, 3.0]), torch.tensor([0.5, 1.0, -1.5]), alpha=2)
    yield "ramp_scalar", Call(torch.linspace(-8.0, 8.0, 1001), 0.5)
    yield "ramp_tanh", Call(torch.linspace(-8.0, 8.0, 1001), torch.linspace(1.0, -1.0, 1001), alpha=0.5,
                            approximate="tanh")
    yield "extremes", Call(torch.tensor([-1e4, -30.0, -5.0, -1e-8, 0.0, 1e-8, 5.0, 30.0, 1e4]), 0.0)
    yield "broadcast", Call(sample((31, 65), gen), sample((65,), gen), alpha=-1.5)
    yield "broadcast_4d", Call(sample((3, 1, 4, 5), gen), sample((2, 1, 5), gen), alpha=-2)
    # rank 5, both operands broadcast; input a transposed (non-contiguous) view
    yield "broadcast_5d", Call(sample((2, 6, 3, 1, 5), gen).transpose(1, 3), sample((1, 4, 1, 6, 1), gen),
                               alpha=0.5, approximate="tanh")
    yield "specials", Call(torch.tensor([float("inf"), float("-inf"), float("nan"), 1.0]),
                           torch.tensor([1.0, 1.0, 0.0, float("inf")]))


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode), sample((65_537,), gen, mode))
    yield "matrix_tanh", Call(sample((129, 257), gen, mode), sample((129, 257), gen, mode), alpha=2,
                              approximate="tanh")
    yield "broadcast", Call(sample((4, 31, 127), gen, mode), sample((31, 1), gen, mode), alpha=0.5)
    yield "scalar_other_tanh", Call(sample((3, 1000), gen, mode), -0.75, approximate="tanh")


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen), sample((1 << 16,), gen))
    yield "n2^24", Call(sample((1 << 24,), gen), sample((1 << 24,), gen))
    yield "n2^25", Call(sample((1 << 25,), gen), sample((1 << 25,), gen))
    yield "n2^25_tanh", Call(sample((1 << 25,), gen), sample((1 << 25,), gen), alpha=2, approximate="tanh")


TASK = Task(
    id="Fusion/fused_sub_gelu",
    entry="fused_sub_gelu",
    signature="fused_sub_gelu(input: Tensor, other: Tensor | float, alpha: float = 1, "
              "approximate: str = 'none') -> Tensor",
    description="Computes s = input − alpha × other (torch.sub with alpha; other is a tensor broadcastable with "
                "input, or a Python number), then applies GELU elementwise: s·Φ(s) with Φ the standard normal "
                "CDF when approximate='none' (the true GELU, s·(1 + erf(s/√2))/2), or 0.5·s·(1 + tanh(√(2/π)·(s + 0.044715·s³))) when "
                "approximate='tanh'. Returns a new float32 tensor of the broadcast shape. As torch evaluates "
                "these formulas, GELU(+inf) = +inf and GELU(-inf) = NaN (-inf·0), and NaN propagates. "
                "The upstream `out=` argument is dropped.",
    math=r"\mathrm{out}_i = \mathrm{GELU}(x_i - \alpha\,o_i),\quad \mathrm{GELU}(s) = s\,\Phi(s)",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input (and other when a tensor) float32; output float32 of the broadcast shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5)),
    flops=elementwise_flops(10),
    choices={"approximate": ("none", "tanh")},
    deviations=(
        Deviation(Kind.UPSTREAM_BUG, "approximate='none' computes s·erf(s/√2)/2, without the '1 +' of GELU "
                  "(negative s give positive outputs)",
                  "approximate='none' is the true GELU, s·(1 + erf(s/√2))/2, as torch's F.gelu",
                  "Upstream's description and catalogue name GELU; its own tanh path and torch both compute "
                  "the real function", in_prompt=True),
        Deviation(Kind.COVERAGE, "random cases: 4096-element vectors, tanh only, alpha = 0.5",
                  "both GELU forms, broadcasting (rank 4 and 5 broadcasts included), scalar `other`, ±inf, NaN "
                  "and large |s|, up to 65 537 elements",
                  "the exact-erf path and broadcasting are part of the function"),
        Deviation(Kind.PERF, "14 sizes, 1-D 2^12 … 2^25 elements, alpha = 1, approximate='none'",
                  "1-D 2^16, 2^24 and 2^25 elements with 'none', and 2^25 with 'tanh' and alpha = 2",
                  "a subset spanning small to largest, plus the tanh form"),
    ),
)
