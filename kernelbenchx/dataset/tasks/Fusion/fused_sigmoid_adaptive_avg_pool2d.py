"""Fusion/fused_sigmoid_adaptive_avg_pool2d: sigmoid of a 2-D adaptive average pooling."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.layouts import sliced, transposed
from kernelbenchx.dataset.task import Call, Task, sample, uniform


def reference(input: torch.Tensor, output_size) -> torch.Tensor:
    return torch.sigmoid(F.adaptive_avg_pool2d(input, output_size))


def fixed_cases(gen):
    yield "halve", Call(sample((1, 3, 16, 16), gen), (8, 8))
    yield "global", Call(sample((2, 3, 9, 9), gen) + 1.0, (1, 1))
    yield "identity_size", Call(sample((1, 2, 5, 7), gen) * 4.0, (5, 7))
    yield "uneven_windows", Call(sample((2, 2, 13, 11), gen) * 3.0, (5, 3))
    yield "int_size_upsample", Call(sample((1, 2, 3, 4), gen), 6)
    yield "none_size", Call(sample((2, 3, 9, 10), gen), (None, 4))
    yield "unbatched", Call(sample((4, 10, 12), gen), (3, 5))
    # Large windows (global pooling) of non-contiguous inputs: the layout cases relay a small-window case.
    yield "global_transposed", Call(transposed(sample((2, 3, 12, 10), gen)), 1)
    yield "big_windows_sliced", Call(sliced(sample((1, 2, 20, 18), gen) * 2.0), (2, 1))
    # a 47×47 window: an area of 2209 is not exact in float16 (nor any odd count above 2048); mean near 2
    yield "global_odd_area_2209", Call(sample((1, 2, 47, 47), gen) + 2.0, 1)
    yield "saturating", Call(torch.tensor([[[[-200.0, -100.0], [40.0, 200.0]]]]).repeat(1, 2, 2, 2), (2, 2))


def random_cases(gen, mode):
    yield "halve", Call(sample((2, 8, 62, 62), gen, mode) * 4.0, (31, 31))
    yield "uneven", Call(sample((4, 16, 45, 51), gen, mode) * 8.0, (7, 10))
    yield "global", Call(sample((8, 32, 13, 13), gen, mode) * 10.0 + 1.0, 1)


def perf_cases(gen):
    yield "2x2x256x256_to1", Call(uniform((2, 2, 256, 256), gen), (1, 1))
    yield "32x256x64x64_to7", Call(sample((32, 256, 64, 64), gen) * 4.0, (7, 7))
    yield "16x64x256x256_to1", Call(uniform((16, 64, 256, 256), gen), (1, 1))
    yield "16x64x256x256_to32", Call(sample((16, 64, 256, 256), gen) * 4.0, (32, 32))


def flops(call, out):
    return call.args[0].numel() + 4 * out.numel()


TASK = Task(
    id="Fusion/fused_sigmoid_adaptive_avg_pool2d",
    entry="fused_sigmoid_adaptive_avg_pool2d",
    signature="fused_sigmoid_adaptive_avg_pool2d(input: Tensor, output_size: int | tuple[int | None, int | None]) "
              "-> Tensor",
    description="Applies adaptive average pooling (torch.nn.functional.adaptive_avg_pool2d) to the input "
                "((N, C, H, W) or (C, H, W)) with output_size (oH, oW) (an int means (s, s); a None entry keeps "
                "that input size): output cell (i, j) is the mean of rows floor(i·H/oH) to ceil((i+1)·H/oH) − 1 "
                "and columns floor(j·W/oW) to ceil((j+1)·W/oW) − 1 (windows may overlap, or repeat when "
                "upsampling). Then sigmoid, 1/(1 + exp(−v)), elementwise. Returns a new float32 tensor of shape "
                "(N, C, oH, oW) (or (C, oH, oW)).",
    math=r"\mathrm{out}_{n,c,i,j} = \sigma\Big(\frac{1}{|R_i||C_j|}\sum_{h\in R_i, w\in C_j} x_{n,c,h,w}\Big)",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32; output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="Summation order within a pooling window is free."),
    flops=flops,
    deviations=(
        Deviation(Kind.COVERAGE, "windows that divide the input evenly (8×8 → 4, 32×32 → 8 or 1)",
                  "adds uneven and overlapping windows, upsampling, None entries, unbatched 3-D inputs, identity "
                  "sizes and saturating values",
                  "adaptive pooling's window rule only shows on sizes that do not divide"),
        Deviation(Kind.PERF, "10 sizes up to 2×2×256×256 (2^18 elements), all pooled to 1×1",
                  "upstream's largest (2×2×256×256 → 1×1), then 16×64×256×256 → 1×1, 32×256×64×64 → 7×7 and "
                  "16×64×256×256 → 32×32",
                  "below about 2^20 elements a GPU measures launch overhead; the larger cases time the same global "
                  "pooling and the common small-window forms at a size that fills the GPU"),
    ),
)
