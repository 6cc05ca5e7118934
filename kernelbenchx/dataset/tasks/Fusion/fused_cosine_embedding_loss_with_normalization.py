"""Fusion/fused_cosine_embedding_loss_with_normalization: L2-normalize both inputs, then cosine embedding loss."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, input_flops, randint, sample
from kernelbenchx.dataset.tasks.Fusion import _stat_bounds as sb


def reference(input1: torch.Tensor, input2: torch.Tensor, target: torch.Tensor, margin: float = 0,
              reduction: str = "mean") -> torch.Tensor:
    a, b = F.normalize(input1, p=2, dim=1), F.normalize(input2, p=2, dim=1)
    return F.cosine_embedding_loss(a, b, target, margin=margin, reduction=reduction)


def bind(input1, input2, target, margin=0, reduction="mean"):
    return input1, input2, target, margin, reduction


def error_bound(call: Call) -> torch.Tensor:
    """Each row's cosine error (cosine_err over D; the normalizations' scale errors are covered by the norm
    terms), carried by 1 − cos or max(0, cos − margin), then the reduction's bound."""
    x1, x2, target, margin, reduction = bind(*call.args, **call.kwargs)
    cos, dcos = sb.cosine_err(x1, x2, 1, 1e-12)
    loss = torch.where(target == 1, 1 - cos, torch.where(target == -1, (cos - margin).clamp_min(0), 0 * cos))
    dloss = dcos + 2 * sb.E32 * (1 + loss.abs())
    return sb.reduce_loss_bound(loss, dloss, reduction)


def signs(n, gen):
    return randint((n,), gen, 0, 2) * 2 - 1


def fixed_cases(gen):
    yield "example", Call(sample((3, 5), gen), sample((3, 5), gen), torch.tensor([1, -1, 1]))
    yield "none_margin", Call(sample((8, 16), gen), sample((8, 16), gen), signs(8, gen), 0.2, "none")
    yield "sum_negative_margin", Call(sample((8, 16), gen), sample((8, 16), gen), signs(8, gen), -0.3, "sum")
    yield "parallel_and_opposite", Call(torch.tensor([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [1.0, 0.0, 0.0],
                                                      [1.0, 0.0, 0.0]]),
                                        torch.tensor([[2.0, 4.0, 6.0], [-1.0, -2.0, -3.0], [-3.0, 0.0, 0.0],
                                                      [5.0, 0.0, 0.0]]),
                                        torch.tensor([1, 1, -1, -1]), 0.5, "none")
    yield "zero_rows", Call(torch.tensor([[0.0, 0.0], [1.0, 1.0], [0.0, 0.0]]),
                            torch.tensor([[1.0, 2.0], [0.0, 0.0], [0.0, 0.0]]), torch.tensor([1, -1, 1]), -0.5,
                            "none")
    # Rows of norm 1e-18 … 3e-13, below the 1e-12 clamp: the normalized rows have norms 1e-6 … 0.3, so the
    # 1e-12 added to Σ a² and Σ b² is no longer negligible (cos shrinks by up to 1/√2).
    scale = torch.tensor([1e-18, 1.0, 1e-18, 3e-18, 1.0, 3e-13, 1e-17])[:, None]
    scale2 = torch.tensor([1.0, 1e-18, 1e-18, 1.0, 2e-18, 1.0, 1.0])[:, None]
    yield "tiny_norm_rows", Call(sample((7, 5), gen) * scale, sample((7, 5), gen) * scale2,
                                 torch.tensor([1, 1, -1, -1, 1, 1, -1]), -0.5, "none")
    yield "scaled_rows", Call(sample((6, 7), gen) * 1e3, sample((6, 7), gen) * 1e-3, signs(6, gen), 0.0, "none")


def random_cases(gen, mode):
    yield "n4096_d64_mean", Call(sample((4096, 64), gen, mode), sample((4096, 64), gen, mode), signs(4096, gen))
    yield "n1000_d257_none", Call(sample((1000, 257), gen, mode), sample((1000, 257), gen, mode), signs(1000, gen),
                                  0.1, "none")
    yield "n300_d33_sum_correlated", Call(*correlated(300, 33, gen, mode), signs(300, gen), -0.2, "sum")


def correlated(n, d, gen, mode):
    a = sample((n, d), gen, mode)
    return a, a + 0.5 * sample((n, d), gen, mode)


def perf_cases(gen):
    for n in (4096, 65536, 1 << 20):
        yield f"n{n}_d256", Call(sample((n, 256), gen), sample((n, 256), gen), signs(n, gen))


TASK = Task(
    id="Fusion/fused_cosine_embedding_loss_with_normalization",
    entry="fused_cosine_embedding_loss_with_normalization",
    signature="fused_cosine_embedding_loss_with_normalization(input1: Tensor, input2: Tensor, target: Tensor, "
              "margin: float = 0, reduction: str = 'mean') -> Tensor",
    description="input1 and input2 are (N, D) float32; target is (N,) int64 with values 1 or −1. First each row is "
                "L2-normalized: a = x / max(‖x‖₂, 1e-12) (a zero row stays zero). Then, per row, "
                "cos = Σ a·b / sqrt((Σ a² + 1e-12)·(Σ b² + 1e-12)) and the loss is 1 − cos where target = 1, and "
                "max(0, cos − margin) where target = −1. reduction='none' returns the (N,) losses, 'mean' their "
                "mean and 'sum' their sum (0-dim tensors). Output float32.",
    math=r"\ell_i = \begin{cases} 1 - \cos(\hat a_i, \hat b_i) & y_i = 1 \\ \max(0, \cos(\hat a_i, \hat b_i) - m) "
         r"& y_i = -1 \end{cases},\quad \hat a = a / \max(\lVert a\rVert_2, 10^{-12})",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input1, input2 float32 (N, D); target int64 (N,); output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1.0, scale="bound"),
                      bound="per row δℓ = δcos + 2ε(1 + |ℓ|) with δcos = 2ε√D‖a∘b‖₂/(|a||b|) + (ρ_a + ρ_b + 4ε)·"
                            "Σ|a∘b|/(|a||b|) (|a| = max(‖a‖₂, 1e-12), ρ_a = ε√D‖a²‖₂/|a|² + 2ε); 'sum' adds the rows' "
                            "δℓ and 2ε√N‖ℓ‖₂, 'mean' divides that by N; ε = 2⁻²³",
                      notes="Summation order is free (row sums and the reduction may be split or atomic)."),
    error_bound=error_bound,
    flops=input_flops(10),
    choices={"reduction": ("none", "mean", "sum")},
    deviations=(
        Deviation(Kind.UPSTREAM_BUG, "the reference computes its own loss, max(clamp(1 − y·cos, 0), margin − "
                  "cos), which differs from cosine_embedding_loss for target −1",
                  "torch.nn.functional.cosine_embedding_loss on the L2-normalized inputs: 1 − cos for target 1, "
                  "max(0, cos − margin) for target −1",
                  "The description and catalogue of the task call torch.nn.functional.cosine_embedding_loss; "
                  "kbx computes that.", in_prompt=True),
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5", "an error bound propagated through each "
                  "row's cosine and the reduction, with rtol 1e-5",
                  "a fixed atol ignores the row length and the reduction size; the bound follows both"),
        Deviation(Kind.PERF, "9 sizes, (N, 256) with N = 4096 … 1048576", "N = 4096, 65536 and 1048576",
                  "three of upstream's sizes, small to its largest"),
    ),
)
