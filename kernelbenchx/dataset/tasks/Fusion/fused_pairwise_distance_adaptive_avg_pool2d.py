"""Fusion/fused_pairwise_distance_adaptive_avg_pool2d: per-sample p-norm distance of two adaptively average-pooled
image batches."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample, uniform


def reference(x1: torch.Tensor, x2: torch.Tensor, output_size, p: float = 2.0, eps: float = 1e-6,
              keepdim: bool = False) -> torch.Tensor:
    diff = F.adaptive_avg_pool2d(x1, output_size) - F.adaptive_avg_pool2d(x2, output_size)
    # The norm runs over all of (C, oH, oW) of each sample, in float64 (torch's CPU norm sums sequentially).
    dist = torch.linalg.vector_norm(diff.double(), ord=p, dim=(1, 2, 3), keepdim=keepdim)
    return (dist + eps).to(diff.dtype)


def pair(gen, mode, shape):
    return sample(shape, gen, mode), sample(shape, gen, mode)


def fixed_cases(gen):
    yield "example", Call(*pair(gen, "standard", (4, 3, 32, 32)), (8, 8))
    yield "uniform_inputs", Call(uniform((2, 3, 64, 64), gen), uniform((2, 3, 64, 64), gen), (16, 16))
    yield "identical_inputs", Call(*[sample((2, 3, 8, 8), gen)] * 2, 4)
    yield "uneven_windows_keepdim", Call(*pair(gen, "standard", (2, 2, 13, 11)), (5, 3), 2.0, 1e-6, True)
    yield "p1_int_size", Call(*pair(gen, "standard", (1, 4, 10, 10)), 3, p=1.0)
    yield "p3_none_size", Call(*pair(gen, "standard", (2, 3, 9, 7)), (None, 4), p=3.0)
    yield "p_inf", Call(*pair(gen, "standard", (2, 2, 12, 12)), (3, 6), p=float("inf"))
    yield "upsampling_large_eps", Call(*pair(gen, "standard", (1, 2, 3, 5)), (7, 9), 2.0, 0.5)
    yield "global_keepdim", Call(*pair(gen, "standard", (5, 6, 8, 8)), 1, keepdim=True)
    # a 47×47 window: an area of 2209 is not exact in float16 (nor any odd count above 2048); means apart by ~1
    yield "global_odd_area_2209", Call(sample((2, 2, 47, 47), gen) + 1.0, sample((2, 2, 47, 47), gen), 1)
    yield "broadcast_x2", Call(sample((3, 2, 16, 16), gen), sample((1, 2, 16, 16), gen), (4, 4))


def random_cases(gen, mode):
    yield "halve", Call(*pair(gen, mode, (4, 8, 64, 64)), (32, 32))
    yield "to8_keepdim", Call(*pair(gen, mode, (4, 8, 64, 64)), (8, 8), keepdim=True)
    yield "uneven_p1", Call(*pair(gen, mode, (4, 8, 45, 51)), (7, 10), 1.0, 1e-6)
    yield "p3_large_eps", Call(*pair(gen, mode, (2, 16, 33, 40)), (16, 16), p=3.0, eps=1e-2)


def perf_cases(gen):
    for s in (8, 11, 12):  # upstream's rows: (16, 3, 2^s, 2^s) pooled to 2^(s−1)
        hw = 1 << s
        yield f"16x3x{hw}x{hw}_to{hw // 2}", Call(uniform((16, 3, hw, hw), gen), uniform((16, 3, hw, hw), gen),
                                                  (hw // 2, hw // 2))


def flops(call, out):
    """One add per input element for the pooling, three operations per pooled difference for the norm."""
    x1, x2, size = call.args[:3]
    size = size if isinstance(size, (tuple, list)) else (size, size)
    oh = size[0] if size[0] is not None else x1.shape[-2]
    ow = size[1] if size[1] is not None else x1.shape[-1]
    pooled = max(x1.shape[0], x2.shape[0]) * x1.shape[1] * oh * ow
    return x1.numel() + x2.numel() + 3 * pooled


TASK = Task(
    id="Fusion/fused_pairwise_distance_adaptive_avg_pool2d",
    entry="fused_pairwise_distance_adaptive_avg_pool2d",
    signature="fused_pairwise_distance_adaptive_avg_pool2d(x1: Tensor, x2: Tensor, output_size: int | tuple, "
              "p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor",
    description="Applies adaptive average pooling (torch.nn.functional.adaptive_avg_pool2d) to x1 and to x2 (both "
                "(N, C, H, W); x2 may have batch size 1 and broadcast) with output_size (oH, oW) (an int means "
                "(s, s); a None entry keeps that input size): output cell (i, j) averages rows floor(i·H/oH) to "
                "ceil((i+1)·H/oH) − 1 and columns floor(j·W/oW) to ceil((j+1)·W/oW) − 1 (windows may overlap, or "
                "repeat when upsampling). Then, for each sample n, the p-norm of the difference of the pooled "
                "tensors over ALL of its (C, oH, oW) values, plus eps: out[n] = (Σ_{c,i,j} |a − b|^p)^(1/p) + eps "
                "(p = inf: the largest |a − b|; eps is added to the norm, not to the differences). The result "
                "is a new float32 tensor of shape (N,), or (N, 1, 1, 1) when keepdim is True.",
    math=r"d_n = \Big(\sum_{c,i,j} |\bar{x}_1[n,c,i,j] - \bar{x}_2[n,c,i,j]|^p\Big)^{1/p} + \epsilon",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="x1, x2 float32; output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="Summation order within the pooling windows and the norm is free. The norm sums "
                            "positive terms, so its fp32 rounding error is relative to the result (a few ulp for "
                            "blocked sums), well inside rtol."),
    flops=flops,
    deviations=(
        Deviation(Kind.COVERAGE, "2–4 × 3–8 × 32²–64² inputs of U(0, 1) or N(0, 1), windows that divide evenly, "
                  "p ∈ {1, 2}",
                  "adds uneven and overlapping windows, upsampling, None entries, p = 3 and inf, a large eps, "
                  "identical inputs and a broadcast x2",
                  "adaptive pooling's window rule only shows on sizes that do not divide; p and eps are arguments "
                  "of the signature"),
        Deviation(Kind.PERF, "10 sizes, 16 × 3 × 2^s² pooled to 2^(s−1) for s = 4 … 13",
                  "s = 8, 11 and 12",
                  "a subset spanning small to largest that fits the GPU: at s = 13 each input is 12.9 GB, and "
                  "three input sets of x1 and x2 would need 77 GB"),
    ),
)
