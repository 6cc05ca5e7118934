"""LinearAlgebra/low_rank_svd_approximation: the best rank-k approximation U_k·Σ_k·V_kᵀ from the SVD."""

import torch

from kernelbenchx.dataset import invariants as inv
from kernelbenchx.dataset.contract import Contract
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task


def reference(A: torch.Tensor, k: int, *, full_matrices: bool = True) -> torch.Tensor:
    U, S, Vh = torch.linalg.svd(A, full_matrices=full_matrices)
    return U[..., :, :k] @ torch.diag_embed(S[..., :k]) @ Vh[..., :k, :]


def fixed_cases(gen):
    yield "example_10x8_k5", Call(inv.low_rank_plus_noise(10, 8, 5, gen, noise=0.01), 5)
    yield "full_rank_k", Call(inv.gaussian((6, 6), gen, dtype=torch.float32), 6)
    yield "rank1", Call(inv.low_rank_plus_noise(12, 9, 1, gen), 1)
    yield "diagonal", Call(torch.diag(torch.tensor([5.0, -4.0, 3.0, 0.5, 0.25])), 2)
    yield "wide", Call(inv.low_rank_plus_noise(20, 50, 4, gen), 4)
    yield "reduced", Call(inv.low_rank_plus_noise(30, 12, 3, gen), 3, full_matrices=False)
    yield "batch", Call(inv.low_rank_plus_noise(10, 8, 2, gen, batch=(4,)), 2)
    # a column near float32's underflow beside a rank-1-plus-noise block
    yield "tiny_column", Call(inv.tiny_column_block(inv.low_rank_plus_noise(4, 4, 1, gen).double(), 65, gen), 1)
    # every entry far below 1: squares underflow float32, and a column threshold near its underflow skips reflections
    yield "float32_tiny_scale", Call(inv.low_rank_plus_noise(6, 4, 2, gen).float() * 1e-32, 2)


def random_cases(gen, mode):
    # Sizes stay small: the CPU interpreter that checks kept solutions runs an SVD's sequential Jacobi rounds
    # one by one; the perf cases (up to 1408, re-checked on the GPU) cover the large sizes.
    yield "40x28_k5", Call(inv.low_rank_plus_noise(40, 28, 5, gen, mode), 5, full_matrices=inv.coin(gen))
    yield "48x36_k6_reduced", Call(inv.low_rank_plus_noise(48, 36, 6, gen, mode), 6, full_matrices=False)
    yield "wide_20x44_k3", Call(inv.low_rank_plus_noise(20, 44, 3, gen, mode), 3, full_matrices=inv.coin(gen))
    yield "batch_20x16_k3", Call(inv.low_rank_plus_noise(20, 16, 3, gen, mode, batch=(3,)), 3)


def perf_cases(gen):
    for n in (256, 768, 1408):
        yield f"n{n}_k50", Call(inv.low_rank_plus_noise(n, n, 50, gen), 50)


def flops(call, out):
    a, k = call.args[0], call.args[1]
    m, n = a.shape[-2:]
    return inv.batch_count(a) * (inv.svd_flops(m, n) + 2.0 * m * n * k)


TASK = Task(
    id="LinearAlgebra/low_rank_svd_approximation",
    entry="low_rank_svd_approximation",
    signature="low_rank_svd_approximation(A: Tensor, k: int, *, full_matrices: bool = True) -> Tensor",
    description="Returns the rank-k approximation A_k = U_k·diag(S_k)·V_kᵀ of a real matrix A of shape (*, m, n) "
                "built from its k largest singular values and their singular vectors (1 ≤ k ≤ min(m, n)); A_k is "
                "the closest rank-k matrix to A in the Frobenius norm. full_matrices only chooses between the full "
                "and reduced SVD and does not change the result. The output has A's shape and dtype. "
                "(`out=` is dropped.)",
    math=(r"A_k = U_{:, :k}\,\operatorname{diag}(S_{:k})\,V^{\mathsf H}_{:k, :},\qquad A"
          r" = U \operatorname{diag}(S) V^{\mathsf H}"),
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(
        dtypes="A float32 of shape (*, m, n), k a Python int; output float32 of A's shape",
        tolerance=inv.shown_tolerance(torch.float32, 8.0),
        notes="A_k is unique when σ_k > σ_(k+1), which the test matrices guarantee (rank-k signal plus small "
              "noise, or k = min(m, n)); it is compared elementwise: |A_k − ref| ≤ 8·tol·(RMS(ref) + |ref|), with "
              f"{inv.tolerance_text()} (the line above is n = 256).",
    ),
    flops=flops,
    check=inv.close_check(8.0),
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "|A_k − ref| ≤ 8·tol·(RMS(ref) + |ref|), tol = 64·√n·ε (2.0e-4 at n = 256 in float32)",
                  "two correct float32 SVDs of a 256×256 matrix differ by about n·ε ≈ 3e-5 relative, above a "
                  "fixed 1e-5; the bound scales with n"),
        Deviation(Kind.PERF, "float32, n = 256 … 1408 square with k = 50 (10 rows)",
                  "float32, n = 256, 768, 1408 with k = 50", "a subset of upstream's rows spanning its range"),
    ),
)
