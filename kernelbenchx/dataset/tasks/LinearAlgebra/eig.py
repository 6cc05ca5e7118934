"""LinearAlgebra/eig: eigenvalues and unit-norm eigenvectors of general (non-symmetric) real matrices."""

import torch

from kernelbenchx.dataset import invariants as inv
from kernelbenchx.dataset.contract import Contract
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task


def reference(A: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return tuple(torch.linalg.eig(A))


def fixed_cases(gen):
    f64 = torch.float64
    yield "diagonal", Call(torch.tensor([[2.0, 0.0], [0.0, 3.0]]))
    yield "repeated", Call(torch.eye(2, dtype=f64))
    yield "rotation", Call(torch.tensor([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]], dtype=f64))
    yield "symmetric", Call(torch.tensor([[4.0, 1.0, 0.0], [1.0, 4.0, 0.0], [0.0, 0.0, 5.0]], dtype=f64))
    yield "triangular", Call(torch.tensor([[1.0, 5.0, -2.0], [0.0, -3.0, 4.0], [0.0, 0.0, 2.0]], dtype=f64))
    yield "1x1", Call(torch.tensor([[-1.5]], dtype=f64))
    yield "general", Call(inv.diagonalizable(7, gen))
    yield "batch", Call(inv.diagonalizable(5, gen, batch=(2,)))
    yield "float32", Call(inv.diagonalizable(6, gen, dtype=torch.float32))
    # one batch, two matrices 180 decades apart: each matrix's Householder scaling must see only its own
    # column (a read one row past matrix 0 picks up matrix 1's 1e90 entries and underflows every square)
    scales = torch.tensor([1e-90, 1e90], dtype=f64, device=gen.device).view(2, 1, 1)
    yield "batch_scales", Call(inv.diagonalizable(5, gen, batch=(2,)) * scales)


def random_cases(gen, mode):
    # Sizes stay small: the CPU interpreter that checks kept solutions runs the QR iteration's bulge chasing
    # (a chain of dependent 3×3 reflectors) step by step; the perf cases (up to 1024, re-checked on the GPU
    # after timing) cover the large sizes.
    yield "symmetric_n10", Call(inv.diagonalizable(10, gen, mode, symmetric=True))
    yield "general_n16", Call(inv.diagonalizable(16, gen, mode))
    yield "batch", Call(inv.diagonalizable(6, gen, mode, batch=(2,)))
    yield "float32_n9", Call(inv.diagonalizable(9, gen, mode, torch.float32))


def perf_cases(gen):
    for n in (64, 256, 1024):
        yield f"n{n}", Call(inv.diagonalizable(n, gen, dtype=torch.float32))


def flops(call, out):
    n = call.args[0].shape[-1]
    return inv.batch_count(call.args[0]) * 25.0 * n ** 3  # Hessenberg QR with Schur vectors, then eigenvectors


TASK = Task(
    id="LinearAlgebra/eig",
    entry="eig",
    signature="eig(A: Tensor) -> tuple[Tensor, Tensor]",
    description="Computes the eigendecomposition A = V·diag(Λ)·V⁻¹ of a real square matrix (or of each matrix of a "
                "batch of shape (*, n, n)); A need not be symmetric, so eigenvalues and eigenvectors may be "
                "complex (real matrices give conjugate pairs). Returns (eigenvalues, eigenvectors): eigenvalues of "
                "shape (*, n) and eigenvectors of shape (*, n, n) whose column j is the eigenvector of eigenvalue "
                "j, normalized to Euclidean norm 1; both are complex (complex128 for float64 input, complex64 for "
                "float32) even when the values happen to be real. Any order of the eigenvalues and any phase of "
                "each eigenvector is accepted. (torch.linalg.eig; `out=` is dropped.)",
    math=(r"A V = V \operatorname{diag}(\Lambda),\qquad \|v_j\|_2 = 1,\quad V \in"
          r" \mathbb{C}^{n\times n},\ \Lambda \in \mathbb{C}^{n}"),
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(
        dtypes="A float64 or float32 of shape (*, n, n); outputs complex128 (complex64 for float32 input) of "
               "shapes (*, n) and (*, n, n)",
        tolerance=inv.shown_tolerance(torch.float64),
        accumulation="the input dtype",
        # expanded (stride-0) views repeat a row: a rank-1 matrix whose zero eigenvalue is defective
        layouts=inv.STRUCTURED_LAYOUTS,
        notes="The Tolerance line above (tol at n = 256) is not applied elementwise: this is "
              "judged as a decomposition (order and phases are free): the eigenvalues must "
              "equal the reference's as a multiset, each within 16·tol·‖A‖_F of a distinct reference eigenvalue; "
              "every eigenvector column must have norm 1 within tol and residual ‖A·v − λ·v‖₂ ≤ tol·‖A‖_F; the "
              "eigenvectors must be linearly independent (smallest singular value of V at least 1% of the "
              f"reference's). Here {inv.tolerance_text()}. Test matrices are V·B·V⁻¹ with well-conditioned V and "
              "well-separated eigenvalues (about a quarter in complex-conjugate pairs), or symmetric.",
    ),
    flops=flops,
    check=inv.eig_check,
    deviations=(
        Deviation(Kind.SATISFIABLE, "eigenvalues and eigenvectors compared with torch's elementwise (complex "
                  "outputs exactly)", "eigenvalues as a multiset within 16·tol·‖A‖_F; unit-norm eigenvectors "
                  "with residual ‖Av − λv‖ ≤ tol·‖A‖_F, linearly independent; tol = 64·√n·ε",
                  "eigenvalue order and eigenvector phases are not unique, so only a kernel reproducing "
                  "LAPACK's choices bit for bit could pass upstream's check"),
        Deviation(Kind.COVERAGE, "float64 inputs", "float64 inputs plus float32 cases (the perf dtype)",
                  "the perf cases time float32, so correctness is checked in that dtype too"),
        Deviation(Kind.PERF, "float32, n = 64 … 1024 (5 rows)", "float32, n = 64, 256, 1024",
                  "a subset of upstream's rows spanning its range"),
    ),
)
