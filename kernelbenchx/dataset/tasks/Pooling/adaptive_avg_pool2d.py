"""Pooling/adaptive_avg_pool2d: average pooling of each plane onto a requested output grid."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, sample


def reference(input: torch.Tensor, output_size) -> torch.Tensor:
    return F.adaptive_avg_pool2d(input, output_size)


def fixed_cases(gen):
    yield "divisible", Call(torch.arange(64, dtype=torch.float32).reshape(1, 1, 8, 8), 4)
    yield "global", Call(sample((2, 3, 9, 11), gen), 1)
    yield "uneven_bins", Call(sample((2, 4, 10, 9), gen), (3, 4))
    yield "upsample", Call(sample((1, 2, 3, 5), gen), (7, 8))
    yield "none_keeps_height", Call(sample((2, 5, 6, 13), gen), (None, 5))
    yield "none_keeps_width", Call(sample((3, 11, 7), gen), [4, None])
    yield "unbatched_square", Call(sample((4, 15, 15), gen), 7)


def random_cases(gen, mode):
    yield "batch", Call(sample((4, 16, 37, 53), gen, mode), (7, 9))
    yield "unbatched", Call(sample((24, 61, 59), gen, mode), 5)
    yield "upsample", Call(sample((2, 32, 23, 29), gen, mode), (31, None))


def perf_cases(gen):
    yield "1x3x256x256_to_128", Call(sample((1, 3, 256, 256), gen), (128, 128))
    yield "32x256x56x56_to_7", Call(sample((32, 256, 56, 56), gen), (7, 7))
    yield "64x2048x14x14_to_5x3", Call(sample((64, 2048, 14, 14), gen), (5, 3))
    yield "4x3x4096x4096_to_2048", Call(sample((4, 3, 4096, 4096), gen), (2048, 2048))


def bin_lengths(n_in: int, n_out: int) -> int:
    """Σ over output positions of the bin length: bin i covers [floor(i·n_in/n_out), ceil((i+1)·n_in/n_out))."""
    return sum(-(-(i + 1) * n_in // n_out) - (i * n_in // n_out) for i in range(n_out))


def flops(call, out):
    x = call.args[0]
    planes = x.numel() // (x.shape[-2] * x.shape[-1])
    adds = planes * bin_lengths(x.shape[-2], out.shape[-2]) * bin_lengths(x.shape[-1], out.shape[-1])
    return float(adds + out.numel())


TASK = Task(
    id="Pooling/adaptive_avg_pool2d",
    entry="adaptive_avg_pool2d",
    signature="adaptive_avg_pool2d(input: Tensor, output_size: int | tuple[int | None, int | None]) -> Tensor",
    description="Adaptive 2D average pooling. `input` is (N, C, H, W) or (C, H, W); every plane is pooled onto an "
                "output grid of size (S0, S1) given by `output_size`: an int S means (S, S); a pair (or list) of "
                "two entries gives (S0, S1), where None keeps the corresponding input size. Output element (i, j) "
                "is the mean of the input window rows [floor(i·H/S0), ceil((i+1)·H/S0)) × columns "
                "[floor(j·W/S1), ceil((j+1)·W/S1)); windows may differ in size, may overlap, and when S > H "
                "(upsampling) some input rows feed several outputs. Output shape (N, C, S0, S1) or (C, S0, S1), "
                "same dtype as the input.",
    math=r"y_{ij} = \frac{1}{|R_i||C_j|}\sum_{h \in R_i}\sum_{w \in C_j} x_{hw},\ "
         r"R_i = [\lfloor iH/S_0 \rfloor, \lceil (i+1)H/S_0 \rceil)",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32; output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="Summation order inside a window is free."),
    flops=flops,
)
