"""LinearAlgebra/invert_matrix_lu: the inverse of square matrices through an LU factorization."""

import torch

from kernelbenchx.dataset import invariants as inv
from kernelbenchx.dataset.contract import Contract
from kernelbenchx.dataset.task import Call, Task


def reference(A: torch.Tensor, *, pivot: bool = True) -> torch.Tensor:
    # The inverse is unique: A = P·L·U gives A⁻¹ = U⁻¹·L⁻¹·Pᵀ, and A = L·U (pivot=False) gives U⁻¹·L⁻¹.
    LU, pivots = torch.linalg.lu_factor(A)
    eye = torch.eye(A.shape[-1], dtype=A.dtype, device=A.device).expand_as(A)
    return torch.linalg.lu_solve(LU, pivots, eye)


def fixed_cases(gen):
    f64 = torch.float64
    yield "example", Call(torch.tensor([[3.0, 0.0, 2.0], [2.0, 0.0, -2.0], [0.0, 1.0, 1.0]]))
    yield "2x2", Call(torch.tensor([[4.0, 7.0], [2.0, 6.0]], dtype=f64))
    yield "permutation", Call(torch.eye(6, dtype=f64)[[2, 5, 0, 1, 4, 3]])
    yield "1x1", Call(torch.tensor([[-0.5]], dtype=f64))
    yield "no_pivot", Call(inv.near_identity(8, gen), pivot=False)
    yield "batch", Call(inv.shuffled_rows(inv.well_conditioned(5, 5, gen, batch=(3,)), gen))


def random_cases(gen, mode):
    yield "n64", Call(inv.shuffled_rows(inv.well_conditioned(64, 64, gen, mode), gen))
    yield "n150_no_pivot", Call(inv.near_identity(150, gen, mode), pivot=False)
    yield "batch", Call(inv.shuffled_rows(inv.well_conditioned(33, 33, gen, mode, batch=(4,)), gen))


def perf_cases(gen):
    for n in (64, 512, 2048):
        yield f"n{n}", Call(inv.shuffled_rows(inv.well_conditioned(n, n, gen), gen))


def flops(call, out):
    n = call.args[0].shape[-1]
    return inv.batch_count(call.args[0]) * 2.0 * n ** 3  # LU (2n³/3) + inverting the factors (4n³/3)


TASK = Task(
    id="LinearAlgebra/invert_matrix_lu",
    entry="invert_matrix_lu",
    signature="invert_matrix_lu(A: Tensor, *, pivot: bool = True) -> Tensor",
    description="Computes the inverse of a square invertible matrix (or of each matrix of a batch of shape "
                "(*, n, n)) through an LU factorization: with pivot=True (partial pivoting) A = P·L·U and "
                "A⁻¹ = U⁻¹·L⁻¹·Pᵀ; with pivot=False the factorization has no row interchanges, A = L·U and "
                "A⁻¹ = U⁻¹·L⁻¹ (such inputs have non-singular leading blocks). Either way the result is the "
                "unique inverse. Returns a tensor of A's shape and dtype. (`out=` is dropped.)",
    math=r"A = PLU,\qquad A^{-1} = U^{-1} L^{-1} P^{\mathsf T}",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(
        dtypes="A float64 (one stage-1 case float32) of shape (*, n, n); output the same shape and dtype",
        tolerance=inv.shown_tolerance(torch.float64, 8.0),
        accumulation="the input dtype",
        notes="The inverse is unique and compared elementwise: |X − X_ref| ≤ 8·tol·(RMS(X_ref) + |X_ref|), with "
              f"{inv.tolerance_text()} (the line above is n = 256). Inputs are well-conditioned "
              "(2I + G/√n with rows shuffled, or I + 0.5·G/√n for pivot=False).",
    ),
    flops=flops,
    unit="fp64",
    check=inv.close_check(8.0),
)
