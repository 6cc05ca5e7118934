"""Activation/gelu_bf16: GELU (exact or tanh-approximated) on bfloat16 tensors, bfloat16 in and out."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample

HALF = torch.bfloat16
SPECIALS = [float("nan"), -1e30, 1e30, -0.0, 0.0, -1e-4, 1e-4, -6.0, 6.0, -0.75]


def reference(input: torch.Tensor, approximate: str = "none") -> torch.Tensor:
    return F.gelu(input, approximate=approximate)


def fixed_cases(gen):
    yield "zeros", Call(torch.zeros(17, dtype=HALF))
    yield "ramp", Call(torch.linspace(-8.0, 8.0, 1001).to(HALF))
    yield "ramp_tanh", Call(torch.linspace(-8.0, 8.0, 1001).to(HALF), approximate="tanh")
    yield "specials", Call(torch.tensor(SPECIALS, dtype=HALF))
    yield "specials_tanh", Call(torch.tensor(SPECIALS, dtype=HALF), "tanh")
    yield "matrix", Call(sample((33, 65), gen, dtype=HALF))


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode, dtype=HALF))
    yield "matrix_tanh", Call(sample((129, 257), gen, mode, dtype=HALF), approximate="tanh")
    yield "batch", Call(sample((4, 31, 127), gen, mode, dtype=HALF))


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen, dtype=HALF))
    yield "n2^24", Call(sample((1 << 24,), gen, dtype=HALF))
    yield "n2^27", Call(sample((1 << 27,), gen, dtype=HALF))
    yield "n2^27_tanh", Call(sample((1 << 27,), gen, dtype=HALF), approximate="tanh")


TASK = Task(
    id="Activation/gelu_bf16",
    entry="gelu_bf16",
    signature="gelu_bf16(input: Tensor, approximate: str = 'none') -> Tensor",
    description="Applies GELU elementwise to a bfloat16 tensor and returns a bfloat16 tensor of the same shape. "
                "approximate='none' gives x·Φ(x) = 0.5·x·(1 + erf(x/√2)) (Φ the standard normal CDF); "
                "approximate='tanh' gives 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))). Compute in float32 and round "
                "the result to bfloat16 once. For huge |x|, where x³ overflows even float32, the tanh form must "
                "still give x for positive and (-)0 for negative x. NaN stays NaN and large "
                "negative inputs give (-)0.",
    math=r"\mathrm{GELU}(x) = x\,\Phi(x) = \tfrac{x}{2}\left(1 + \mathrm{erf}(x/\sqrt{2})\right)",
    difficulty=1,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input bfloat16 of any shape; output bfloat16, same shape",
                      tolerance=Tolerance(rtol=1.6e-2, atol=1.6e-2),
                      notes="Internal math in float32 (as torch does); input and output stay bfloat16."),
    flops=elementwise_flops(8),
    unit="bf16",
)
