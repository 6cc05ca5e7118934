"""LinearAlgebra/pseudoinverse_svd: the Moore-Penrose pseudoinverse from the SVD, small singular values cut."""

import torch

from kernelbenchx.dataset import invariants as inv
from kernelbenchx.dataset.contract import Contract
from kernelbenchx.dataset.task import Call, Task


def reference(A: torch.Tensor, *, full_matrices: bool = True, rcond: float = 1e-15) -> torch.Tensor:
    U, S, Vh = torch.linalg.svd(A, full_matrices=full_matrices)
    k = S.shape[-1]
    cutoff = rcond * S.amax(-1, keepdim=True)
    s_inv = torch.where(S > cutoff, 1.0 / S, torch.zeros_like(S))
    return Vh[..., :k, :].mH @ torch.diag_embed(s_inv) @ U[..., :, :k].mH


def low_rank(m, n, rank, gen, mode="standard"):
    return inv.gaussian((m, rank), gen, mode) @ inv.gaussian((rank, n), gen, mode)


def fixed_cases(gen):
    yield "example_2x3", Call(torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    yield "square", Call(inv.well_conditioned(4, 4, gen))
    yield "tall_reduced", Call(inv.well_conditioned(7, 3, gen), full_matrices=False)
    yield "rank2_cut", Call(low_rank(6, 5, 2, gen), rcond=1e-8)
    yield "zero_matrix", Call(torch.zeros(3, 4, dtype=torch.float64))
    yield "batch", Call(inv.well_conditioned(4, 3, gen, batch=(2,)))


def random_cases(gen, mode):
    yield "tall_80x50", Call(inv.well_conditioned(80, 50, gen, mode))
    yield "wide_40x90_reduced", Call(inv.well_conditioned(40, 90, gen, mode), full_matrices=False)
    yield "rank5_cut", Call(low_rank(60, 45, 5, gen, mode), rcond=1e-9)
    yield "batch", Call(inv.well_conditioned(30, 30, gen, mode, batch=(3,)))


def perf_cases(gen):
    yield "64x64", Call(inv.well_conditioned(64, 64, gen))
    yield "256x256", Call(inv.well_conditioned(256, 256, gen))
    yield "1024x512", Call(inv.well_conditioned(1024, 512, gen))


def flops(call, out):
    a = call.args[0]
    m, n = a.shape[-2:]
    return inv.batch_count(a) * (inv.svd_flops(m, n) + 2.0 * m * n * min(m, n))


TASK = Task(
    id="LinearAlgebra/pseudoinverse_svd",
    entry="pseudoinverse_svd",
    signature="pseudoinverse_svd(A: Tensor, *, full_matrices: bool = True, rcond: float = 1e-15) -> Tensor",
    description="Computes the Moore-Penrose pseudoinverse of a real m×n matrix (or of each matrix of a batch of "
                "shape (*, m, n)) from its SVD A = U·diag(S)·Vᴴ: A⁺ = V·diag(S⁺)·Uᴴ with S⁺_i = 1/S_i when "
                "S_i > rcond·max(S) and 0 otherwise (so a zero matrix gives a zero pseudoinverse). Only the "
                "first min(m, n) singular vectors take part, so full_matrices (full or reduced SVD) does not change "
                "the result. Returns shape (*, n, m) in A's dtype. (`out=` is dropped.)",
    math=(r"A^{+} = V \Sigma^{+} U^{\mathsf H},\qquad \sigma_i^{+} = \begin{cases} 1/\sigma_i & \sigma_i >"
          r" \text{rcond}\cdot\sigma_{\max} \\ 0 & \text{otherwise}\end{cases}"),
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(
        dtypes="A float64 (one stage-1 case float32) of shape (*, m, n); output the same dtype, shape (*, n, m)",
        tolerance=inv.shown_tolerance(torch.float64, 8.0),
        accumulation="the input dtype",
        notes="The pseudoinverse is unique for these inputs (full rank and well-conditioned, or exactly "
              "low-rank with rcond far between the kept and the cut singular values) and compared "
              "elementwise: |X − X_ref| ≤ 8·tol·(RMS(X_ref) + |X_ref|), with "
              f"{inv.tolerance_text()} (the line above is n = 256).",
    ),
    flops=flops,
    unit="fp64",
    check=inv.close_check(8.0),
)
