"""LinearAlgebra/determinant_via_qr: the determinant from a QR factorization, det(Q)·∏ R_ii."""

import torch

from kernelbenchx.dataset import invariants as inv
from kernelbenchx.dataset.contract import Contract
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task


def reference(A: torch.Tensor, *, mode: str = "reduced") -> torch.Tensor:
    Q, R = torch.linalg.qr(A, mode=mode)
    # the product of R's diagonal in float64: in the input dtype its running product can overflow in one
    # device's summation order and not in another's (float32, n = 8192: -inf on the CPU, finite on CUDA)
    diagonal = torch.diagonal(R, dim1=-2, dim2=-1).double().prod(-1)
    return (torch.det(Q).double() * diagonal).to(A.dtype)


def subnormal_column(n, gen):
    """float32 I + 0.5·G/√n whose column 0 is subnormal (1e-39 on the diagonal, ±1.4e-45 below it: they move the
    determinant by about 1e-5 relative) and column 1 scaled by 1e30, so that det ≈ 1e-9 stays normal: 1/max|column|
    overflows to inf in float32, so a Householder step must not scale column 0 by it. n = 65 fills exactly one
    64-row block below the diagonal."""
    a = inv.near_identity(n, gen)
    signs = torch.rand(n - 1, generator=gen, dtype=torch.float64, device=gen.device) < 0.5
    a[1:, 0] = torch.where(signs, -1e-45, 1e-45)
    a[0, 0] = 1e-39
    a[:, 1] *= 1e30
    return a.float()


def fixed_cases(gen):
    f64 = torch.float64
    yield "example", Call(torch.tensor([[2.0, -2.0, 18.0], [2.0, 1.0, 0.0], [1.0, 2.0, 0.0]]))
    yield "1x1", Call(torch.tensor([[-4.0]], dtype=f64))
    yield "swap", Call(torch.tensor([[0.0, 1.0], [1.0, 0.0]], dtype=f64))
    singular = inv.gaussian((6, 6), gen)
    singular[:, 3] = 0.0
    yield "singular_zero_column", Call(singular)
    yield "complete", Call(inv.near_identity(8, gen), mode="complete")
    yield "batch", Call(inv.shuffled_rows(inv.near_identity(4, gen, batch=(3,)), gen))
    yield "float32", Call(inv.shuffled_rows(inv.near_identity(11, gen, dtype=torch.float32), gen))
    yield "float32_subnormal_column", Call(subnormal_column(65, gen))
    # columns of tiny but nonzero entries need their reflection: a kernel treating a column below a threshold
    # (1e-30, 1e-290) as zero returned 2e-31 here
    yield "tiny_column_float32", Call(torch.tensor([[1e-31, 1.0], [1e-31, 2.0]]))
    yield "tiny_column_float64", Call(torch.tensor([[1e-300, 1.0], [1e-300, 2.0]], dtype=f64))


def random_cases(gen, mode):
    def qr_mode():
        return "complete" if inv.coin(gen) else "reduced"

    yield "n64", Call(inv.shuffled_rows(inv.near_identity(64, gen, mode), gen), mode=qr_mode())
    yield "gaussian_n90", Call(inv.gaussian((90, 90), gen, mode))
    yield "batch_complete", Call(inv.near_identity(33, gen, mode, batch=(4,)), mode="complete")
    yield "float32_n160", Call(inv.shuffled_rows(inv.near_identity(160, gen, mode, torch.float32), gen),
                               mode=qr_mode())


def perf_cases(gen):
    for n in (64, 1024, 8192):
        yield f"n{n}", Call(inv.shuffled_rows(inv.near_identity(n, gen, dtype=torch.float32), gen))


def flops(call, out):
    n = call.args[0].shape[-1]
    return inv.batch_count(call.args[0]) * inv.qr_flops(n, n, form_q=False)


TASK = Task(
    id="LinearAlgebra/determinant_via_qr",
    entry="determinant_via_qr",
    signature="determinant_via_qr(A: Tensor, *, mode: str = 'reduced') -> Tensor",
    description="Computes the determinant of a real square matrix (or of each matrix of a batch of shape "
                "(*, n, n)) from its QR factorization A = Q·R: det(A) = det(Q)·∏ R_ii, where det(Q) = ±1 for "
                "real orthogonal Q (with Householder reflections, (−1) per non-trivial reflection). `mode` is "
                "'reduced' or 'complete' (identical for square matrices; 'r' is not supported). A singular matrix "
                "(e.g. a zero column) gives exactly 0, not NaN. Returns a tensor of shape * (0-dimensional for one "
                "matrix) with A's dtype. (`out=` is dropped.)",
    math=r"A = QR,\qquad \det A = \det(Q)\prod_{i=1}^{n} R_{ii},\quad \det Q = \pm 1",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(
        dtypes="A float64 or float32 of shape (*, n, n); output the same dtype, shape *",
        tolerance=inv.shown_tolerance(torch.float64, 16.0, rms=False),
        accumulation="the input dtype",
        # expanded (stride-0) views repeat a row: every matrix becomes singular, its determinant rounding noise
        layouts=inv.STRUCTURED_LAYOUTS,
        notes="Determinants are compared with a relative tolerance only: |det − det_ref| ≤ 16·tol·|det_ref|, "
              f"with {inv.tolerance_text()} (the line above is n = 256, float64); a reference of exactly 0 needs exactly "
              "0. Most inputs are I + 0.5·G/√n with rows shuffled; one is a plain Gaussian matrix.",
    ),
    flops=flops,
    check=inv.close_check(16.0, rms=False),
    choices={"mode": ("reduced", "complete")},
    deviations=(
        Deviation(Kind.COVERAGE, "float64 inputs; mode 'r' accepted by the signature",
                  "float64 plus float32 cases (the perf dtype); mode is 'reduced' or 'complete'",
                  "the perf cases time float32; mode='r' returns no Q, so upstream's reference itself fails on it"),
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "relative |det − det_ref| ≤ 16·tol·|det_ref|, tol = 64·√n·ε (exactly 0 for singular inputs)",
                  "a relative bound that scales with the dtype and n, as the rounding of an n-term product does"),
        Deviation(Kind.PERF, "float32, n = 16 … 8192 (10 rows)", "float32, n = 64, 1024, 8192",
                  "a subset of upstream's rows spanning its range"),
    ),
)
