"""Fusion/fused_leaky_relu_conv2d: 2-D convolution followed by LeakyReLU."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset import precision
from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample


def reference(input: torch.Tensor, weight: torch.Tensor, bias=None, stride=1, padding=0, dilation=1,
              groups: int = 1, negative_slope: float = 0.01) -> torch.Tensor:
    return F.leaky_relu(F.conv2d(input, weight, bias, stride, padding, dilation, groups), negative_slope)


def fixed_cases(gen):
    yield "example", Call(sample((1, 3, 5, 5), gen), sample((6, 3, 3, 3), gen), sample((6,), gen), padding=1,
                          negative_slope=0.1)
    yield "no_bias_stride2", Call(sample((1, 3, 5, 5), gen), sample((6, 3, 3, 3), gen), stride=2)
    yield "steep_slope", Call(sample((2, 3, 9, 9), gen), sample((4, 3, 3, 3), gen), sample((4,), gen), 1, 1,
                              negative_slope=0.5)
    yield "negative_slope_above_one", Call(sample((1, 2, 6, 6), gen), sample((3, 2, 2, 2), gen), None,
                                           negative_slope=2.0)
    yield "tuples_groups", Call(sample((2, 4, 11, 13), gen), sample((6, 2, 3, 3), gen), sample((6,), gen), (2, 1),
                                (1, 2), (1, 2), 2, 0.2)
    yield "padding_same", Call(sample((1, 2, 8, 7), gen), sample((3, 2, 3, 4), gen), None, padding="same",
                               negative_slope=0.3)
    # every output negative with the default slope: the output is 0.01·z throughout, so RMS(ref) is small and
    # a different default slope shows in the relative RMS error
    yield "all_negative_default_slope", Call(sample((1, 2, 6, 6), gen), sample((3, 2, 3, 3), gen) * 0.1,
                                             torch.tensor([-8.0, -5.0, -3.0]))


def random_cases(gen, mode):
    yield "rgb_129x100", Call(sample((1, 3, 129, 100), gen, mode), sample((6, 3, 3, 3), gen, mode),
                              sample((6,), gen, mode), negative_slope=0.2)
    yield "b4_c16_33x47", Call(sample((4, 16, 33, 47), gen, mode), sample((24, 16, 3, 3), gen, mode),
                               sample((24,), gen, mode), padding=1, negative_slope=0.1)
    yield "groups_stride2_dilation", Call(sample((2, 8, 64, 64), gen, mode), sample((8, 4, 3, 3), gen, mode), None,
                                          2, 2, 2, 2, 0.3)


def perf_cases(gen):
    yield "rgb_256x256", Call(sample((1, 3, 256, 256), gen), sample((6, 3, 3, 3), gen), sample((6,), gen))
    yield "rgb_1408x1408", Call(sample((1, 3, 1408, 1408), gen), sample((6, 3, 3, 3), gen), sample((6,), gen))
    yield "b16_c64_256x256", Call(sample((16, 64, 256, 256), gen), sample((64, 64, 3, 3), gen), sample((64,), gen),
                                  padding=1)


TASK = Task(
    id="Fusion/fused_leaky_relu_conv2d",
    entry="fused_leaky_relu_conv2d",
    signature="fused_leaky_relu_conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, "
              "stride: int | tuple[int, int] = 1, padding: int | tuple[int, int] | str = 0, "
              "dilation: int | tuple[int, int] = 1, groups: int = 1, negative_slope: float = 0.01) -> Tensor",
    description="2-D convolution (cross-correlation) exactly as torch.nn.functional.conv2d: input (N, Cin, H, W), "
                "weight (Cout, Cin/groups, kH, kW), optional bias (Cout,); stride, padding and dilation are ints or "
                "(h, w) pairs; padding may also be 'valid' or 'same' (output keeps H×W, stride 1; an odd leftover "
                "of padding goes at the bottom/right); zero padding; groups splits channels. Then LeakyReLU "
                "elementwise: x if x ≥ 0, negative_slope·x otherwise (any slope, including > 1). Output float32 "
                "(N, Cout, Hout, Wout). The upstream `inplace` argument is dropped (the conv result is a "
                "temporary, so it has no observable effect).",
    math=r"\mathrm{out} = \max(0, z) + \mathrm{negative\_slope}\cdot\min(0, z),\quad z = \mathrm{conv2d}(x, W) + b",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input, weight, bias float32; output float32",
                      tolerance=Tolerance(rtol=1e-2, atol=1e-2, scale="rms", rel_rms=precision.TF32_REL_RMS),
                      tf32=True,
                      precision=precision.TF32_PRECISION),
    flops=lambda call, out: 2.0 * out.numel() * call.args[1][0].numel() + 2.0 * out.numel(),
    unit="tf32",
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5 (fp32)", "|out − ref| ≤ 1e-2·RMS(ref) + "
                  "1e-2·|ref| and a relative RMS error ≤ 1e-3: TF32 tensor-core products pass, bf16 operands fail",
                  "1e-5 rejects any convolution that reorders its K-length dot products, let alone TF32, which the "
                  "GPU baseline's cuDNN may use too; the RMS bound still separates one precision step lower"),
        Deviation(Kind.PERF, "10 sizes, (1, 3, H, H) RGB images with H = 256 … 1408 and a 3→6 3×3 kernel",
                  "H = 256 and 1408, plus (16, 64, 256, 256) with a 64→64 3×3 kernel and padding 1",
                  "upstream's smallest and largest sizes; the added case has enough channels for the convolution "
                  "to be compute-bound, which the RGB cases never are"),
    ),
)
