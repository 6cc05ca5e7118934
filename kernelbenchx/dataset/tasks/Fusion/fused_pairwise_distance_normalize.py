"""Fusion/fused_pairwise_distance_normalize: p-norm distances between every row of x1 and every row of x2, after
p-normalizing each row."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample


def reference(x1: torch.Tensor, x2: torch.Tensor, p_norm: float = 2.0, eps_norm: float = 1e-12,
              eps_distance: float = 1e-6, keepdim: bool = False) -> torch.Tensor:
    n1 = x1 / torch.linalg.vector_norm(x1, ord=p_norm, dim=-1, keepdim=True).clamp_min(eps_norm)
    n2 = x2 / torch.linalg.vector_norm(x2, ord=p_norm, dim=-1, keepdim=True).clamp_min(eps_norm)
    # Differences taken directly (no ‖a‖² + ‖b‖² − 2a·b expansion, which loses the small distances).
    d = torch.cdist(n1, n2, p=p_norm, compute_mode="donot_use_mm_for_euclid_dist").clamp_min(eps_distance)
    return d.unsqueeze(-1) if keepdim else d


def pair(gen, mode, n, m, d):
    return sample((n, d), gen, mode), sample((m, d), gen, mode)


def fixed_cases(gen):
    yield "example", Call(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[5.0, 6.0], [7.0, 8.0]]))
    yield "p1", Call(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[5.0, 6.0], [7.0, 8.0]]), 1.0)
    yield "eps_norm_keepdim", Call(torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
                                   torch.tensor([[1.0, 0.5, 1.5], [4.0, 4.5, 5.5], [0.0, 0.0, 1.0]]), 2.0, 1e-10,
                                   keepdim=True)
    # Parallel rows normalize to the same vector: distance 0, clamped to eps_distance.
    yield "parallel_rows", Call(torch.arange(1.0, 13.0).reshape(3, 4), 5.0 * torch.arange(1.0, 13.0).reshape(3, 4))
    yield "zero_rows", Call(torch.zeros(3, 8), torch.cat([torch.zeros(1, 8), sample((4, 8), gen)]))
    yield "p3_eps", Call(*pair(gen, "standard", 7, 9, 20), 3.0, 1e-3, 1e-2)
    yield "p_inf", Call(*pair(gen, "standard", 5, 6, 16), float("inf"))
    yield "tiny_norms", Call(sample((5, 16), gen) * 1e-14, sample((6, 16), gen), 2.0, 1e-12)
    # the same rows below the default eps_norm (1e-12) without passing it, and rows of norm ≈ 3e-4 below a
    # passed eps_norm of 1e-2: x̂1 = x1 / eps_norm is short, so the distances depend on the eps_norm used
    yield "tiny_norms_default_eps", Call(sample((5, 16), gen) * 1e-14, sample((6, 16), gen))
    yield "eps_norm_active", Call(sample((4, 8), gen) * 1e-4, sample((5, 8), gen), 2.0, 1e-2)
    yield "single_rows", Call(*pair(gen, "standard", 1, 1, 33), keepdim=True)
    yield "odd_sizes", Call(*pair(gen, "standard", 33, 17, 129))


def random_cases(gen, mode):
    yield "32x128", Call(*pair(gen, mode, 32, 32, 128))
    yield "rows_keepdim", Call(*pair(gen, mode, 100, 37, 128), keepdim=True)
    yield "p1_wide", Call(*pair(gen, mode, 65, 129, 257), 1.0)
    yield "p3_near_duplicates", Call(*(lambda a: (a, a[:50] * 3.0 + 1e-3 * sample((50, 64), gen, mode)))(
        sample((70, 64), gen, mode)), 3.0)


def perf_cases(gen):
    for n in (1024, 4096, 8192):
        yield f"{n}x{n}x128", Call(*pair(gen, "standard", n, n, 128))


def flops(call, out):
    x1, x2 = call.args[:2]
    return 3 * x1.shape[0] * x2.shape[0] * x1.shape[1] + 3 * (x1.numel() + x2.numel())


TASK = Task(
    id="Fusion/fused_pairwise_distance_normalize",
    entry="fused_pairwise_distance_normalize",
    signature="fused_pairwise_distance_normalize(x1: Tensor, x2: Tensor, p_norm: float = 2.0, "
              "eps_norm: float = 1e-12, eps_distance: float = 1e-6, keepdim: bool = False) -> Tensor",
    description="x1 is (N, D) and x2 is (M, D). Each row is divided by its p-norm over the last dimension, "
                "clamped below at eps_norm: x̂ = x / max(‖x‖_p, eps_norm) with p = p_norm. Then the distance of "
                "EVERY row of x̂1 to EVERY row of x̂2, d[i, j] = ‖x̂1[i] − x̂2[j]‖_p (p = inf: the largest "
                "|difference|), clamped below at eps_distance: out[i, j] = max(d[i, j], eps_distance). The "
                "result is a new float32 tensor of shape (N, M), or (N, M, 1) when keepdim is True. Identical "
                "normalized rows (e.g. parallel rows) have distance 0, hence eps_distance, so small distances "
                "must be computed from the differences, not from ‖a‖² + ‖b‖² − 2a·b.",
    math=r"\hat{x} = \frac{x}{\max(\lVert x\rVert_p, \epsilon_n)},\quad "
         r"\mathrm{out}_{ij} = \max\big(\lVert \hat{x}_{1,i} - \hat{x}_{2,j}\rVert_p, \epsilon_d\big)",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="x1, x2 float32; output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="Summation order in the norms is free. The distances are O(1) and an fp32 norm over "
                            "D terms is relatively accurate to a few ulp·log D, well inside 1e-5; products at "
                            "lower precision (TF32) are not."),
    flops=flops,
    deviations=(
        Deviation(Kind.COVERAGE, "2×2 examples and random 32×128 pairs at p = 2",
                  "adds p = 1, 3 and inf, parallel and zero rows, tiny norms, near-duplicate rows, single rows "
                  "and odd sizes up to 129 × 257",
                  "p, both eps values and keepdim are arguments of the signature; zero and parallel rows reach "
                  "both clamps"),
        Deviation(Kind.PERF, "8 sizes, N = M = 2^6 … 2^13 rows of 128",
                  "N = M = 1024, 4096 and 8192", "a subset spanning small to largest"),
    ),
)
