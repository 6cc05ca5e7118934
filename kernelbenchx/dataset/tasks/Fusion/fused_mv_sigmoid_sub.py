"""Fusion/fused_mv_sigmoid_sub: sigmoid(A v) − alpha × b for a matrix A and a vector v."""

import math

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, sample


def reference(input: torch.Tensor, vec: torch.Tensor, other, alpha=1) -> torch.Tensor:
    return torch.sub(torch.sigmoid(torch.mv(input, vec)), other, alpha=alpha)


def matvec(gen, mode, n, m, gain=2.0):
    """A matrix scaled so that A v has standard deviation about `gain` (sigmoid neither flat nor saturated)."""
    return sample((n, m), gen, mode) * (gain / math.sqrt(m)), sample((m,), gen, mode)


def fixed_cases(gen):
    yield "example", Call(torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), torch.tensor([0.1, 0.2, 0.3]),
                          torch.tensor([0.5, 0.5]), 1.0)
    yield "zeros", Call(torch.zeros(7, 5), torch.zeros(5), 0.0)
    yield "scalar_other", Call(*matvec(gen, "standard", 33, 64), 0.5)
    yield "tensor_other_alpha", Call(*matvec(gen, "standard", 65, 17), sample((65,), gen), -2.5)
    yield "broadcast_one", Call(*matvec(gen, "standard", 31, 40), torch.tensor([0.25]), 2)
    yield "single_column", Call(torch.linspace(-30.0, 30.0, 121).reshape(-1, 1), torch.tensor([1.0]), 0.0)
    yield "saturating", Call(*matvec(gen, "standard", 50, 128, gain=40.0), 1.0, 0.5)


def random_cases(gen, mode):
    yield "square", Call(*matvec(gen, mode, 255, 255), sample((255,), gen, mode), 0.5)
    yield "tall_scalar", Call(*matvec(gen, mode, 1000, 96), 0.5)
    yield "wide", Call(*matvec(gen, mode, 64, 4097), sample((64,), gen, mode), -1)


def perf_cases(gen):
    yield "1024x1024", Call(*matvec(gen, "standard", 1024, 1024), 0.5)
    yield "8192x8192", Call(*matvec(gen, "standard", 8192, 8192), 0.5)
    yield "16384x16384", Call(*matvec(gen, "standard", 16384, 16384), sample((16384,), gen), 2)


def flops(call, out):
    n, m = call.args[0].shape
    return 2 * n * m + 6 * n


TASK = Task(
    id="Fusion/fused_mv_sigmoid_sub",
    entry="fused_mv_sigmoid_sub",
    signature="fused_mv_sigmoid_sub(input: Tensor, vec: Tensor, other: Tensor | float, alpha: float = 1) -> Tensor",
    description="Computes z = input @ vec (torch.mv: input is an (n, m) matrix, vec an (m,) vector, z has shape "
                "(n,)), then s = sigmoid(z) = 1/(1 + exp(−z)), then returns s − alpha × other (torch.sub with "
                "alpha). other is a Python number or a tensor broadcastable to (n,) (shape (n,) or (1,)). "
                "Returns a new float32 tensor of shape (n,). The upstream `out=` argument is dropped.",
    math=r"y = \sigma(A v) - \alpha\, b",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input, vec (and other when a tensor) float32; output float32 of shape (n,)",
                      tolerance=Tolerance(rtol=1e-2, atol=1e-2, scale="rms"),
                      tf32=True,
                      notes="The matrix-vector product may use TF32 products with fp32 accumulation, hence the "
                            "RMS-scaled tolerance; summation order is free."),
    flops=flops,
    unit="tf32",
)
