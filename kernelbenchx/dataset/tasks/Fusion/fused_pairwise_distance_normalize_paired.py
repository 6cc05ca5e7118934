"""Fusion/fused_pairwise_distance_normalize_paired (kbx-only): p-norm distance between corresponding rows of two
tensors after p-normalizing each (the row-paired reading of Fusion/fused_pairwise_distance_normalize)."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample


def reference(x1: torch.Tensor, x2: torch.Tensor, p_norm: float = 2.0, eps_norm: float = 1e-12,
              eps_distance: float = 1e-6, keepdim: bool = False) -> torch.Tensor:
    n1 = F.normalize(x1, p=p_norm, dim=1, eps=eps_norm)
    n2 = F.normalize(x2, p=p_norm, dim=1, eps=eps_norm)
    return F.pairwise_distance(n1, n2, p=p_norm, eps=eps_distance, keepdim=keepdim)


def pair(gen, mode, shape):
    return sample(shape, gen, mode), sample(shape, gen, mode)


def fixed_cases(gen):
    yield "example", Call(torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
                          torch.tensor([[1.0, 0.5, 1.5], [4.0, 4.5, 5.5]]))
    yield "zero_rows", Call(torch.zeros(3, 8), torch.cat([torch.zeros(1, 8), sample((2, 8), gen)]))
    yield "parallel_rows", Call(torch.arange(1.0, 13.0).reshape(3, 4), 5.0 * torch.arange(1.0, 13.0).reshape(3, 4))
    yield "p1_keepdim", Call(*pair(gen, "standard", (9, 33)), 1.0, keepdim=True)
    yield "p3_eps", Call(*pair(gen, "standard", (7, 20)), 3.0, 1e-3, 1e-2)
    yield "tiny_norms", Call(sample((5, 16), gen) * 1e-14, sample((5, 16), gen), 2.0, 1e-12)
    # Norms below the DEFAULT eps_norm (1e-12): the rows of x1 are divided by eps_norm, not by their norm.
    yield "tiny_norms_default_eps", Call(sample((5, 16), gen) * 1e-13, sample((5, 16), gen))
    # eps_norm larger than the row norms, for p = 2, 1 and inf: the clamp decides the normalized values.
    yield "eps_norm_clamps", Call(sample((5, 16), gen) * 1e-3, sample((5, 16), gen), 2.0, 0.1)
    yield "eps_norm_clamps_p1", Call(sample((5, 16), gen) * 1e-3, sample((5, 16), gen), 1.0, 0.5)
    yield "eps_norm_clamps_pinf", Call(sample((5, 16), gen), sample((5, 16), gen) * 1e-3, float("inf"), 0.05)
    yield "broadcast_row", Call(sample((6, 10), gen), sample((1, 10), gen))
    # x1 is the broadcast operand (its normalized rows are read with stride 0), along the rows, the last
    # dimension, or both leading dimensions of a 3-D shape.
    yield "broadcast_row_x1", Call(sample((1, 10), gen), sample((6, 10), gen))
    yield "broadcast_last_dim_x1", Call(sample((6, 1), gen), sample((6, 10), gen))
    yield "broadcast_3d_x1", Call(sample((1, 1, 6), gen), sample((4, 5, 6), gen))
    yield "three_dims", Call(*pair(gen, "standard", (4, 5, 6)))


def random_cases(gen, mode):
    yield "rows_128", Call(*pair(gen, mode, (1000, 128)))
    yield "rows_p1_keepdim", Call(*pair(gen, mode, (513, 257)), 1.0, keepdim=True)
    yield "three_dims_p3", Call(*pair(gen, mode, (8, 33, 65)), 3.0)


def perf_cases(gen):
    yield "8192x128", Call(*pair(gen, "standard", (8192, 128)))
    yield "1048576x128", Call(*pair(gen, "standard", (1 << 20, 128)))
    yield "65536x1024", Call(*pair(gen, "standard", (1 << 16, 1024)))


def flops(call, out):
    return 8 * call.args[0].numel()


TASK = Task(
    id="Fusion/fused_pairwise_distance_normalize_paired",
    entry="fused_pairwise_distance_normalize_paired",
    signature="fused_pairwise_distance_normalize_paired(x1: Tensor, x2: Tensor, p_norm: float = 2.0, "
              "eps_norm: float = 1e-12, eps_distance: float = 1e-6, keepdim: bool = False) -> Tensor",
    description="Normalizes x1 and x2 (each at least 2-D) along dimension 1 as torch.nn.functional.normalize: "
                "v / max(‖v‖_p, eps_norm) with p = p_norm, the norm taken over dim 1; then computes their "
                "pairwise distance along the LAST dimension as torch.nn.functional.pairwise_distance with the "
                "same p: (Σ_j |a_j − b_j + eps_distance|^p)^(1/p) (eps_distance is added to each difference). "
                "For 2-D inputs (N, D) both steps use dim 1, giving shape (N,); for 3-D inputs (N, C, L) the "
                "normalization is over C and the distance over L, giving (N, C). The normalized tensors "
                "broadcast against each other. keepdim=True keeps the reduced last dimension with size 1. "
                "Returns a new float32 tensor.",
    math=r"\hat{x} = \frac{x}{\max(\lVert x\rVert_{p,\,\mathrm{dim}=1}, \epsilon_n)},\quad "
         r"d = \Big(\sum_j |\hat{x}_{1,j} - \hat{x}_{2,j} + \epsilon_d|^p\Big)^{1/p}",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="x1, x2 float32; output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="Summation order in the norms is free; the tolerance allows for fp32 reassociation."),
    flops=flops,
    in_paper=False,
    deviations=(
        Deviation(Kind.DIFFERENT_TASK, "Fusion/fused_pairwise_distance_normalize returns the distance of every row "
                  "of x1 to every row of x2 (an N×M matrix), normalizing over the last dimension",
                  "the distance between corresponding rows (shape (N,)), as the upstream catalogue's torch code "
                  "writes it: F.normalize over dim 1, then F.pairwise_distance",
                  "kbx's earlier version of the paper task; kept as its own task because the row-paired form is "
                  "a different, memory-bound kernel"),
    ),
)
