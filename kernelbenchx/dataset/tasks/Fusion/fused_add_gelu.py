"""Fusion/fused_add_gelu: GELU of input + alpha·other (tensor broadcast or scalar)."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.refs import gelu
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample


def reference(input: torch.Tensor, other, alpha=1, approximate: str = "none") -> torch.Tensor:
    return gelu(torch.add(input, other, alpha=alpha), approximate=approximate)


def fixed_cases(gen):
    yield "zeros", Call(torch.zeros(17), torch.zeros(17))
    yield "ramp_scalar_other", Call(torch.linspace(-8.0, 8.0, 1001), 0.5, alpha=2)
    yield "ramp_tanh", Call(torch.linspace(-8.0, 8.0, 1001), torch.linspace(1.0, -1.0, 1001), approximate="tanh")
    yield "extremes", Call(torch.tensor([-1e4, -30.0, -5.0, -1e-8, 0.0, 1e-8, 5.0, 30.0, 1e4, float("inf"),
                                         float("-inf")]), torch.zeros(11))
    yield "broadcast_row_negative_alpha", Call(sample((33, 65), gen), sample((65,), gen), alpha=-1.5)
    yield "broadcast_column", Call(sample((3, 40, 7), gen), sample((40, 1), gen), alpha=0.25)
    yield "extremes_tanh", Call(torch.tensor([-1e4, -30.0, -1e-8, 0.0, 30.0, 1e4, float("inf"), float("-inf"),
                                              float("nan")]), 0.0, approximate="tanh")
    yield "empty", Call(torch.zeros(0, 5), torch.zeros(5))
    yield "size1_dims", Call(sample((1, 9, 1), gen), sample((1, 1, 4), gen), alpha=3)
    yield "broadcast_4d", Call(sample((3, 1, 4, 5), gen), sample((2, 1, 5), gen), alpha=-2)
    # rank 5, both operands broadcast; input a transposed (non-contiguous) view
    yield "broadcast_5d", Call(sample((2, 6, 3, 1, 5), gen).transpose(1, 3), sample((1, 4, 1, 6, 1), gen),
                               alpha=0.5, approximate="tanh")


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode), sample((65_537,), gen, mode))
    yield "matrix_row_tanh", Call(sample((129, 257), gen, mode), sample((257,), gen, mode), alpha=0.3,
                                  approximate="tanh")
    yield "batch_scalar", Call(sample((4, 31, 127), gen, mode), -0.75, alpha=2.0)
    yield "batch4d_tanh", Call(sample((2, 3, 17, 33), gen, mode), sample((3, 1, 33), gen, mode), alpha=-0.5,
                               approximate="tanh")


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen), sample((1 << 16,), gen))
    yield "n2^24", Call(sample((1 << 24,), gen), sample((1 << 24,), gen), alpha=0.5)
    yield "n2^27_tanh", Call(sample((1 << 27,), gen), sample((1 << 27,), gen), approximate="tanh")


TASK = Task(
    id="Fusion/fused_add_gelu",
    entry="fused_add_gelu",
    signature="fused_add_gelu(input: Tensor, other: Tensor | float, alpha: float = 1, approximate: str = 'none') "
              "-> Tensor",
    description="Computes z = input + alpha·other (other is a tensor broadcastable with input, or a Python "
                "number) and returns GELU(z) elementwise: z·Φ(z) with Φ the standard normal CDF when "
                "approximate='none', or 0.5·z·(1 + tanh(√(2/π)·(z + 0.044715·z³))) when approximate='tanh'. "
                "The output has the broadcast shape of input and other and dtype float32. For both "
                "approximations GELU(+inf) = +inf, GELU(-inf) = NaN (−inf·0) and NaN propagates. The upstream "
                "`out=` argument is dropped: return a new tensor.",
    math=r"\mathrm{out}_i = \mathrm{GELU}(x_i + \alpha\,y_i),\quad \mathrm{GELU}(z) = \tfrac{z}{2}"
         r"\left(1 + \mathrm{erf}(z/\sqrt{2})\right)",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32; other float32 tensor (broadcastable) or Python number; "
                             "output float32 with the broadcast shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5)),
    flops=elementwise_flops(10),
    choices={"approximate": ("none", "tanh")},
    deviations=(
        Deviation(Kind.PERF, "16 float16 sizes 2^12 … 2^27 (its tests use float32)",
                  "float32 at 2^16, 2^24 and 2^27 elements (the largest also with approximate='tanh')",
                  "kbx times the dtype the contract states and its correctness stages test; three of "
                  "upstream's sizes span launch-bound to bandwidth-bound"),
    ),
)
