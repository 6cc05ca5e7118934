"""Fusion/fused_qr_solve: QR-factorize a tall matrix and return the least-squares solution R⁻¹·Qᵀ·b."""

import torch

from kernelbenchx.dataset import invariants as inv
from kernelbenchx.dataset.contract import Contract
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task


def reference(A: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    Q, R = torch.linalg.qr(A, mode="reduced")
    return torch.linalg.solve(R, Q.mT @ b)


def fixed_cases(gen):
    f32 = torch.float32
    yield "square", Call(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[5.0], [6.0]]))
    yield "tall", Call(torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), torch.tensor([[7.0], [8.0], [9.0]]))
    yield "square_multi", Call(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[5.0, 6.0], [7.0, 8.0]]))
    yield "tall_multi", Call(torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
                             torch.tensor([[7.0, 8.0], [9.0, 10.0], [11.0, 12.0]]))
    yield "example_3x3", Call(torch.tensor([[12.0, -51.0, 4.0], [6.0, 167.0, -68.0], [-4.0, 24.0, -41.0]]),
                              torch.tensor([[1.0], [2.0], [3.0]]))
    yield "tall_33x9", Call(inv.well_conditioned(33, 9, gen, dtype=f32), inv.gaussian((33, 4), gen, dtype=f32))


def random_cases(gen, mode):
    f32 = torch.float32
    yield "128x64_k10", Call(inv.well_conditioned(128, 64, gen, mode, f32), inv.gaussian((128, 10), gen, mode, f32))
    yield "300x100_k1", Call(inv.well_conditioned(300, 100, gen, mode, f32), inv.gaussian((300, 1), gen, mode, f32))
    yield "96x96_k4", Call(inv.shuffled_rows(inv.well_conditioned(96, 96, gen, mode, f32), gen),
                           inv.gaussian((96, 4), gen, mode, f32))


def perf_cases(gen):
    f32 = torch.float32
    for m, n in ((256, 128), (2048, 1024), (8192, 4096)):
        yield f"{m}x{n}_k10", Call(inv.well_conditioned(m, n, gen, dtype=f32), inv.gaussian((m, 10), gen, dtype=f32))


def flops(call, out):
    m, n = call.args[0].shape
    k = out.shape[-1]
    return inv.qr_flops(m, n, form_q=False) + 4.0 * m * n * k + 1.0 * n * n * k  # QR, Qᵀ·b, back substitution


TASK = Task(
    id="Fusion/fused_qr_solve",
    entry="fused_qr_solve",
    signature="fused_qr_solve(A: Tensor, b: Tensor) -> Tensor",
    description="Solves A·x = b in the least-squares sense for A of shape (m, n) with m ≥ n and full column rank, "
                "and b of shape (m, k): factor A = Q·R (reduced QR, Q (m, n) with orthonormal columns, R (n, n) "
                "upper triangular), then x = R⁻¹·(Qᵀ·b). For square A this is the exact solution. Returns x of "
                "shape (n, k) in b's dtype.",
    math=r"A = QR,\qquad x = R^{-1} Q^{\mathsf T} b = \arg\min_x \|Ax - b\|_2",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(
        dtypes="A float32 (m, n), b float32 (m, k); output float32 (n, k)",
        tolerance=inv.shown_tolerance(torch.float32, 16.0),
        notes="The least-squares solution is unique and compared elementwise: "
              "|x − x_ref| ≤ 16·tol·(RMS(x_ref) + |x_ref|), with "
              f"{inv.tolerance_text()} (the line above is n = 256). Random A are 2I + G/√m (well-conditioned).",
        # An expanded (stride-0) view repeats one row or column of A: it would lose full column rank.
        layouts=inv.STRUCTURED_LAYOUTS,
    ),
    flops=flops,
    check=inv.close_check(16.0),
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "|x − x_ref| ≤ 16·64·√n·ε·(RMS(x_ref) + |x_ref|)",
                  "a least-squares solve's rounding error grows with n and the conditioning; the bound accepts "
                  "any backward-stable QR (Householder, Givens, modified Gram-Schmidt on [A | b])"),
        Deviation(Kind.COVERAGE, "2×2 and 3×2 examples and 64×32 random matrices (with 0.1·I on the top block)",
                  "adds a textbook 3×3, well-conditioned tall and square matrices up to 300×100 with 1 to 10 "
                  "right-hand sides",
                  "a unique, stable solution to compare against"),
        Deviation(Kind.PERF, "9 sizes, m = 2n for n = 16 … 4096, k = 10, U(0, 1) entries",
                  "(256, 128), (2048, 1024) and (8192, 4096) with k = 10, well-conditioned",
                  "a subset spanning small to largest; U(0, 1) matrices are ill-conditioned"),
    ),
)
