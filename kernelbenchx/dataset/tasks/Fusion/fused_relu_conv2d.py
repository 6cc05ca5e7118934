"""Fusion/fused_relu_conv2d: ReLU of a 2-D convolution (torch.nn.functional.conv2d semantics)."""

import math

import torch
import torch.nn.functional as F

from kernelbenchx.dataset import precision
from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample


def reference(input: torch.Tensor, weight: torch.Tensor, bias=None, stride=1, padding=0, dilation=1, groups=1,
              inplace: bool = False) -> torch.Tensor:
    conv = F.conv2d(input, weight, bias=bias, stride=stride, padding=padding, dilation=dilation, groups=groups)
    return F.relu(conv, inplace=inplace)


def conv_inputs(gen, mode, x_shape, w_shape, bias=True):
    """Input, filters scaled by 1/sqrt(fan-in) (outputs of order 1) and an optional bias."""
    fan_in = w_shape[1] * w_shape[2] * w_shape[3]
    w = sample(w_shape, gen, mode) / math.sqrt(fan_in)
    return sample(x_shape, gen, mode), w, sample((w_shape[0],), gen, mode) * 0.5 if bias else None


def fixed_cases(gen):
    yield "example_padding", Call(*conv_inputs(gen, "standard", (1, 3, 5, 5), (6, 3, 3, 3)), padding=1)
    yield "no_bias_stride2", Call(*conv_inputs(gen, "standard", (1, 3, 5, 5), (6, 3, 3, 3), bias=False), stride=2)
    yield "dilation2", Call(*conv_inputs(gen, "standard", (2, 4, 13, 11), (5, 4, 3, 3)), 1, 2, 2)
    yield "groups2", Call(*conv_inputs(gen, "standard", (2, 4, 9, 9), (6, 2, 3, 3)), groups=2)
    yield "depthwise", Call(*conv_inputs(gen, "standard", (1, 6, 10, 12), (6, 1, 3, 3)), 1, 1, 1, 6)
    yield "same_rect_kernel", Call(*conv_inputs(gen, "standard", (2, 3, 9, 14), (4, 3, 3, 5)), padding="same")
    yield "valid", Call(*conv_inputs(gen, "standard", (1, 2, 7, 8), (3, 2, 2, 2)), padding="valid")
    yield "tuple_args", Call(*conv_inputs(gen, "standard", (2, 3, 17, 15), (4, 3, 3, 2)), (2, 1), (1, 2), (1, 2))
    yield "pointwise_inplace", Call(*conv_inputs(gen, "standard", (3, 8, 6, 7), (5, 8, 1, 1)), inplace=True)
    yield "unbatched", Call(*conv_inputs(gen, "standard", (3, 8, 8), (4, 3, 3, 3)), padding=1)
    yield "zeros", Call(torch.zeros(1, 2, 5, 5), torch.zeros(3, 2, 3, 3), torch.tensor([-1.0, 0.0, 2.0]))


def random_cases(gen, mode):
    yield "pad1", Call(*conv_inputs(gen, mode, (2, 8, 33, 35), (16, 8, 3, 3)), padding=1)
    yield "groups4_stride2", Call(*conv_inputs(gen, mode, (1, 16, 64, 50), (32, 4, 5, 5)), 2, 2, 1, 4)
    yield "rgb_dilated_no_bias", Call(*conv_inputs(gen, mode, (2, 3, 45, 43), (12, 3, 3, 3), bias=False),
                                      padding="same", dilation=2, inplace=True)


def perf_cases(gen):
    yield "1x3x256x256_k64", Call(*conv_inputs(gen, "standard", (1, 3, 256, 256), (64, 3, 3, 3), bias=False),
                                  padding=1)
    yield "1x3x2048x2048_k64", Call(*conv_inputs(gen, "standard", (1, 3, 2048, 2048), (64, 3, 3, 3), bias=False),
                                    padding=1)
    yield "32x128x64x64_k256", Call(*conv_inputs(gen, "standard", (32, 128, 64, 64), (256, 128, 3, 3)), padding=1)


def flops(call, out):
    return (2 * call.args[1][0].numel() + 1) * out.numel()


TASK = Task(
    id="Fusion/fused_relu_conv2d",
    entry="fused_relu_conv2d",
    signature="fused_relu_conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, "
              "dilation=1, groups=1, inplace: bool = False) -> Tensor",
    description="Applies a 2-D convolution exactly as torch.nn.functional.conv2d (cross-correlation; input "
                "(N, C_in, H, W) or unbatched (C_in, H, W); weight (C_out, C_in/groups, kH, kW); optional bias "
                "(C_out,); stride, padding and dilation each an int or an (h, w) pair; padding may also be "
                "'valid' (none) or 'same' (stride 1 only; output spatial size equals the input's, any odd "
                "padding total goes to the bottom/right); zero padding; groups split channels into independent "
                "blocks), then ReLU, max(0, x), elementwise. Output size per spatial dim: "
                "floor((in + 2·pad − dilation·(k − 1) − 1)/stride) + 1. `inplace` only says whether torch "
                "applies the ReLU to the convolution's temporary in place and has no visible effect. Returns a "
                "new float32 tensor (N, C_out, H_out, W_out) (unbatched: (C_out, H_out, W_out)).",
    math=r"\mathrm{out} = \max(0, \mathrm{conv2d}(x, W) + b)",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input, weight, bias float32; output float32",
                      tolerance=Tolerance(rtol=1e-2, atol=1e-2, scale="rms", rel_rms=precision.TF32_REL_RMS),
                      tf32=True,
                      precision=precision.TF32_PRECISION,
                      notes="The convolution may use TF32 products with fp32 accumulation (implicit GEMM), hence "
                            "the RMS-scaled tolerance."),
    flops=flops,
    unit="tf32",
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "rtol 1e-2, atol 1e-2·RMS(out), and relative RMS error ≤ "
                  f"{precision.TF32_REL_RMS:g}: TF32 products (rounded or truncated) pass, bf16 fail",
                  "the convolution is a matrix product (implicit GEMM); kbx admits TF32 tensor cores for fp32 "
                  "products across its matmul-class tasks (cuDNN's default for convolutions too), and the relative "
                  "RMS bound still rejects lower operand precision"),
        Deviation(Kind.COVERAGE, "one input shape class (1–2 × 3–4 channels), stride/padding/dilation/groups as "
                  "ints, inplace never set",
                  "adds tuple arguments, 'same'/'valid' padding, depthwise and grouped filters, rectangular "
                  "kernels, unbatched input, inplace=True (no visible effect) and 32 × 128 channels",
                  "every argument of torch's conv2d signature"),
        Deviation(Kind.PERF, "7 sizes, 1 × 3 × 2^5 … 2^11 squared, 64 filters 3×3, padding 1",
                  "1 × 3 × 256² and 2048², plus 32 × 128 × 64² with 256 filters",
                  "a subset of upstream's sizes, plus a channel-heavy convolution where the product dominates"),
    ),
)
