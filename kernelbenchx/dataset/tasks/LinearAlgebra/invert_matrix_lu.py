"""LinearAlgebra/invert_matrix_lu: the inverse of square matrices through an LU factorization."""

import torch

from kernelbenchx.dataset import invariants as inv
from kernelbenchx.dataset.contract import Contract
from kernelbenchx.dataset.deviation import Deviation, Kind
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
    yield "no_pivot", Call(inv.needs_pivoting(8, 8, gen), pivot=False)
    yield "batch", Call(inv.shuffled_rows(inv.well_conditioned(5, 5, gen, batch=(3,)), gen))
    yield "cycle_permutation", Call(torch.eye(4, dtype=f64)[[1, 2, 3, 0]] * 2.0)  # P ≠ Pᵀ
    yield "float32", Call(inv.shuffled_rows(inv.well_conditioned(13, 13, gen, dtype=torch.float32), gen))


def random_cases(gen, mode):
    yield "n64", Call(inv.shuffled_rows(inv.well_conditioned(64, 64, gen, mode), gen))
    yield "n150_no_pivot", Call(inv.needs_pivoting(150, 150, gen, mode), pivot=False)
    pivot = inv.coin(gen)
    yield "batch", Call(inv.needs_pivoting(33, 33, gen, mode, batch=(4,)), pivot=pivot)
    yield "float32_n120", Call(inv.shuffled_rows(inv.well_conditioned(120, 120, gen, mode, torch.float32), gen))


def perf_cases(gen):
    for n in (64, 512, 2048):
        yield f"n{n}", Call(inv.shuffled_rows(inv.well_conditioned(n, n, gen, dtype=torch.float32), gen))


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
        dtypes="A float64 or float32 of shape (*, n, n); output the same shape and dtype",
        tolerance=inv.shown_tolerance(torch.float64, 8.0),
        accumulation="the input dtype",
        # expanded (stride-0) views repeat a row: every matrix becomes singular
        layouts=inv.STRUCTURED_LAYOUTS,
        notes="The inverse is unique and compared elementwise: |X − X_ref| ≤ 8·tol·(RMS(X_ref) + |X_ref|), with "
              f"{inv.tolerance_text()} (the line above is n = 256, float64). Inputs are well-conditioned "
              "(2I + G/√n with rows shuffled; for pivot=False, L0·U0 with well-conditioned factors where "
              "partial pivoting would still swap rows).",
    ),
    flops=flops,
    check=inv.close_check(8.0),
    deviations=(
        Deviation(Kind.UPSTREAM_BUG, "the reference solves L·U·X = P (P from A = P·L·U), which is A⁻¹ only when "
                  "P = Pᵀ; it was wrong on 50 of 50 random 8×8 matrices",
                  "Returns the true inverse U⁻¹·L⁻¹·Pᵀ, as the catalogue describes ('computes the inverse A⁻¹', "
                  "checked there with A @ A_inv ≈ I)",
                  "The task is matrix inversion; reproducing the permutation bug would test a wrong answer.",
                  in_prompt=True),
        Deviation(Kind.COVERAGE, "float64 inputs", "float64 inputs plus float32 cases (the perf dtype)",
                  "the perf cases time float32, so correctness is checked in that dtype too"),
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "|X − X_ref| ≤ 8·tol·(RMS(X_ref) + |X_ref|), tol = 64·√n·ε",
                  "an error bound that scales with the dtype and n, as an inverse's rounding error does"),
        Deviation(Kind.PERF, "float32, n = 64 … 2048 (6 rows)", "float32, n = 64, 512, 2048",
                  "a subset of upstream's rows spanning its range"),
    ),
)
