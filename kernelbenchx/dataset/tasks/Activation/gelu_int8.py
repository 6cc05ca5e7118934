"""Activation/gelu_int8: GELU of int8 values, computed in float32 and rounded back to int8."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample

INT8 = torch.int8


def reference(input: torch.Tensor, approximate: str = "none") -> torch.Tensor:
    y = F.gelu(input.float(), approximate=approximate)
    return y.round().clamp(-128, 127).to(INT8)


def int8_sample(shape, gen, mode="standard"):
    """Integers around zero (std 8); outlier mode pushes some to the saturated ends of the int8 range."""
    return (sample(shape, gen, mode) * 8).round().clamp(-128, 127).to(INT8)


def fixed_cases(gen):
    yield "zeros", Call(torch.zeros(17, dtype=INT8))
    yield "full_range", Call(torch.arange(-128, 128, dtype=INT8))
    yield "full_range_tanh", Call(torch.arange(127, -129, -1).to(INT8), approximate="tanh")
    yield "small", Call(torch.tensor([-3, -2, -1, 0, 1, 2, 3], dtype=INT8))
    yield "matrix", Call(int8_sample((33, 65), gen))


def random_cases(gen, mode):
    yield "vector", Call(int8_sample((65_537,), gen, mode))
    yield "matrix_tanh", Call(int8_sample((129, 257), gen, mode), approximate="tanh")
    yield "batch", Call(int8_sample((4, 31, 127), gen, mode))


def perf_cases(gen):
    yield "n2^16", Call(int8_sample((1 << 16,), gen))
    yield "n2^24", Call(int8_sample((1 << 24,), gen))
    yield "n2^27", Call(int8_sample((1 << 27,), gen))
    yield "n2^27_tanh", Call(int8_sample((1 << 27,), gen), approximate="tanh")


TASK = Task(
    id="Activation/gelu_int8",
    entry="gelu_int8",
    signature="gelu_int8(input: Tensor, approximate: str = 'none') -> Tensor",
    description="Applies GELU to an int8 tensor and returns an int8 tensor of the same shape. Each value x is "
                "converted to float32, GELU is applied (approximate='none': 0.5·x·(1 + erf(x/√2)); "
                "approximate='tanh': 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))), and the result is rounded to the "
                "nearest integer (ties to even), saturated to [-128, 127] and stored as int8. There is no scale or "
                "zero point: the int8 values are the real values.",
    math=r"y = \mathrm{sat}_{[-128,127]}\big(\mathrm{round}(\mathrm{GELU}(x))\big)",
    difficulty=1,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input int8 of any shape; output int8, same shape",
                      tolerance=Tolerance(rtol=0.0, atol=0.0),
                      accumulation="fp32 (the GELU itself)",
                      notes="Outputs are integers and must match exactly. Rounding is to nearest: casting the "
                            "float result with truncation toward zero is wrong (GELU(1) ≈ 0.84 rounds to 1)."),
    flops=elementwise_flops(8),
)
