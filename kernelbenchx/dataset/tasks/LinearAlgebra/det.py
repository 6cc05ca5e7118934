"""LinearAlgebra/det: the determinant of square matrices."""

import torch

from kernelbenchx.dataset import invariants as inv
from kernelbenchx.dataset.contract import Contract
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task


def reference(A: torch.Tensor) -> torch.Tensor:
    return torch.linalg.det(A)


def fixed_cases(gen):
    yield "2x2", Call(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    yield "1x1", Call(torch.tensor([[-2.5]]))
    yield "needs_pivot", Call(torch.tensor([[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [3.0, 0.0, 1.0]]))
    yield "swap", Call(torch.tensor([[0.0, 1.0], [1.0, 0.0]]))
    singular = inv.gaussian((5, 5), gen, dtype=torch.float32)
    singular[:, 2] = 0.0
    yield "singular_zero_column", Call(singular)
    yield "triangular", Call(torch.triu(inv.near_identity(9, gen, dtype=torch.float32)))
    yield "batch", Call(inv.near_identity(6, gen, dtype=torch.float32, batch=(2, 3)))
    yield "scaled", Call(inv.near_identity(8, gen, dtype=torch.float32) * 10.0)


def random_cases(gen, mode):
    f32 = torch.float32
    yield "n64", Call(inv.shuffled_rows(inv.near_identity(64, gen, mode, f32), gen))
    yield "batch", Call(inv.shuffled_rows(inv.near_identity(17, gen, mode, f32, batch=(8,)), gen))
    yield "n250", Call(inv.shuffled_rows(inv.near_identity(250, gen, mode, f32), gen))


def perf_cases(gen):
    for n in (64, 1024, 8192):
        yield f"n{n}", Call(inv.shuffled_rows(inv.near_identity(n, gen, dtype=torch.float32), gen))


def flops(call, out):
    n = call.args[0].shape[-1]
    return inv.batch_count(call.args[0]) * inv.lu_flops(n, n)


TASK = Task(
    id="LinearAlgebra/det",
    entry="det",
    signature="det(A: Tensor) -> Tensor",
    description="Returns the determinant of a square matrix, or of each matrix of a batch of shape (*, n, n). "
                "The result has shape * (a 0-dimensional tensor for a single matrix) and A's dtype. A singular "
                "matrix (e.g. with a zero column) has determinant exactly 0, not NaN. The usual route is LU "
                "factorization with partial pivoting: det = (−1)^(number of row swaps)·∏ U_ii. "
                "(torch.linalg.det; `out=` is dropped.)",
    math=r"\det A = \operatorname{sign}(P)\prod_i U_{ii},\quad A = PLU",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(
        dtypes="A float32 of shape (*, n, n); output float32 of shape *",
        tolerance=inv.shown_tolerance(torch.float32, 4.0, rms=False),
        # expanded (stride-0) views repeat a row: every matrix becomes singular
        layouts=inv.STRUCTURED_LAYOUTS,
        notes="Determinants are compared with a relative tolerance only: |det − det_ref| ≤ 4·tol·|det_ref|, "
              f"with {inv.tolerance_text()} (the line above is n = 256); a reference of exactly 0 needs exactly "
              "0. Inputs are I + 0.5·G/√n with rows shuffled (well-conditioned, |det| of order 1, pivoting needed).",
    ),
    flops=flops,
    check=inv.close_check(4.0, rms=False),
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5 (on .item() values)",
                  "relative |det − det_ref| ≤ 4·tol·|det_ref|, tol = 64·√n·ε (exactly 0 for singular inputs)",
                  "a float32 determinant of a 250×250 matrix carries a relative rounding error near 1e-5 in any "
                  "order of operations, so a fixed 1e-5 rejects correct kernels by chance; the bound scales with n"),
        Deviation(Kind.PERF, "float32, n = 16 … 8192 (10 rows)", "float32, n = 64, 1024, 8192",
                  "a subset of upstream's rows spanning its range"),
    ),
)
