"""Fusion/fused_cosine_embedding_loss_with_normalization: L2-normalize both inputs, then cosine embedding loss."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, input_flops, randint, sample


def reference(input1: torch.Tensor, input2: torch.Tensor, target: torch.Tensor, margin: float = 0,
              reduction: str = "mean") -> torch.Tensor:
    a, b = F.normalize(input1, p=2, dim=1), F.normalize(input2, p=2, dim=1)
    return F.cosine_embedding_loss(a, b, target, margin=margin, reduction=reduction)


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
    for n in (4096, 65536, 262144):
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
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="Summation order is free; atol covers fp32 reassociation of the row sums."),
    flops=input_flops(10),
)
