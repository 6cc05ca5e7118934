"""LinearAlgebra/cholesky_solve: solve A·X = B given the Cholesky factor of A."""

import torch

from kernelbenchx.dataset import invariants as inv
from kernelbenchx.dataset.contract import Contract
from kernelbenchx.dataset.task import Call, Task


def reference(B: torch.Tensor, L: torch.Tensor, upper: bool = False) -> torch.Tensor:
    return torch.cholesky_solve(B, L, upper=upper)


def fixed_cases(gen):
    f64 = torch.float64
    yield "2x2", Call(torch.tensor([[1.0], [2.0]], dtype=f64), torch.tensor([[2.0, 0.0], [1.0, 3.0]], dtype=f64))
    yield "identity", Call(inv.gaussian((4, 3), gen), torch.eye(4, dtype=f64))
    yield "upper", Call(inv.gaussian((9, 2), gen), inv.cholesky_factor(9, gen, upper=True), True)
    yield "upper_keyword", Call(inv.gaussian((6, 1), gen), inv.cholesky_factor(6, gen, upper=True), upper=True)
    yield "batch", Call(inv.gaussian((3, 5, 2), gen), inv.cholesky_factor(5, gen, batch=(3,)))
    yield "broadcast_L", Call(inv.gaussian((2, 7, 3), gen), inv.cholesky_factor(7, gen))
    yield "float32", Call(inv.gaussian((17, 4), gen, dtype=torch.float32),
                          inv.cholesky_factor(17, gen, dtype=torch.float32))


def random_cases(gen, mode):
    yield "n128_k10", Call(inv.gaussian((128, 10), gen, mode), inv.cholesky_factor(128, gen, mode))
    yield "n200_k3_upper", Call(inv.gaussian((200, 3), gen, mode), inv.cholesky_factor(200, gen, mode, upper=True),
                                True)
    yield "batch", Call(inv.gaussian((4, 48, 7), gen, mode), inv.cholesky_factor(48, gen, mode, batch=(4,)))


def perf_cases(gen):
    for n in (256, 4096, 8192):
        yield f"n{n}_k10", Call(inv.gaussian((n, 10), gen), inv.cholesky_factor(n, gen))


def flops(call, out):
    n = call.args[1].shape[-1]
    return 2.0 * n * out.numel()  # two triangular solves, n² per right-hand side each


TASK = Task(
    id="LinearAlgebra/cholesky_solve",
    entry="cholesky_solve",
    signature="cholesky_solve(B: Tensor, L: Tensor, upper: bool = False) -> Tensor",
    description="Solves A·X = B for X, where A = L·Lᵀ is symmetric positive definite and only its Cholesky factor "
                "is given: L of shape (*, n, n) is lower triangular (upper=False, A = L·Lᵀ) or upper triangular "
                "(upper=True, A = Lᵀ·L); only that triangle of L is read. B has shape (*, n, k); batch dimensions "
                "of B and L broadcast. Returns X with the broadcast batch shape, n×k matrices, and B's dtype. "
                "(torch.cholesky_solve; `out=` is dropped.)",
    math=r"X = (L L^{\mathsf T})^{-1} B \;\text{(lower)},\qquad X = (U^{\mathsf T} U)^{-1} B \;\text{(upper)}",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(
        dtypes="B and L float64 (one stage-1 case float32), same dtype; output the same dtype",
        tolerance=inv.shown_tolerance(torch.float64, 8.0),
        accumulation="the input dtype",
        notes="The solution is unique and compared elementwise: |X − X_ref| ≤ 8·tol·(RMS(X_ref) + |X_ref|), "
              f"with {inv.tolerance_text()} (the line above is n = 256). L is the Cholesky factor of a "
              "well-conditioned matrix (eigenvalues in about [1, 5]).",
    ),
    flops=flops,
    unit="fp64",
    check=inv.close_check(8.0),
)
