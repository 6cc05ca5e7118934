"""Normalization/symmetric_matrix_vector_norm: ‖α·A x + β·x‖_p for a symmetric matrix A."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, sample


def reference(A: torch.Tensor, x: torch.Tensor, alpha: float, beta: float, p: float = 2.0) -> torch.Tensor:
    y = alpha * torch.mv(A, x) + beta * x
    return torch.norm(y, p)


def symmetric(n, gen, mode="standard"):
    a = sample((n, n), gen, mode)
    return (a + a.T) / 2


def case(n, gen, alpha, beta, p=2.0, mode="standard"):
    return Call(symmetric(n, gen, mode), sample((n,), gen, mode), alpha, beta, p)


def fixed_cases(gen):
    yield "example", Call(torch.tensor([[2.0, -1.0], [-1.0, 2.0]]), torch.tensor([1.0, 1.0]), 1.5, 0.5)
    yield "l1", case(33, gen, 1.0, 1.0, 1.0)
    yield "p3", case(17, gen, 0.5, -2.0, 3.0)
    yield "inf", case(12, gen, -1.0, 1.0, float("inf"))
    yield "beta_zero", case(9, gen, 1.0, 0.0)
    yield "cancel_to_zero", Call(torch.eye(4), sample((4,), gen), 1.0, -1.0)
    yield "one_element", case(1, gen, 2.0, 0.5)


def random_cases(gen, mode):
    yield "l2", case(511, gen, 0.5, 1.0, mode=mode)
    yield "l1", case(255, gen, 2.0, -1.0, 1.0, mode)
    yield "p3", case(547, gen, 1.0, 0.5, 3.0, mode)


def perf_cases(gen):
    yield "1024", case(1024, gen, 1.0, 1.0)
    yield "8192", case(8192, gen, 1.0, 1.0)
    yield "16384", case(16384, gen, 1.0, 1.0)


TASK = Task(
    id="Normalization/symmetric_matrix_vector_norm",
    entry="symmetric_matrix_vector_norm",
    signature="symmetric_matrix_vector_norm(A: Tensor, x: Tensor, alpha: float, beta: float, p: float = 2.0) -> Tensor",
    description="y = alpha·(A @ x) + beta·x for a symmetric matrix A (n, n) and a vector x (n,), then returns "
                "torch.norm(y, p) = (Σ|y_i|^p)^(1/p) (p = inf gives max |y_i|) as a 0-d float32 tensor. "
                "A is exactly symmetric in every case (a kernel may rely on it).",
    math=r"y = \alpha A x + \beta x;\quad \mathrm{out} = \lVert y \rVert_p",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="A float32 (n, n), x float32 (n,); output a 0-d float32 tensor",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5, scale="rms"),
                      notes="fp32 throughout (no TF32: matrix-vector products are memory-bound). Summation order "
                            "is free (atomics are allowed); for the 0-d output the RMS-scaled atol amounts to "
                            "a relative 1e-5."),
    flops=lambda call, out: 2.0 * call.args[0].numel() + 4.0 * call.args[1].numel(),
)
