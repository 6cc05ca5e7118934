"""Normalization/normalized_cosine_similarity: Lp-normalize both inputs along a dim, then cosine similarity."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample
from kernelbenchx.dataset import bounds as _bounds

EPS = _bounds.EPS32
P_NORMS = (1.0, 2.0, 3.0, float("inf"))


def reference(x1, x2, dim: int = 1, eps_similarity: float = 1e-8, p_norm: float = 2,
              eps_norm: float = 1e-12) -> torch.Tensor:
    x1n = F.normalize(x1, p=p_norm, dim=dim, eps=eps_norm)
    x2n = F.normalize(x2, p=p_norm, dim=dim, eps=eps_norm)
    return F.cosine_similarity(x1n, x2n, dim=dim, eps=eps_similarity)


def bind(x1, x2, dim=1, eps_similarity=1e-8, p_norm=2, eps_norm=1e-12):
    return x1, x2, dim, eps_similarity, p_norm, eps_norm


def error_bound(call: Call) -> torch.Tensor:
    """With a, b the two fully normalized vectors (out = Σ a·b over n terms): the dot product carries
    B_sum(a·b) + 4ε·Σ|a·b| (the rounding of each normalized element and product), and the four norms scale the
    result by their relative bounds (_bounds.norm_rel_bound; 0 where an eps clamps): + |out|·(Σ rel + 2ε)."""
    x1, x2, dim, eps_s, p, eps_n = bind(*call.args, **call.kwargs)
    rels = []
    units = []
    for x in (x1.double(), x2.double()):
        norm_p, rel_p = _bounds.norm_rel_bound(x, p, dim, keepdim=True)
        xn = x / norm_p.clamp_min(eps_n)
        norm_2, rel_2 = _bounds.norm_rel_bound(xn, 2.0, dim, keepdim=True)
        units.append(xn / norm_2.clamp_min(eps_s))
        rels += [torch.where(norm_p > eps_n, rel_p, 0.0), torch.where(norm_2 > eps_s, rel_2, 0.0)]
    a, b = torch.broadcast_tensors(*units)
    ab = a * b
    d = dim % ab.dim()
    out = ab.sum(d)
    rel = sum(torch.broadcast_to(r, ab.shape[:d] + (1,) + ab.shape[d + 1:]).squeeze(d) for r in rels)
    return _bounds.sum_bound(ab, d) + 4 * EPS * ab.abs().sum(d) + out.abs() * (rel + 2 * EPS)


def pair(shape, gen, mode="standard"):
    return sample(shape, gen, mode), sample(shape, gen, mode)


def fixed_cases(gen):
    yield "rows", Call(*pair((10, 32), gen))
    yield "dim0_l1", Call(*pair((20, 7), gen), 0, 1e-5, 1)
    yield "norm_inf", Call(*pair((6, 9), gen), p_norm=float("inf"))
    yield "broadcast_x2", Call(sample((8, 16), gen), sample((1, 16), gen))
    yield "3d_last_dim", Call(*pair((3, 4, 25), gen), -1)
    yield "3d_middle_dim", Call(*pair((3, 25, 4), gen), 1)
    x = sample((5, 12), gen)
    yield "parallel_and_opposite", Call(x, torch.cat([2.0 * x[:3], -0.5 * x[3:]]))
    zero = torch.zeros(4, 6)
    yield "zero_rows", Call(torch.cat([zero[:2], sample((2, 6), gen)]), torch.cat([sample((3, 6), gen), zero[:1]]))
    # L1-normalized rows have L2 norms in [1/√5, 1], so eps_similarity = 0.5 clamps some of them.
    yield "similarity_eps_active", Call(sample((6, 5), gen), sample((6, 5), gen), 1, 0.5, 1)
    yield "below_norm_eps", Call(1e-14 * sample((4, 8), gen), sample((4, 8), gen))
    yield "norm_eps_active_l1", Call(1e-4 * sample((5, 9), gen), sample((5, 9), gen), 1, 1e-8, 1, 1e-2)
    # x1 is the operand that broadcasts (its dim 0 is 1, x2's is 8): the output takes x2's size there
    yield "broadcast_x1", Call(sample((1, 16), gen), sample((8, 16), gen))
    # eps_norm matters only where eps_similarity clamps too (else the p-norm cancels): with eps_norm = 1e-2 the
    # normalized x1 has 2-norm ≈ 3e-10, below the default eps_similarity 1e-8, so both defaults are exercised
    yield "default_similarity_eps_active", Call(1e-12 * sample((4, 8), gen), sample((4, 8), gen), 1, p_norm=2,
                                                eps_norm=1e-2)
    # the default eps_norm 1e-12 clamps x1 ≈ 1e-14 and eps_similarity 0.5 clamps the result: out ∝ 1/eps_norm
    yield "default_norm_eps_active", Call(1e-14 * sample((4, 8), gen), sample((4, 8), gen), 1, 0.5)


def random_cases(gen, mode):
    p = P_NORMS[int(torch.randint(len(P_NORMS), (), generator=gen))]
    yield "rows", Call(*pair((257, 1023), gen, mode), p_norm=p)
    yield "cols_l1", Call(*pair((513, 129), gen, mode), 0, 1e-8, 1)
    yield "batched", Call(*pair((7, 301, 67), gen, mode), 2)
    yield "middle_broadcast_eps", Call(sample((6, 65, 9), gen, mode), sample((1, 65, 9), gen, mode), -2, 1e-6, p,
                                       1e-3)


def perf_cases(gen):
    # upstream: (64 … 32768, 1024) pairs, default arguments
    yield "64x1024", Call(*pair((64, 1024), gen))
    yield "4096x1024", Call(*pair((4096, 1024), gen))
    yield "32768x1024", Call(*pair((32768, 1024), gen))


TASK = Task(
    id="Normalization/normalized_cosine_similarity",
    entry="normalized_cosine_similarity",
    signature="normalized_cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps_similarity: float = 1e-8, "
              "p_norm: float = 2, eps_norm: float = 1e-12) -> Tensor",
    description="n1 = torch.nn.functional.normalize(x1, p=p_norm, dim=dim, eps=eps_norm) and likewise n2 from x2 "
                "(v / max(‖v‖_p along dim, eps_norm); p may be inf), then torch.nn.functional.cosine_similarity"
                "(n1, n2, dim=dim, eps=eps_similarity) = Σ_dim (n1 / max(‖n1‖₂, eps_similarity)) · "
                "(n2 / max(‖n2‖₂, eps_similarity)). x2 broadcasts against x1. The output has the broadcast shape "
                "with `dim` removed; all-zero vectors give 0. Output float32.",
    math=r"\hat v = v/\max(\lVert v\rVert_p,\epsilon_n);\quad "
         r"\mathrm{out} = \sum \frac{\hat x_1}{\max(\lVert \hat x_1\rVert_2,\epsilon_s)}\cdot\frac{\hat x_2}{\max(\lVert \hat x_2\rVert_2,\epsilon_s)}",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="x1, x2 float32 (broadcastable); output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1.0, scale="bound"),
                      bound="with a, b the normalized vectors and n terms per output: B = B_sum(a·b) + "
                            "4ε·Σ|a·b| + |out|·(Σ rel + 2ε), the sum over the relative bounds rel of the four "
                            "norms (0 where an eps clamps), where " + _bounds.NORM_TEXT + ", and " + _bounds.SUM_TEXT,
                      notes="The norms and the dot product are reductions whose order is free; outputs lie in "
                            "[-1, 1]."),
    error_bound=error_bound,
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "a bound from the dot product's and the norms' accumulation (see the contract) plus rtol 1e-5",
                  "near-orthogonal vectors give outputs near 0, where a fixed 1e-5 is 40× the fp32 rounding of "
                  "a 1000-term dot product; the bound admits every summation order and rejects fp16/bf16 "
                  "accumulation (tests/test_tolerances.py)"),
        Deviation(Kind.COVERAGE, "(N, D) pairs with default arguments",
                  "adds L1, L3 and inf normalization, other dims, broadcasting, zero vectors, parallel and "
                  "opposite vectors, both eps values active", "the signature promises them"),
        Deviation(Kind.PERF, "10 sizes, (64 … 32768, 1024)", "(64 | 4096 | 32768, 1024)",
                  "a subset spanning upstream's range"),
    ),
    flops=lambda call, out: 8.0 * max(call.args[0].numel(), call.args[1].numel()),
)
