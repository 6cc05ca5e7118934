"""Fusion/fused_pairwise_distance_adaptive_avg_pool2d: p-norm distance along the last dim of two pooled maps."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, sample


def reference(x1: torch.Tensor, x2: torch.Tensor, output_size, p: float = 2.0, eps: float = 1e-6,
              keepdim: bool = False) -> torch.Tensor:
    pooled1 = F.adaptive_avg_pool2d(x1, output_size)
    pooled2 = F.adaptive_avg_pool2d(x2, output_size)
    return F.pairwise_distance(pooled1, pooled2, p=p, eps=eps, keepdim=keepdim)


def pair(gen, mode, shape):
    return sample(shape, gen, mode), sample(shape, gen, mode)


def fixed_cases(gen):
    yield "example", Call(*pair(gen, "standard", (4, 3, 32, 32)), (8, 8))
    yield "identical_inputs", Call(*[sample((2, 3, 8, 8), gen)] * 2, 4)
    yield "uneven_windows", Call(*pair(gen, "standard", (2, 2, 13, 11)), (5, 3), 2.0, 1e-6, True)
    yield "p1_int_size", Call(*pair(gen, "standard", (1, 4, 10, 10)), 3, p=1.0)
    yield "p3_none_size", Call(*pair(gen, "standard", (2, 3, 9, 7)), (None, 4), p=3.0)
    yield "p_inf", Call(*pair(gen, "standard", (2, 2, 12, 12)), (3, 6), p=float("inf"))
    yield "upsampling_large_eps", Call(*pair(gen, "standard", (1, 2, 3, 5)), (7, 9), 2.0, 0.5)
    yield "unbatched_global", Call(*pair(gen, "standard", (5, 6, 8)), 1, keepdim=True)
    yield "broadcast_x2", Call(sample((3, 2, 16, 16), gen), sample((1, 2, 16, 16), gen), (4, 4))


def random_cases(gen, mode):
    yield "halve", Call(*pair(gen, mode, (16, 3, 64, 64)), (32, 32))
    yield "uneven_p1_keepdim", Call(*pair(gen, mode, (4, 8, 45, 51)), (7, 10), 1.0, 1e-6, True)
    yield "p3", Call(*pair(gen, mode, (2, 16, 33, 40)), (16, 16), p=3.0)


def perf_cases(gen):
    yield "16x3x128x128_to64", Call(*pair(gen, "standard", (16, 3, 128, 128)), (64, 64))
    yield "16x3x1024x1024_to512", Call(*pair(gen, "standard", (16, 3, 1024, 1024)), (512, 512))
    yield "16x3x2048x2048_to1024", Call(*pair(gen, "standard", (16, 3, 2048, 2048)), (1024, 1024))


def flops(call, out):
    """One add per input element for the pooling, four operations per pooled difference for the norm."""
    x1, x2, size = call.args[:3]
    size = size if isinstance(size, (tuple, list)) else (size, size)
    pooled_width = size[1] if size[1] is not None else max(x1.shape[-1], x2.shape[-1])
    return x1.numel() + x2.numel() + 4 * out.numel() * pooled_width  # keepdim does not change out.numel()


TASK = Task(
    id="Fusion/fused_pairwise_distance_adaptive_avg_pool2d",
    entry="fused_pairwise_distance_adaptive_avg_pool2d",
    signature="fused_pairwise_distance_adaptive_avg_pool2d(x1: Tensor, x2: Tensor, output_size: int | tuple, "
              "p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor",
    description="Applies adaptive average pooling (torch.nn.functional.adaptive_avg_pool2d) to x1 and to x2 "
                "((N, C, H, W) or (C, H, W)) with output_size (oH, oW) (an int means (s, s); a None entry keeps "
                "that input size): output cell (i, j) averages rows floor(i·H/oH) to ceil((i+1)·H/oH) − 1 and "
                "columns floor(j·W/oW) to ceil((j+1)·W/oW) − 1 (windows may overlap, or repeat when upsampling). "
                "Then the pairwise distance of the pooled tensors along their LAST dimension (oW), as "
                "torch.nn.functional.pairwise_distance: ‖a − b + eps‖_p = (Σ_j |a_j − b_j + eps|^p)^(1/p) (eps "
                "is added to each difference; p = inf gives the max). The pooled tensors broadcast against each "
                "other. The result drops the last dimension, e.g. (N, C, oH), or keeps it with size 1 when "
                "keepdim is True. Returns a new float32 tensor.",
    math=r"d_{n,c,i} = \Big(\sum_j |\bar{x}_1[n,c,i,j] - \bar{x}_2[n,c,i,j] + \epsilon|^p\Big)^{1/p}",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="x1, x2 float32; output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="Summation order within the pooling windows and the norm is free; the tolerance "
                            "allows for fp32 reassociation."),
    flops=flops,
)
