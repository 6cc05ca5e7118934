"""Fusion/fused_cos_avg_pool1d: elementwise cosine, then 1-D average pooling."""

import math

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample


def reference(input: torch.Tensor, kernel_size: int, stride=None, padding: int = 0, ceil_mode: bool = False,
              count_include_pad: bool = True) -> torch.Tensor:
    return F.avg_pool1d(torch.cos(input), kernel_size=kernel_size, stride=stride, padding=padding,
                        ceil_mode=ceil_mode, count_include_pad=count_include_pad)


def fixed_cases(gen):
    yield "example", Call(torch.tensor([[[1.0, 2.0, 3.0, 4.0, 5.0]]]), 2, 1)
    yield "stride_default", Call(sample((2, 3, 10), gen) * 3, 3)
    yield "padding_counted", Call(sample((2, 3, 11), gen) * 3, 3, 2, 1)
    yield "padding_not_counted", Call(sample((2, 3, 11), gen) * 3, 3, 2, 1, False, False)
    yield "ceil_mode_counted", Call(sample((1, 2, 10), gen) * 3, 3, 2, 1, True)
    yield "ceil_mode_not_counted", Call(sample((1, 2, 10), gen) * 3, 4, 3, 2, True, False)
    yield "ceil_mode_no_padding", Call(sample((1, 2, 8), gen) * 3, 3, 2, 0, True)
    yield "zeros_and_pi", Call(torch.tensor([[[0.0, math.pi, 0.0, -math.pi, 2 * math.pi, 0.5]]]), 2)
    # |x| up to ~1e4: the range reduction must stay accurate far from 0 (a float32 Cody–Waite step does not);
    # kept smaller than padding_counted, the case the layout cases derive from
    yield "large_arguments", Call(sample((1, 3, 20), gen) * 3e3, 2, 1)


def random_cases(gen, mode):
    yield "n8_c32_l1001_k3", Call(sample((8, 32, 1001), gen, mode) * 3, 3)
    yield "n4_c16_l2049_k4s2p2_ceil_exclude", Call(sample((4, 16, 2049), gen, mode) * 3, 4, 2, 2, True, False)
    yield "n16_c8_l777_k5s1p2", Call(sample((16, 8, 777), gen, mode) * 3, 5, 1, 2)


def perf_cases(gen):
    yield "n32_c32_l1536_k3", Call(sample((32, 32, 1536), gen) * 3, 3)
    yield "n32_c32_l2944_k3", Call(sample((32, 32, 2944), gen) * 3, 3)
    yield "n64_c256_l4096_k3", Call(sample((64, 256, 4096), gen) * 3, 3)
    yield "n128_c128_l8192_k4s2p1_ceil", Call(sample((128, 128, 8192), gen) * 3, 4, 2, 1, True)


def flops(call, out):
    return 8.0 * call.args[0].numel() + call.args[1] * out.numel()


TASK = Task(
    id="Fusion/fused_cos_avg_pool1d",
    entry="fused_cos_avg_pool1d",
    signature="fused_cos_avg_pool1d(input: Tensor, kernel_size: int, stride: int | None = None, padding: int = 0, "
              "ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor",
    description="input is (N, C, L) float32. Computes c = cos(input), then 1-D average pooling of c along the last "
                "dim exactly as torch.nn.functional.avg_pool1d: windows of kernel_size, stride (None means "
                "kernel_size), implicit zero padding of `padding` (≤ kernel_size/2) on both ends of c (padded "
                "positions contribute 0, not cos(0)). Output length: (L + 2·padding − kernel_size)/stride + 1, "
                "rounded down, or up when ceil_mode=True. Window j starts at t = j·stride − padding; with ceil_mode a "
                "last window with t ≥ L is dropped. The sum runs over "
                "the in-range positions of [t, t + kernel_size); the divisor is the length of "
                "[t, min(t + kernel_size, L + padding)) when count_include_pad=True, else the number of in-range "
                "positions. Output float32 (N, C, Lout).",
    math=r"y_{j} = \frac{1}{d_j}\sum_{i \in W_j \cap [0, L)} \cos(x_i)",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32; output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5)),
    flops=flops,
    deviations=(
        Deviation(Kind.PERF, "12 sizes, (32, 32, L) with L = 1536 … 2944, kernel 3 (stride 3)",
                  "L = 1536 and 2944 of those, plus (64, 256, 4096) with kernel 3 and (128, 128, 8192) with kernel "
                  "4, stride 2, padding 1, ceil_mode", "upstream's largest input is 12 MB, launch-bound on a "
                  "modern GPU; the added sizes time the bandwidth-bound regime and overlapping, padded windows"),
    ),
)
