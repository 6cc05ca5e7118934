"""Fusion/fused_mv_sigmoid_sub: sigmoid(A v) − alpha × b for a matrix A and a vector v."""

import math

import torch

from kernelbenchx.dataset import bounds
from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample


def reference(input: torch.Tensor, vec: torch.Tensor, other, alpha=1) -> torch.Tensor:
    return torch.sub(torch.sigmoid(torch.mv(input, vec)), other, alpha=alpha)


def error_bound(call: Call) -> torch.Tensor:
    """B_i = σ'(z_i)·2ε√m·(‖A_i ∘ v‖₂ + |z_i|) + 8ε·(σ(z_i) + |α·other_i|): the fp32 accumulation bound of the
    dot product (bounds.sum_bound of its m terms) carried through the sigmoid's slope, plus a few ulp for
    evaluating the sigmoid and the subtraction."""
    a, v, other, alpha = bind(*call.args, **call.kwargs)
    a, v = a.double(), v.double()
    z = a @ v
    s = torch.sigmoid(z)
    eps = bounds.EPS[torch.float32]
    dot = bounds.C * eps * math.sqrt(max(a.shape[1], 1)) * ((a * v).pow(2).sum(1).sqrt() + z.abs())
    o = other.double() if isinstance(other, torch.Tensor) else torch.tensor(float(other), dtype=torch.float64)
    return s * (1 - s) * dot + 8 * eps * (s + (alpha * o).abs())


def bind(input, vec, other, alpha=1):
    return input, vec, other, alpha


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
    yield "32768x32768", Call(*matvec(gen, "standard", 32768, 32768), 0.5)


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
                      tolerance=Tolerance(rtol=1e-5, atol=1.0, scale="bound"),
                      bound="B_i = σ'(z_i)·2ε·√m·(‖A_i ∘ v‖₂ + |z_i|) + 8ε·(σ(z_i) + |alpha·other_i|) with "
                            "ε = 2⁻²³ and z = A·v: the fp32 accumulation bound of row i's dot product through the "
                            "sigmoid's slope, plus a few ulp for the sigmoid and the subtraction",
                      precision="fp32 products with fp32 accumulation in any order pass; TF32 products (about "
                                "2⁻¹¹ relative error per term) do not",
                      notes="Summation order is free. A matrix-vector product is bound by reading the matrix, so "
                            "lower-precision tensor-core products gain nothing here."),
    error_bound=error_bound,
    flops=flops,
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "rtol 1e-5 plus the fp32 accumulation bound B_i above",
                  "the dot product's rounding grows with m and with the terms' size; B follows it, stays far below "
                  "what a TF32 or dropped-block product costs, and at m = 4097 is about 1e-5 itself"),
        Deviation(Kind.COVERAGE, "2×2 examples and 128×256 random matrices, other a tensor or 0.5",
                  "adds (1,)-shaped and 0-d-broadcast `other`, a single column, zero inputs, saturated sigmoids "
                  "and widths up to 4097",
                  "broadcasting of `other` and the sigmoid's tails are part of the function"),
        Deviation(Kind.PERF, "10 sizes, n × n for n = 2^6 … 2^15 of U(0, 1), other = 0.5",
                  "n = 1024, 8192 and 32768 with N(0, 1) entries scaled so that A·v has spread 2",
                  "a subset spanning small to largest; U(0, 1) entries make A·v ≈ n/4, so every output is "
                  "exactly σ(∞) − 0.5 and the result does not depend on the product"),
    ),
)
