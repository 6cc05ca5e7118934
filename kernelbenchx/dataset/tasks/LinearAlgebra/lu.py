"""LinearAlgebra/lu: LU factorization A = P·L·U with partial pivoting (or A = L·U without)."""

import torch

from kernelbenchx.dataset import invariants as inv
from kernelbenchx.dataset.contract import Contract
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task


def reference(A: torch.Tensor, *, pivot: bool = True) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    if pivot:
        return tuple(torch.linalg.lu(A))
    return (A.new_empty(0), *lu_no_pivot(A))  # torch has no CPU kernel for pivot=False; same result as on CUDA


def lu_no_pivot(A: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    m, n = A.shape[-2:]
    k = min(m, n)
    w = A.clone()
    for j in range(k):
        w[..., j + 1:, j] = w[..., j + 1:, j] / w[..., j:j + 1, j]
        w[..., j + 1:, j + 1:] -= w[..., j + 1:, j:j + 1] * w[..., j:j + 1, j + 1:]
    eye = torch.eye(m, k, dtype=A.dtype, device=A.device)
    return torch.tril(w[..., :, :k], -1) + eye, torch.triu(w[..., :k, :])


def fixed_cases(gen):
    f64 = torch.float64
    yield "2x2", Call(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    yield "3x3", Call(torch.tensor([[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [3.0, 0.0, 1.0]], dtype=f64))
    yield "tall", Call(inv.gaussian((5, 3), gen))
    yield "wide", Call(inv.gaussian((3, 5), gen))
    yield "no_pivot_wide", Call(inv.needs_pivoting(2, 3, gen), pivot=False)
    yield "no_pivot_tall", Call(inv.needs_pivoting(7, 4, gen), pivot=False)
    yield "batch_2x2", Call(inv.gaussian((4, 2, 2), gen))
    singular = inv.gaussian((6, 6), gen)
    singular[:, 1] = 0.0
    yield "singular_zero_column", Call(singular)
    yield "1x1", Call(torch.tensor([[-7.0]], dtype=f64))
    yield "float32", Call(inv.gaussian((9, 9), gen, dtype=torch.float32))


def random_cases(gen, mode):
    yield "n96", Call(inv.gaussian((96, 96), gen, mode))
    yield "tall_150x70", Call(inv.gaussian((150, 70), gen, mode))
    yield "no_pivot_60x90", Call(inv.needs_pivoting(60, 90, gen, mode), pivot=False)
    pivot = inv.coin(gen)
    yield "batch", Call(inv.needs_pivoting(40, 40, gen, mode, batch=(4,)) if not pivot
                        else inv.gaussian((4, 40, 40), gen, mode), pivot=pivot)
    yield "float32_n200", Call(inv.gaussian((200, 200), gen, mode, torch.float32))
    yield "float32_no_pivot_130x100", Call(inv.needs_pivoting(130, 100, gen, mode, torch.float32), pivot=False)


def perf_cases(gen):
    for n in (256, 768, 1536):
        yield f"n{n}", Call(inv.gaussian((n, n), gen, dtype=torch.float32))


def flops(call, out):
    m, n = call.args[0].shape[-2:]
    return inv.batch_count(call.args[0]) * inv.lu_flops(m, n)


TASK = Task(
    id="LinearAlgebra/lu",
    entry="lu",
    signature="lu(A: Tensor, *, pivot: bool = True) -> tuple[Tensor, Tensor, Tensor]",
    description="Computes the LU factorization of a real m×n matrix (or of each matrix of a batch of shape "
                "(*, m, n)), k = min(m, n). With pivot=True (partial pivoting: at each step the row with the "
                "largest |entry| in the current column becomes the pivot row) returns (P, L, U) with A = P·L·U: "
                "P of shape (*, m, m) a permutation matrix in A's dtype, L of shape (*, m, k) lower triangular with "
                "unit diagonal, U of shape (*, k, n) upper triangular. With pivot=False no rows are interchanged, "
                "A = L·U, and P is an empty tensor of shape (0,) (such inputs have non-singular leading blocks, though "
                "partial pivoting would interchange rows on them). "
                "A zero pivot column (singular A) is skipped, not divided by: the factorization still exists. "
                "(torch.linalg.lu; `out=` is dropped.)",
    math=r"A = P L U,\quad L_{ii} = 1,\ |L_{ij}| \le 1,\quad U \text{ upper triangular}",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(
        dtypes="A float64 or float32 of shape (*, m, n); P, L, U in A's dtype",
        tolerance=inv.shown_tolerance(torch.float64),
        accumulation="the input dtype",
        # expanded (stride-0) views repeat a row: pivot=False inputs would get zero pivots
        layouts=inv.STRUCTURED_LAYOUTS,
        notes="The Tolerance line above (tol at n = 256) is not applied elementwise: this is "
              "judged as a factorization (pivot tie-breaking is free): every output must be "
              "finite with the reference's shape and dtype; P must be a permutation matrix (exact 0/1 entries); "
              "L exactly zero above and exactly 1 on the diagonal, with |L_ij| ≤ 1 + tol under pivoting; U "
              "exactly zero below the diagonal; and P·L·U (L·U) must rebuild A with ‖rebuilt − A‖_F ≤ tol·‖A‖_F, "
              f"where {inv.tolerance_text()}.",
    ),
    flops=flops,
    check=inv.lu_check,
    deviations=(
        Deviation(Kind.COVERAGE, "float64 inputs", "float64 inputs plus float32 cases (the perf dtype); "
                  "pivot=False inputs on which partial pivoting would swap rows",
                  "the perf cases time float32; a kernel that pivots when told not to must fail"),
        Deviation(Kind.TOLERANCE, "P, L, U compared with torch's elementwise (rtol = atol = 1e-5)",
                  "P a permutation matrix, L unit lower (|L_ij| ≤ 1 + tol under pivoting), U upper, and P·L·U "
                  "rebuilds A within tol·‖A‖_F, tol = 64·√n·ε",
                  "pivot ties (and singular columns) may be broken either way; judging the factorization "
                  "accepts every correct choice"),
        Deviation(Kind.PERF, "float32, n = 256 … 1536 (11 rows)", "float32, n = 256, 768, 1536",
                  "a subset of upstream's rows spanning its range"),
    ),
)
