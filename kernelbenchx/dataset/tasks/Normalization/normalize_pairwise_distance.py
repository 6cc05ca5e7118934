"""Normalization/normalize_pairwise_distance: p-norm distances between paired rows, then Lp-normalized."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample, uniform
from kernelbenchx.dataset import bounds as _bounds

EPS = _bounds.EPS32


def reference(x1, x2, p_distance: float = 2.0, eps_distance: float = 1e-6, keepdim: bool = False,
              p_norm: float = 2, dim_norm: int = 1, eps_norm: float = 1e-12) -> torch.Tensor:
    distance = F.pairwise_distance(x1, x2, p=p_distance, eps=eps_distance, keepdim=keepdim)
    return F.normalize(distance, p=p_norm, dim=dim_norm, eps=eps_norm)


def bind(x1, x2, p_distance=2.0, eps_distance=1e-6, keepdim=False, p_norm=2, dim_norm=1, eps_norm=1e-12):
    return x1, x2, p_distance, eps_distance, keepdim, p_norm, dim_norm, eps_norm


def error_bound(call: Call) -> torch.Tensor:
    """Each distance d = ‖x1 − x2 + eps‖_p carries rel_d = 2ε (the two roundings forming each difference) + the
    p-norm's relative bound (_bounds.norm_rel_bound); the normalizer ‖d‖ along dim_norm carries the largest
    rel_d plus its own p-norm bound; out = d/max(‖d‖, eps_norm): B = |out|·(rel_d + max rel_d + rel_norm + 2ε)."""
    x1, x2, p, eps_d, keepdim, p_norm, dim_norm, eps_norm = bind(*call.args, **call.kwargs)
    v = x1.double() - x2.double() + eps_d
    d, rel_d = _bounds.norm_rel_bound(v, p, -1, keepdim)
    rel_d = rel_d + 2 * EPS
    norm, rel_n = _bounds.norm_rel_bound(d, p_norm, dim_norm, keepdim=True)
    worst = rel_d.amax(dim_norm, keepdim=True) if rel_d.dim() and rel_d.shape[dim_norm] else rel_d
    out = d / norm.clamp_min(eps_norm)
    return out.abs() * (rel_d + torch.where(norm > eps_norm, worst + rel_n, torch.zeros_like(rel_n)) + 2 * EPS)


def pair(shape, gen, mode="standard"):
    return sample(shape, gen, mode), sample(shape, gen, mode)


def fixed_cases(gen):
    x1, x2 = torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[1.0, 2.5], [2.5, 4.0]])
    yield "example", Call(x1, x2, 2.0, dim_norm=0)
    yield "example_l1", Call(x1, x2, 1.0, dim_norm=0)
    yield "batched", Call(*pair((3, 9, 16), gen))
    yield "keepdim", Call(*pair((3, 9, 16), gen), keepdim=True)
    yield "p3_l1_norm", Call(*pair((4, 7, 5), gen), 3.0, p_norm=1)
    yield "pinf_dim0", Call(*pair((5, 6, 11), gen), float("inf"), dim_norm=0)
    yield "norm_inf", Call(*pair((4, 10, 8), gen), p_norm=float("inf"))
    yield "broadcast_x2", Call(sample((6, 5, 12), gen), sample((12,), gen), dim_norm=-1)
    yield "identical_inputs", Call(torch.ones(2, 4, 3), torch.ones(2, 4, 3), eps_distance=1e-3)
    yield "all_zero_distance_norm", Call(torch.ones(2, 4, 3), torch.ones(2, 4, 3), eps_distance=0.0)
    yield "mixed_identical_rows", Call(torch.cat([torch.ones(2, 3, 5), sample((2, 3, 5), gen)], 1),
                                       torch.cat([torch.ones(2, 3, 5), sample((2, 3, 5), gen)], 1), eps_distance=0.1)
    yield "norm_eps_active", Call(1e-8 * sample((3, 6, 4), gen), 1e-8 * sample((3, 6, 4), gen), 1.0, 0.0,
                                  eps_norm=1e-3)
    # Zero distances (identical rows, eps_distance = 0) under a general p: the p-th root of 0 is 0.
    yield "zero_rows_p3", Call(torch.cat([torch.ones(2, 3, 5), sample((2, 3, 5), gen)], 1),
                               torch.cat([torch.ones(2, 3, 5), sample((2, 3, 5), gen)], 1), 3.0, 0.0)
    yield "zero_rows_p1_5_norm_p3", Call(torch.cat([torch.ones(2, 3, 5), sample((2, 3, 5), gen)], 1),
                                         torch.cat([torch.ones(2, 3, 5), sample((2, 3, 5), gen)], 1), 1.5, 0.0,
                                         p_norm=3.0)
    # Identical rows under the DEFAULT eps_distance (1e-6): their distance is eps_distance·D^(1/p) exactly.
    yield "identical_rows_default_eps", Call(torch.cat([torch.ones(2, 3, 5), sample((2, 3, 5), gen)], 1),
                                             torch.cat([torch.ones(2, 3, 5), sample((2, 3, 5), gen)], 1))
    # Distances whose norm is below the DEFAULT eps_norm (1e-12): they are divided by eps_norm.
    yield "tiny_distances_default_eps_norm", Call(1e-14 * sample((2, 3, 4), gen), torch.zeros(2, 3, 4), 2.0, 0.0)


def random_cases(gen, mode):
    keep = bool(torch.randint(2, (), generator=gen))
    yield "rows", Call(*pair((16, 1023, 17), gen, mode), keepdim=keep)
    yield "l1", Call(*pair((7, 301, 67), gen, mode), 1.0, 1e-5, p_norm=1, dim_norm=0)
    yield "keepdim_wide", Call(*pair((3, 129, 513), gen, mode), keepdim=not keep)
    yield "p3_eps_norm", Call(*pair((5, 200, 33), gen, mode), float(uniform((), gen, 1.5, 4.0)), 1e-6, keep,
                              3.0, -1, 1e-4)


def perf_cases(gen):
    # upstream: (16, 16 … 32768, 128) pairs, default arguments
    yield "16x1024x128", Call(*pair((16, 1024, 128), gen))
    yield "16x8192x128", Call(*pair((16, 8192, 128), gen))
    yield "16x32768x128", Call(*pair((16, 32768, 128), gen))


TASK = Task(
    id="Normalization/normalize_pairwise_distance",
    entry="normalize_pairwise_distance",
    signature="normalize_pairwise_distance(x1: Tensor, x2: Tensor, p_distance: float = 2.0, "
              "eps_distance: float = 1e-6, keepdim: bool = False, p_norm: float = 2, dim_norm: int = 1, "
              "eps_norm: float = 1e-12) -> Tensor",
    description="First d = torch.nn.functional.pairwise_distance(x1, x2, p=p_distance, eps=eps_distance, "
                "keepdim=keepdim): x1 and x2 broadcast together and d = ‖x1 − x2 + eps_distance‖_p over the last "
                "dimension (the eps is added to every difference; p may be inf, giving max |·|), which is removed "
                "unless keepdim (then kept with size 1). Then torch.nn.functional.normalize(d, p=p_norm, "
                "dim=dim_norm, eps=eps_norm): d / max(‖d‖_{p_norm} along dim_norm, eps_norm). dim_norm refers to "
                "the dimensions of d (negative counts from the end). Output float32 with d's shape.",
    math=r"d = \lVert x_1 - x_2 + \epsilon_d \rVert_{p_d};\quad \mathrm{out} = d / \max(\lVert d \rVert_{p_n}, \epsilon_n)",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="x1, x2 float32 (broadcastable); output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1.0, scale="bound"),
                      bound="B = |out|·(rel_d + max rel_d over the normalized slice + rel_n + 2ε), where rel_d = "
                            "2ε + the relative bound of each distance's p-norm, rel_n that of the norm of the "
                            "distances (0 where eps_norm clamps it), and " + _bounds.NORM_TEXT + ", with "
                            + _bounds.SUM_TEXT,
                      notes="Both norms are reductions whose order is free; outputs are at most 1 in magnitude."),
    error_bound=error_bound,
    deviations=(
        Deviation(Kind.UPSTREAM_BUG, "the reference adds eps_distance after the norm: ‖x1 − x2‖_p + eps",
                  "torch.nn.functional.pairwise_distance, as the catalogue's code: eps is added to every "
                  "difference, ‖x1 − x2 + eps‖_p",
                  "The catalogue names pairwise_distance(x1, x2, p, eps, keepdim); the two differ where distances "
                  "are near zero (identical rows next to distinct ones)", in_prompt=True),
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "a bound from the two norms' accumulation (see the contract) plus rtol 1e-5",
                  "the bound scales with the output and the reductions' lengths; it admits every summation order "
                  "and rejects fp16/bf16 accumulation (tests/test_tolerances.py)"),
        Deviation(Kind.COVERAGE, "3-D pairs with p_distance 1 or 2 and default normalization",
                  "adds p = 3, random p and inf, L1 and inf normalization, other dims, keepdim, a broadcast x2, "
                  "identical rows, eps_norm active", "the signature promises them"),
        Deviation(Kind.PERF, "12 sizes, (16, 16 … 32768, 128)", "(16, 1024 | 8192 | 32768, 128)",
                  "a subset spanning upstream's range"),
    ),
    flops=lambda call, out: 3.0 * max(call.args[0].numel(), call.args[1].numel()) + 3.0 * out.numel(),
)
