"""Normalization/normalize_pairwise_distance: p-norm distances between paired rows, then Lp-normalized."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, sample


def reference(x1, x2, p_distance: float = 2.0, eps_distance: float = 1e-6, keepdim: bool = False,
              p_norm: float = 2, dim_norm: int = 1, eps_norm: float = 1e-12) -> torch.Tensor:
    distance = F.pairwise_distance(x1, x2, p=p_distance, eps=eps_distance, keepdim=keepdim)
    return F.normalize(distance, p=p_norm, dim=dim_norm, eps=eps_norm)


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


def random_cases(gen, mode):
    yield "rows", Call(*pair((16, 1023, 17), gen, mode))
    yield "l1", Call(*pair((7, 301, 67), gen, mode), 1.0, 1e-5, p_norm=1, dim_norm=0)
    yield "keepdim_wide", Call(*pair((3, 129, 513), gen, mode), keepdim=True)


def perf_cases(gen):
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
                      tolerance=Tolerance(rtol=1e-5, atol=1e-6),
                      notes="Both norms are reductions whose order is free; outputs are at most 1 in magnitude."),
    flops=lambda call, out: 3.0 * max(call.args[0].numel(), call.args[1].numel()) + 3.0 * out.numel(),
)
