"""LinearAlgebra/pseudoinverse_svd: the Moore-Penrose pseudoinverse from the SVD, small singular values cut."""

import torch

from kernelbenchx.dataset import invariants as inv
from kernelbenchx.dataset.contract import Contract
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task


def reference(A: torch.Tensor, *, full_matrices: bool = True, rcond: float = 1e-15) -> torch.Tensor:
    U, S, Vh = torch.linalg.svd(A, full_matrices=full_matrices)
    k = S.shape[-1]
    cutoff = rcond * S.amax(-1, keepdim=True)
    s_inv = torch.where(S > cutoff, 1.0 / S, torch.zeros_like(S))
    return Vh[..., :k, :].mH @ torch.diag_embed(s_inv) @ U[..., :, :k].mH


def low_rank(m, n, rank, gen, mode="standard"):
    return inv.gaussian((m, rank), gen, mode) @ inv.gaussian((rank, n), gen, mode)


def with_spectrum(m, n, s, gen, mode="standard", dtype=torch.float64):
    """U·diag(s)·Vᵀ with random orthonormal U (m×k) and V (n×k), k = len(s): singular values exactly s."""
    k = len(s)
    u = torch.linalg.qr(inv.gaussian((m, k), gen, mode))[0]
    v = torch.linalg.qr(inv.gaussian((n, k), gen, mode))[0]
    return (u * torch.tensor(s, dtype=torch.float64) @ v.mT).to(dtype)


def fixed_cases(gen):
    yield "example_2x3", Call(torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    yield "square", Call(inv.well_conditioned(4, 4, gen))
    yield "tall_reduced", Call(inv.well_conditioned(7, 3, gen), full_matrices=False)
    yield "rank2_cut", Call(low_rank(6, 5, 2, gen), rcond=1e-8)
    yield "zero_matrix", Call(torch.zeros(3, 4, dtype=torch.float64))
    yield "batch", Call(inv.well_conditioned(4, 3, gen, batch=(2,)))
    yield "float32_wide", Call(inv.well_conditioned(5, 8, gen, dtype=torch.float32))
    # rcond relative to max(S) = 50: cuts 0.25 (an rcond ignored, or taken as absolute, keeps it)
    yield "rcond_cut_scaled", Call(with_spectrum(7, 5, [50.0, 25.0, 10.0, 4.0, 0.25], gen), rcond=0.01)
    # a column near float32's underflow: its singular value is cut by rcond (a float32 SVD resolves it only to
    # about ε·max(S), so rcond is well above that)
    yield "float32_tiny_column", Call(inv.tiny_column_block(inv.well_conditioned(4, 4, gen), 65, gen), rcond=1e-3)
    # every entry far below 1 (the pseudoinverse's near 1e32): squares underflow float32
    yield "float32_tiny_scale", Call(inv.well_conditioned(6, 4, gen, dtype=torch.float32) * 1e-32)


def random_cases(gen, mode):
    # Sizes stay small: the CPU interpreter that checks kept solutions runs an SVD's sequential Jacobi rounds
    # one by one; the perf cases (up to 512, re-checked on the GPU) cover the large sizes.
    yield "tall_40x24", Call(inv.well_conditioned(40, 24, gen, mode), full_matrices=inv.coin(gen))
    yield "wide_20x40_reduced", Call(inv.well_conditioned(20, 40, gen, mode), full_matrices=False)
    yield "rank3_cut", Call(low_rank(30, 24, 3, gen, mode), rcond=1e-9, full_matrices=inv.coin(gen))
    yield "rcond_cut_10x7", Call(with_spectrum(10, 7, [8.0, 6.0, 3.0, 2.0, 1.0, 0.05, 0.02], gen, mode),
                                 rcond=0.02, full_matrices=inv.coin(gen))
    yield "batch", Call(inv.well_conditioned(16, 16, gen, mode, batch=(3,)))
    yield "float32_tall_48x30", Call(inv.well_conditioned(48, 30, gen, mode, torch.float32),
                                     full_matrices=inv.coin(gen))


def perf_cases(gen):
    for n in (64, 256, 512):
        yield f"{n}x{n}", Call(inv.well_conditioned(n, n, gen, dtype=torch.float32))


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
        dtypes="A float64 or float32 of shape (*, m, n); output the same dtype, shape (*, n, m)",
        tolerance=inv.shown_tolerance(torch.float64, 8.0),
        accumulation="the input dtype",
        # expanded (stride-0) views repeat a row: a rank-1 matrix whose other singular values are rounding
        # noise, cut or kept by rcond depending on the last bits
        layouts=inv.STRUCTURED_LAYOUTS,
        notes="The pseudoinverse is unique for these inputs (full rank and well-conditioned, or with rcond far "
              "between the kept and the cut singular values, e.g. exactly low-rank) and compared "
              "elementwise: |X − X_ref| ≤ 8·tol·(RMS(X_ref) + |X_ref|), with "
              f"{inv.tolerance_text()} (the line above is n = 256, float64).",
    ),
    flops=flops,
    check=inv.close_check(8.0),
    deviations=(
        Deviation(Kind.UPSTREAM_BUG, "the reference multiplies the full Vᴴ (n×n), diag(S⁺) (k×k) and Uᴴ (m×m), "
                  "which raises for non-square A with the default full_matrices=True",
                  "Non-square A is tested with both full_matrices values; only the first min(m, n) singular "
                  "vectors enter A⁺, as in the catalogue's own 2×3 example",
                  "The catalogue defines the pseudoinverse of any m×n matrix, and its example (a 2×3 matrix, "
                  "default arguments) is exactly the case the reference cannot run.", in_prompt=True),
        Deviation(Kind.COVERAGE, "float64 inputs", "float64 inputs plus float32 cases (the perf dtype)",
                  "the perf cases time float32, so correctness is checked in that dtype too"),
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "|X − X_ref| ≤ 8·tol·(RMS(X_ref) + |X_ref|), tol = 64·√n·ε",
                  "an error bound that scales with the dtype and n, as the SVD's does"),
        Deviation(Kind.PERF, "float32, square n = 4 … 512 (8 rows)", "float32, n = 64, 256, 512",
                  "a subset of upstream's rows; below n = 64 the timing is launch overhead"),
    ),
)
