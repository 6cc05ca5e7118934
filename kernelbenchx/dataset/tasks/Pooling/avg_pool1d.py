"""Pooling/avg_pool1d: 1D average pooling with stride and zero padding (padding counted in the divisor)."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample
from kernelbenchx.dataset.tasks.Pooling.adaptive_avg_pool2d import window_mean_bound
from kernelbenchx.dataset import bounds as _bounds


def reference(input: torch.Tensor, kernel_size, stride=None, padding=0) -> torch.Tensor:
    return F.avg_pool1d(input, kernel_size, stride=stride, padding=padding)


def bind(input, kernel_size, stride=None, padding=0):
    return input, kernel_size, stride, padding


def error_bound(call: Call) -> torch.Tensor:
    x, k, s, p = bind(*call.args, **call.kwargs)
    x = x.double()
    mean = F.avg_pool1d(x, k, stride=s, padding=p)
    mean_sq = F.avg_pool1d(x * x, k, stride=s, padding=p)
    return window_mean_bound(mean, mean_sq, k[0] if isinstance(k, (tuple, list)) else k)


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
    k = int(torch.randint(1, 9, (), generator=gen))
    yield "random_k_offset", Call(sample((3, 11, 777), gen, mode) + 4.0, k, int(torch.randint(1, 5, (), generator=gen)),
                                  k // 2)


def perf_cases(gen):
    # upstream: avg_pool1d(x, kernel_size=2) on (2, 64, 2^10 … 2^15)
    for e in (10, 13, 15):
        yield f"2x64x{1 << e}_k2", Call(sample((2, 64, 1 << e), gen), 2)


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
                      tolerance=Tolerance(rtol=1e-5, atol=1.0, scale="bound"),
                      bound="B = 2ε·(√(window mean of x²) + √k·|window mean|) + 2ε·|window mean| over the k "
                            "(zero-padded) elements of a window, i.e. B_sum/k + 2ε·|mean| where " + _bounds.SUM_TEXT),
    error_bound=error_bound,
    flops=flops,
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "an accumulation bound on each window's mean (see the contract) plus rtol 1e-5",
                  "the bound scales with the window's magnitude (data with a large mean); it admits every "
                  "summation order and rejects fp16/bf16 accumulation (tests/test_tolerances.py)"),
        Deviation(Kind.COVERAGE, "(N, C, L) inputs with kernel_size 2 or 3",
                  "adds strides larger than the kernel, zero padding counted in the divisor, one-element tuples, "
                  "unbatched inputs, random kernel sizes and strides", "the signature promises them"),
        Deviation(Kind.PERF, "6 sizes, (2, 64, 2^10 … 2^15), kernel_size 2", "(2, 64, 2^10 | 2^13 | 2^15), "
                  "kernel_size 2", "a subset spanning upstream's range"),
    ),
)
