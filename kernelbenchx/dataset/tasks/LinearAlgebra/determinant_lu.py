"""LinearAlgebra/determinant_lu: the determinant from an LU factorization, with or without partial pivoting."""

import torch

from kernelbenchx.dataset import invariants as inv
from kernelbenchx.dataset.contract import Contract
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task


def reference(A: torch.Tensor, *, pivot: bool = True) -> torch.Tensor:
    # Without pivoting A = L·U and det = ∏ U_ii: the same number, so the pivoted factorization (the only one
    # torch offers on CPU) serves both cases.
    P, L, U = torch.linalg.lu(A)
    sign_p = torch.linalg.det(P)
    return sign_p * torch.diagonal(U, dim1=-2, dim2=-1).prod(-1)


def fixed_cases(gen):
    f64 = torch.float64
    yield "2x2", Call(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    yield "needs_pivot", Call(torch.tensor([[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [3.0, 0.0, 1.0]], dtype=f64))
    yield "permutation", Call(torch.eye(5, dtype=f64)[[3, 0, 4, 1, 2]])
    singular = inv.gaussian((6, 6), gen)
    singular[:, 4] = 0.0
    yield "singular_zero_column", Call(singular)
    yield "no_pivot", Call(inv.needs_pivoting(7, 7, gen), pivot=False)
    yield "batch", Call(inv.shuffled_rows(inv.near_identity(5, gen, batch=(2, 3)), gen))
    yield "1x1", Call(torch.tensor([[-3.0]], dtype=f64))
    yield "float32_no_pivot_batch", Call(inv.needs_pivoting(9, 9, gen, dtype=torch.float32, batch=(2,)), pivot=False)


def random_cases(gen, mode):
    f32 = torch.float32
    yield "n64", Call(inv.shuffled_rows(inv.near_identity(64, gen, mode), gen))
    yield "gaussian_n100", Call(inv.gaussian((100, 100), gen, mode))
    yield "n200_no_pivot", Call(inv.needs_pivoting(200, 200, gen, mode), pivot=False)
    pivot = inv.coin(gen)
    yield "batch", Call(inv.needs_pivoting(33, 33, gen, mode, batch=(4,)), pivot=pivot)
    yield "float32_n150", Call(inv.shuffled_rows(inv.near_identity(150, gen, mode, f32), gen), pivot=True)


def perf_cases(gen):
    for n in (64, 256, 1024):
        yield f"n{n}", Call(inv.shuffled_rows(inv.near_identity(n, gen, dtype=torch.float32), gen))


def flops(call, out):
    n = call.args[0].shape[-1]
    return inv.batch_count(call.args[0]) * inv.lu_flops(n, n)


TASK = Task(
    id="LinearAlgebra/determinant_lu",
    entry="determinant_lu",
    signature="determinant_lu(A: Tensor, *, pivot: bool = True) -> Tensor",
    description="Computes the determinant of a square matrix (or of each matrix of a batch of shape (*, n, n)) "
                "through an LU factorization. With pivot=True (partial pivoting, A = P·L·U) the result is "
                "det(P)·∏ U_ii, where det(P) = ±1 is the sign of the row permutation. With pivot=False the "
                "factorization has no row interchanges (A = L·U) and the result is ∏ U_ii; such inputs have "
                "non-singular leading blocks. A singular matrix (e.g. a zero column) gives exactly 0, not NaN. "
                "Returns a tensor of shape * (0-dimensional for one matrix) with A's dtype. (`out=` is dropped.)",
    math=(r"\det A = \det(P)\prod_{i=1}^{n} U_{ii}\ (\text{pivot}),\qquad \det A ="
          r" \prod_{i=1}^{n} U_{ii}\ (\text{no pivot})"),
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(
        dtypes="A float64 or float32 of shape (*, n, n); output the same dtype, shape *",
        tolerance=inv.shown_tolerance(torch.float64, 16.0, rms=False),
        accumulation="the input dtype",
        # expanded (stride-0) views repeat a row: every matrix becomes singular
        layouts=inv.STRUCTURED_LAYOUTS,
        notes="Determinants are compared with a relative tolerance only: |det − det_ref| ≤ 16·tol·|det_ref|, "
              f"with {inv.tolerance_text()} (the line above is n = 256, float64); a reference of exactly 0 "
              "needs exactly 0. Most pivoted inputs are I + 0.5·G/√n with rows shuffled; one is a plain Gaussian "
              "matrix; pivot=False inputs are L0·U0 with well-conditioned factors where partial pivoting would "
              "still swap rows.",
    ),
    flops=flops,
    check=inv.close_check(16.0, rms=False),
    deviations=(
        Deviation(Kind.COVERAGE, "float64 inputs", "float64 inputs plus float32 cases (the perf dtype)",
                  "the perf cases time float32, so correctness is checked in that dtype too"),
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "relative |det − det_ref| ≤ 16·tol·|det_ref|, tol = 64·√n·ε (exactly 0 for singular inputs)",
                  "a relative bound that scales with the dtype and n, as the rounding of an n-term product does"),
        Deviation(Kind.PERF, "float32, n = 16 … 1024 (7 rows)", "float32, n = 64, 256, 1024",
                  "a subset of upstream's rows spanning its range"),
    ),
)
