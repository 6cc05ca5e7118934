"""Fusion/fused_pixel_shuffle_conv2d: a 2-D convolution followed by pixel-shuffle upscaling."""

import math

import torch
import torch.nn.functional as F

from kernelbenchx.dataset import precision
from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample


def reference(input: torch.Tensor, weight: torch.Tensor, bias=None, stride=1, padding=0, dilation=1, groups=1,
              upscale_factor: int = 2) -> torch.Tensor:
    conv = F.conv2d(input, weight, bias=bias, stride=stride, padding=padding, dilation=dilation, groups=groups)
    return F.pixel_shuffle(conv, upscale_factor)


def conv_inputs(gen, mode, x_shape, w_shape, bias=True):
    """Input, filters scaled by 1/sqrt(fan-in) (outputs of order 1) and an optional bias."""
    fan_in = w_shape[1] * w_shape[2] * w_shape[3]
    w = sample(w_shape, gen, mode) / math.sqrt(fan_in)
    return sample(x_shape, gen, mode), w, sample((w_shape[0],), gen, mode) if bias else None


def fixed_cases(gen):
    yield "example", Call(*conv_inputs(gen, "standard", (1, 8, 16, 16), (16, 8, 3, 3), bias=False), padding=1)
    yield "bias_r2", Call(*conv_inputs(gen, "standard", (2, 3, 7, 9), (12, 3, 3, 3)))
    yield "r3", Call(*conv_inputs(gen, "standard", (1, 4, 6, 5), (18, 4, 3, 3)), 1, 1, 1, 1, 3)
    yield "r1_identity_shuffle", Call(*conv_inputs(gen, "standard", (2, 3, 8, 8), (5, 3, 3, 3)),
                                      upscale_factor=1)
    yield "groups2_stride2", Call(*conv_inputs(gen, "standard", (2, 4, 11, 13), (8, 2, 3, 3)), 2, 1, 1, 2)
    yield "dilation_tuple_padding", Call(*conv_inputs(gen, "standard", (1, 2, 12, 10), (4, 2, 3, 3)), 1, (2, 1), 2)
    yield "same_unbatched", Call(*conv_inputs(gen, "standard", (3, 9, 7), (8, 3, 3, 3)), padding="same")
    yield "zeros", Call(torch.zeros(1, 1, 4, 4), torch.zeros(4, 1, 1, 1), torch.tensor([1.0, 2.0, 3.0, 4.0]))


def random_cases(gen, mode):
    yield "pad1_r2", Call(*conv_inputs(gen, mode, (2, 8, 33, 35), (32, 8, 3, 3)), padding=1)
    yield "rgb_r3", Call(*conv_inputs(gen, mode, (4, 3, 31, 29), (27, 3, 3, 3), bias=False), 1, 1, 1, 1, 3)
    yield "groups4_stride2", Call(*conv_inputs(gen, mode, (1, 16, 40, 48), (16, 4, 5, 5)), stride=2, padding=2,
                                  groups=4, upscale_factor=2)


def perf_cases(gen):
    yield "16x3x64x64_k12", Call(*conv_inputs(gen, "standard", (16, 3, 64, 64), (12, 3, 3, 3)))
    yield "16x3x1024x1024_k12", Call(*conv_inputs(gen, "standard", (16, 3, 1024, 1024), (12, 3, 3, 3)))
    yield "8x64x128x128_k256", Call(*conv_inputs(gen, "standard", (8, 64, 128, 128), (256, 64, 3, 3)), padding=1)


def flops(call, out):
    return (2 * call.args[1][0].numel() + 1) * out.numel()


TASK = Task(
    id="Fusion/fused_pixel_shuffle_conv2d",
    entry="fused_pixel_shuffle_conv2d",
    signature="fused_pixel_shuffle_conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, "
              "padding=0, dilation=1, groups=1, upscale_factor: int = 2) -> Tensor",
    description="Applies a 2-D convolution exactly as torch.nn.functional.conv2d (cross-correlation; input "
                "(N, C_in, H, W) or unbatched (C_in, H, W); weight (C_out, C_in/groups, kH, kW); optional bias "
                "(C_out,); stride, padding and dilation each an int or an (h, w) pair; padding may also be "
                "'valid' or 'same' (stride 1 only); zero padding; groups split channels into independent "
                "blocks), giving y of shape (N, C_out, H_out, W_out), then pixel shuffle with factor r = "
                "upscale_factor (C_out divisible by r²): out[n, c, h·r + i, w·r + j] = y[n, c·r² + i·r + j, h, w], "
                "shape (N, C_out/r², H_out·r, W_out·r). Returns a new float32 tensor (unbatched input gives an "
                "unbatched output).",
    math=r"\mathrm{out}[n, c, hr + i, wr + j] = \mathrm{conv2d}(x, W)[n, c r^2 + i r + j, h, w]",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input, weight, bias float32; output float32",
                      tolerance=Tolerance(rtol=1e-2, atol=1e-2, scale="rms", rel_rms=precision.TF32_REL_RMS),
                      tf32=True,
                      precision=precision.TF32_PRECISION,
                      notes="The convolution may use TF32 products with fp32 accumulation, hence the RMS-scaled "
                            "tolerance."),
    flops=flops,
    unit="tf32",
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "rtol 1e-2, atol 1e-2·RMS(out), and relative RMS error ≤ "
                  f"{precision.TF32_REL_RMS:g}: TF32 products (rounded or truncated) pass, bf16 fail",
                  "the convolution is a matrix product; kbx admits TF32 tensor cores for fp32 products across its "
                  "matmul-class tasks, and the relative RMS bound still rejects lower operand precision"),
        Deviation(Kind.COVERAGE, "1–2 × 3–4 channel inputs, upscale factor 2, stride and padding as ints",
                  "adds factors 1 and 3, groups, dilation, tuple and 'same' padding, unbatched input",
                  "every argument of the signature"),
        Deviation(Kind.PERF, "7 sizes, 16 × 3 × 2^s² for s = 4 … 10, 12 filters 3×3 with bias, factor 2",
                  "s = 6 and 10, plus 8 × 64 × 128² with 256 filters and padding 1",
                  "a subset of upstream's sizes, plus a channel-heavy convolution where the product dominates"),
    ),
)
