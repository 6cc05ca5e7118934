"""Pooling/adaptive_avg_pool2d: average pooling of each plane onto a requested output grid."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample
from kernelbenchx.dataset import bounds as _bounds


def reference(input: torch.Tensor, output_size) -> torch.Tensor:
    return F.adaptive_avg_pool2d(input, output_size)


def bind(input, output_size):
    return input, output_size


def window_mean_bound(mean: torch.Tensor, mean_sq: torch.Tensor, count) -> torch.Tensor:
    """B_sum/n + 2ε·|mean| for a mean over n terms, from the window's mean and mean square:
    2ε·(√mean_sq + √n·|mean|) + 2ε·|mean|."""
    eps = _bounds.EPS32
    return _bounds.C * eps * (mean_sq.sqrt() + count ** 0.5 * mean.abs()) + 2 * eps * mean.abs()


def error_bound(call: Call) -> torch.Tensor:
    x, output_size = bind(*call.args, **call.kwargs)
    x = x.double()
    mean, mean_sq = F.adaptive_avg_pool2d(x, output_size), F.adaptive_avg_pool2d(x * x, output_size)
    h, w = x.shape[-2:]
    s0, s1 = mean.shape[-2:]
    rows = torch.tensor([-(-(i + 1) * h // s0) - (i * h // s0) for i in range(s0)], dtype=torch.float64)
    cols = torch.tensor([-(-(j + 1) * w // s1) - (j * w // s1) for j in range(s1)], dtype=torch.float64)
    return window_mean_bound(mean, mean_sq, rows[:, None] * cols[None, :])


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
    yield "global_offset", Call(sample((3, 8, 45, 47), gen, mode) + 5.0, 1)


def perf_cases(gen):
    # upstream: (1, 3, 2^8 … 2^15, same) halved in each dimension; 2^15 (12.9 GB per input) does not fit four
    # input sets on an 80 GB GPU
    for e in (8, 12, 13, 14):
        s = 1 << e
        yield f"1x3x{s}x{s}_to_{s // 2}", Call(sample((1, 3, s, s), gen), (s // 2, s // 2))


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
                      tolerance=Tolerance(rtol=1e-5, atol=1.0, scale="bound"),
                      bound="B = 2ε·(√(window mean of x²) + √n·|window mean|) + 2ε·|window mean| for a window of "
                            "n elements, i.e. B_sum/n + 2ε·|mean| where " + _bounds.SUM_TEXT,
                      notes="Summation order inside a window is free."),
    error_bound=error_bound,
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "an accumulation bound on each window's mean (see the contract) plus rtol 1e-5",
                  "the bound grows with the window and the data's magnitude as fp32 rounding does (global windows "
                  "of thousands of elements with a large mean); it admits every summation order and rejects "
                  "fp16/bf16 accumulation (tests/test_tolerances.py)"),
        Deviation(Kind.COVERAGE, "(1, 3, 256, 256) → (128, 128) style halvings",
                  "adds uneven and overlapping windows, upsampling, None entries, unbatched inputs, global pooling",
                  "the same semantics; uneven windows are what index arithmetic gets wrong"),
        Deviation(Kind.PERF, "8 sizes, (1, 3, 2^8 … 2^15, same) halved", "(1, 3, 2^8 | 2^12 | 2^13 | 2^14, same) "
                  "halved", "a subset of upstream's range; its largest input (12.9 GB) does not fit the rotating "
                  "input sets on an 80 GB GPU"),
    ),
    flops=flops,
)
