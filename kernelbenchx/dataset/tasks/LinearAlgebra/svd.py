"""LinearAlgebra/svd: singular value decomposition A = U·diag(S)·Vh, full or reduced."""

import torch

from kernelbenchx.dataset import invariants as inv
from kernelbenchx.dataset.contract import Contract
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task


def reference(A: torch.Tensor, full_matrices: bool = True) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return tuple(torch.linalg.svd(A, full_matrices=full_matrices))


def fixed_cases(gen):
    f32 = torch.float32
    yield "tall_reduced", Call(inv.gaussian((5, 3), gen, dtype=f32), full_matrices=False)
    yield "tall_full", Call(inv.gaussian((5, 3), gen, dtype=f32))
    yield "wide", Call(inv.gaussian((3, 5), gen, dtype=f32), False)
    yield "diagonal_signs", Call(torch.diag(torch.tensor([2.0, -5.0, 0.5, -1.0])))
    rank2 = inv.gaussian((6, 2), gen, dtype=f32) @ inv.gaussian((2, 4), gen, dtype=f32)
    yield "rank_deficient", Call(rank2)
    yield "zero", Call(torch.zeros(3, 2))
    yield "batch_reduced", Call(inv.gaussian((7, 5, 3), gen, dtype=f32), full_matrices=False)
    yield "1x1", Call(torch.tensor([[-3.0]]))
    # a column near float32's underflow beside a 4×4 block: a singular value of about 1e-41
    yield "tiny_column", Call(inv.tiny_column_block(inv.gaussian((4, 4), gen), 65, gen))
    # every entry far below 1: squares underflow float32, and a column threshold near its underflow skips reflections
    yield "float32_tiny_scale", Call(inv.well_conditioned(6, 4, gen, dtype=torch.float32) * 1e-32)


def random_cases(gen, mode):
    # Sizes stay small: the CPU interpreter that checks kept solutions runs an SVD's sequential Jacobi rounds
    # one by one; the perf cases (up to 256, re-checked on the GPU) cover the large sizes.
    f32 = torch.float32
    yield "40x24_full", Call(inv.gaussian((40, 24), gen, mode, f32))
    yield "20x36_reduced", Call(inv.gaussian((20, 36), gen, mode, f32), full_matrices=False)
    yield "batch_16", Call(inv.gaussian((3, 16, 16), gen, mode, f32), inv.coin(gen))
    yield "rank3_30x20", Call(inv.gaussian((30, 3), gen, mode, f32) @ inv.gaussian((3, 20), gen, mode, f32),
                              full_matrices=inv.coin(gen))


def perf_cases(gen):
    for n in (64, 128, 256):
        yield f"n{n}", Call(inv.gaussian((n, n), gen, dtype=torch.float32))


def flops(call, out):
    a = call.args[0]
    m, n = a.shape[-2:]
    return inv.batch_count(a) * inv.svd_flops(m, n)


TASK = Task(
    id="LinearAlgebra/svd",
    entry="svd",
    signature="svd(A: Tensor, full_matrices: bool = True) -> tuple[Tensor, Tensor, Tensor]",
    description="Computes the singular value decomposition A = U·diag(S)·Vh of a real m×n matrix (or of each "
                "matrix of a batch of shape (*, m, n)), k = min(m, n). Returns (U, S, Vh): S of shape (*, k) with "
                "the singular values, non-negative and in descending order; with full_matrices=True U is (*, m, m) "
                "and Vh is (*, n, n), both orthogonal; with full_matrices=False U is (*, m, k) and Vh is (*, k, n) "
                "with orthonormal columns / rows. All outputs have A's dtype. Singular vectors are unique only up "
                "to sign (and rotations within repeated or zero singular values); any valid choice is accepted. "
                "(torch.linalg.svd; the cuSOLVER `driver` and `out=` arguments are dropped.)",
    math=(r"A = U \operatorname{diag}(S) V^{\mathsf H},\quad U^{\mathsf H} U = I,"
          r"\ V^{\mathsf H} V = I,\ S_1 \ge \dots \ge S_k \ge 0"),
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(
        dtypes="A float32 of shape (*, m, n); U, S, Vh float32",
        tolerance=inv.shown_tolerance(torch.float32, inv.SVD_FACTOR),
        notes="The Tolerance line above (tol at n = 256) is not applied elementwise: this is "
              "judged as a decomposition (signs and bases are free): outputs must be finite with "
              "the reference's shapes and dtypes; S non-negative, sorted descending and within tol·S_max of the "
              "reference's singular values; ‖UᵀU − I‖_F/√(cols) ≤ tol and ‖Vh·Vhᵀ − I‖_F/√(rows) ≤ tol; and "
              "U[:, :k]·diag(S)·Vh[:k] must rebuild A with ‖rebuilt − A‖_F ≤ tol·‖A‖_F, where "
              f"{inv.tolerance_text(inv.SVD_FACTOR)}, loose enough for cuSOLVER's own float32 SVD.",
    ),
    flops=flops,
    check=inv.svd_check,
    deviations=(
        Deviation(Kind.SATISFIABLE, "U, S, Vh compared with torch's elementwise (rtol = atol = 1e-5)",
                  "S sorted, non-negative and equal to torch's within tol·S_max; U and Vh orthonormal and "
                  "U·diag(S)·Vh = A within tol·‖A‖_F, tol = 8·64·√n·ε",
                  "singular vectors are unique only up to sign (and rotations within repeated or zero singular "
                  "values), so only a kernel reproducing cuSOLVER's sign choices could pass upstream's check"),
        Deviation(Kind.PERF, "float32, n = 16 … 256 square (5 rows)", "float32, n = 64, 128, 256",
                  "a subset of upstream's rows; below n = 64 the timing is launch overhead"),
    ),
)
