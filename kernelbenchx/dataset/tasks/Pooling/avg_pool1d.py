"""Pooling/avg_pool1d: 1D average pooling with stride and zero padding (padding counted in the divisor)."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, sample


def reference(input: torch.Tensor, kernel_size, stride=None, padding=0) -> torch.Tensor:
    return F.avg_pool1d(input, kernel_size, stride=stride, padding=padding)


def fixed_cases(gen):
    yield "ramp_k2", Call(torch.arange(12, dtype=torch.float32).reshape(1, 1, 12), 2)
    yield "k3_s2", Call(sample((2, 3, 17), gen), 3, 2)
    yield "padding_counts_zeros", Call(torch.ones(1, 2, 7), 3, 1, 1)
    yield "stride_larger_than_kernel", Call(sample((2, 4, 29), gen), 2, stride=5)
    yield "tuple_args", Call(sample((3, 5, 20), gen), (4,), (3,), (2,))
    yield "unbatched", Call(sample((6, 31), gen), 5, padding=2)
    yield "kernel_is_length", Call(sample((2, 3, 9), gen), 9)


def random_cases(gen, mode):
    yield "k3_s2_p1", Call(sample((4, 64, 1023), gen, mode), 3, 2, 1)
    yield "k4", Call(sample((8, 37, 500), gen, mode), 4)
    yield "k7_s3_p3_unbatched", Call(sample((96, 2049), gen, mode), 7, 3, padding=3)


def perf_cases(gen):
    yield "2x64x1024_k3_s2_p1", Call(sample((2, 64, 1024), gen), 3, 2, 1)
    yield "64x512x4096_k4", Call(sample((64, 512, 4096), gen), 4)
    yield "32x256x16384_k3_s1_p1", Call(sample((32, 256, 16384), gen), 3, 1, 1)


def flops(call, out):
    k = call.args[1]
    k = k[0] if isinstance(k, (tuple, list)) else k
    return float(out.numel() * k)


TASK = Task(
    id="Pooling/avg_pool1d",
    entry="avg_pool1d",
    signature="avg_pool1d(input: Tensor, kernel_size: int | tuple[int], stride: int | tuple[int] | None = None, "
              "padding: int | tuple[int] = 0) -> Tensor",
    description="1D average pooling over the last dimension of `input` of shape (N, C, L) or (C, L). Each of "
                "kernel_size, stride and padding is an int or a one-element tuple; stride defaults to kernel_size "
                "(None). The sequence is conceptually padded with `padding` zeros on both ends (padding ≤ "
                "kernel_size / 2). Output length L_out = floor((L + 2·padding − kernel_size) / stride) + 1, and "
                "out[..., l] is the sum of the kernel_size padded elements starting at position l·stride, divided "
                "by kernel_size: padded zeros count in the divisor (count_include_pad=True, ceil_mode=False). "
                "Output has the input's leading dimensions and dtype.",
    math=r"y(n, c, l) = \frac{1}{k}\sum_{m=0}^{k-1} x_{\text{pad}}(n, c, s\,l + m)",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32; output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5)),
    flops=flops,
)
