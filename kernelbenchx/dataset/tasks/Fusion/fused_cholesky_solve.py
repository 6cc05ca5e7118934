"""Fusion/fused_cholesky_solve: Cholesky-factorize an SPD matrix and solve A·x = b with the factor."""

import torch

from kernelbenchx.dataset import invariants as inv
from kernelbenchx.dataset.contract import Contract
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task


def reference(A: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    L = torch.linalg.cholesky(A)
    return torch.cholesky_solve(b, L)


def fixed_cases(gen):
    f32 = torch.float32
    yield "example", Call(torch.tensor([[4.0, 1.0], [1.0, 3.0]]), torch.tensor([[1.0], [2.0]]))
    yield "1x1", Call(torch.tensor([[4.0]]), torch.tensor([[2.0, -6.0]]))
    yield "diagonal", Call(torch.diag(torch.tensor([1.0, 4.0, 0.25, 9.0])), inv.gaussian((4, 2), gen, dtype=f32))
    yield "n33_k5", Call(inv.spd(33, gen, dtype=f32), inv.gaussian((33, 5), gen, dtype=f32))
    yield "scaled", Call(inv.spd(10, gen, dtype=f32) * 1e3, inv.gaussian((10, 1), gen, dtype=f32))


def random_cases(gen, mode):
    f32 = torch.float32
    yield "n128_k1", Call(inv.spd(128, gen, mode, f32), inv.gaussian((128, 1), gen, mode, f32))
    yield "n257_k5", Call(inv.spd(257, gen, mode, f32), inv.gaussian((257, 5), gen, mode, f32))
    yield "n64_k16", Call(inv.spd(64, gen, mode, f32), inv.gaussian((64, 16), gen, mode, f32))


def perf_cases(gen):
    f32 = torch.float32
    for n in (64, 256, 512):
        yield f"n{n}_k1", Call(inv.spd(n, gen, dtype=f32), inv.gaussian((n, 1), gen, dtype=f32))


def flops(call, out):
    n = call.args[0].shape[-1]
    return n ** 3 / 3 + 2.0 * n * out.numel()


TASK = Task(
    id="Fusion/fused_cholesky_solve",
    entry="fused_cholesky_solve",
    signature="fused_cholesky_solve(A: Tensor, b: Tensor) -> Tensor",
    description="Solves A·x = b for a symmetric positive-definite A of shape (n, n): factor A = L·Lᵀ (Cholesky, L "
                "lower triangular with positive diagonal), then solve L·y = b and Lᵀ·x = y. b has shape (n, k). "
                "Returns x of shape (n, k) in b's dtype.",
    math=r"A = L L^{\mathsf T},\qquad x = L^{-\mathsf T} L^{-1} b",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(
        dtypes="A float32 (n, n) and b float32 (n, k); output float32 (n, k)",
        tolerance=inv.shown_tolerance(torch.float32, 8.0),
        notes="The solution is unique and compared elementwise: |x − x_ref| ≤ 8·tol·(RMS(x_ref) + |x_ref|), with "
              f"{inv.tolerance_text()} (the line above is n = 256). A = G·Gᵀ/n + I (eigenvalues in about "
              "[1, 5]).",
        # An expanded (stride-0) A repeats one row: singular, not positive definite.
        layouts=("transposed", "sliced", "strided", "offset"),
    ),
    flops=flops,
    check=inv.close_check(8.0),
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "|x − x_ref| ≤ 8·tol·(RMS(x_ref) + |x_ref|) with tol = 64·√n·ε",
                  "the solution's rounding error grows with n and A's condition number (about 5 here); the scaled "
                  "bound follows that growth, as the LinearAlgebra tasks' do, and still rejects a wrong factor"),
        Deviation(Kind.PERF, "8 sizes, n = 4 … 512 with one right-hand side", "n = 64, 256 and 512",
                  "three of upstream's sizes, its largest included; below n = 64 the call is pure launch "
                  "overhead"),
    ),
)
