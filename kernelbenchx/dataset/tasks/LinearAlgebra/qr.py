"""LinearAlgebra/qr: QR factorization A = Q·R in reduced, complete or R-only mode."""

import torch

from kernelbenchx.dataset import invariants as inv
from kernelbenchx.dataset.contract import Contract
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task


def reference(A: torch.Tensor, mode: str = "reduced") -> tuple[torch.Tensor, torch.Tensor]:
    return tuple(torch.linalg.qr(A, mode=mode))


def fixed_cases(gen):
    yield "example", Call(torch.tensor([[12.0, -51.0, 4.0], [6.0, 167.0, -68.0], [-4.0, 24.0, -41.0]]))
    yield "r_only", Call(torch.tensor([[12.0, -51.0, 4.0], [6.0, 167.0, -68.0], [-4.0, 24.0, -41.0]],
                                      dtype=torch.float64), mode="r")
    yield "tall_complete", Call(inv.well_conditioned(5, 3, gen), "complete")
    yield "wide", Call(inv.well_conditioned(3, 5, gen))
    yield "batch_complete", Call(inv.gaussian((3, 4, 5), gen), mode="complete")
    yield "1x1_negative", Call(torch.tensor([[-2.0]], dtype=torch.float64))
    yield "column", Call(inv.gaussian((6, 1), gen))
    yield "upper_triangular", Call(torch.triu(inv.well_conditioned(4, 4, gen)))
    yield "float32_tall", Call(inv.well_conditioned(12, 7, gen, dtype=torch.float32))
    # a well-conditioned matrix of tiny entries: a kernel treating columns below a threshold (1e-30) as zero
    # skips their reflections and Q·R no longer rebuilds A
    yield "float32_tiny_scale", Call(inv.well_conditioned(6, 4, gen, dtype=torch.float32) * 1e-32)


def random_cases(gen, mode):
    modes = ("reduced", "complete", "r")

    def qr_mode():
        return modes[int(torch.randint(3, (), generator=gen, device=gen.device))]

    yield "tall_100x60", Call(inv.well_conditioned(100, 60, gen, mode), qr_mode())
    yield "square_128", Call(inv.shuffled_rows(inv.well_conditioned(128, 128, gen, mode), gen))
    yield "wide_50x90_r", Call(inv.well_conditioned(50, 90, gen, mode), mode="r")
    yield "batch_complete", Call(inv.well_conditioned(40, 24, gen, mode, batch=(3,)), mode="complete")
    yield "float32_200x150", Call(inv.well_conditioned(200, 150, gen, mode, torch.float32), mode=qr_mode())


def perf_cases(gen):
    for n in (64, 1024, 4096):
        yield f"n{n}", Call(inv.shuffled_rows(inv.well_conditioned(n, n, gen, dtype=torch.float32), gen))


def flops(call, out):
    a = call.args[0]
    m, n = a.shape[-2:]
    mode = inv.arg(call, 1, "mode", "reduced")
    form_q = mode != "r"
    extra = 0.0
    if mode == "complete" and m > n:
        extra = 4.0 * m * (m - n) * n  # the complement columns of Q
    return inv.batch_count(a) * (inv.qr_flops(m, n, form_q) + extra)


TASK = Task(
    id="LinearAlgebra/qr",
    entry="qr",
    signature="qr(A: Tensor, mode: str = 'reduced') -> tuple[Tensor, Tensor]",
    description="Computes the QR factorization A = Q·R of a real m×n matrix (or of each matrix of a batch of shape "
                "(*, m, n)), k = min(m, n), with Q having orthonormal columns and R upper triangular. "
                "mode='reduced': Q of shape (*, m, k), R of shape (*, k, n). mode='complete': Q of shape (*, m, m) "
                "orthogonal, R of shape (*, m, n). mode='r': only R (shape (*, k, n)) is computed and Q is an "
                "empty tensor of shape (0,). Q and R have A's dtype. The signs of R's diagonal are free (Q·R is "
                "unique only up to them). (torch.linalg.qr; `out=` is dropped.)",
    math=r"A = QR,\quad Q^{\mathsf T} Q = I,\quad R_{ij} = 0 \text{ for } i > j",
    difficulty=5,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(
        dtypes="A float64 or float32 of shape (*, m, n); Q and R in A's dtype",
        tolerance=inv.shown_tolerance(torch.float64, 4.0),
        accumulation="the input dtype",
        # expanded (stride-0) views repeat a row or column: rank 1, where QR is not well-defined
        layouts=inv.STRUCTURED_LAYOUTS,
        notes="The Tolerance line above (tol at n = 256) is not applied elementwise: this is "
              "judged as a factorization (signs are free): outputs must be finite with the "
              "reference's shapes and dtypes; R exactly zero below the diagonal; Q with ‖QᵀQ − I‖_F/√(cols) ≤ tol "
              "and ‖Q·R − A‖_F ≤ tol·‖A‖_F; and R (unique up to the sign of each row) must match the reference "
              "after aligning row signs, within 4·tol·‖R_ref‖_F (also in mode 'r'), where "
              f"{inv.tolerance_text()}. Test matrices have full rank and are well-conditioned.",
    ),
    flops=flops,
    check=inv.qr_check,
    choices={"mode": ("reduced", "complete", "r")},
    deviations=(
        Deviation(Kind.COVERAGE, "float64 inputs", "float64 inputs plus float32 cases (the perf dtype)",
                  "the perf cases time float32, so correctness is checked in that dtype too"),
        Deviation(Kind.TOLERANCE, "Q and R compared with torch's elementwise (rtol = atol = 1e-5)",
                  "Q orthonormal and Q·R = A within tol, R upper triangular and equal to torch's up to the sign "
                  "of each row within 4·tol, tol = 64·√n·ε",
                  "Householder sign conventions differ between correct implementations; R is unique only up to "
                  "row signs"),
        Deviation(Kind.PERF, "float32, n = 16 … 4096 (9 rows)", "float32, n = 64, 1024, 4096",
                  "a subset of upstream's rows spanning its range"),
    ),
)
