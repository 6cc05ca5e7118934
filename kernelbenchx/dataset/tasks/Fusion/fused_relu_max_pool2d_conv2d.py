"""Fusion/fused_relu_max_pool2d_conv2d: ReLU of a 2-D max pooling of a 2-D convolution."""

import math

import torch
import torch.nn.functional as F

from kernelbenchx.dataset import precision
from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample


def reference(input: torch.Tensor, weight: torch.Tensor, bias=None, conv_stride=1, conv_padding=0, conv_dilation=1,
              conv_groups=1, pool_kernel_size=2, pool_stride=None, pool_padding=0, pool_dilation=1,
              pool_ceil_mode: bool = False, inplace: bool = False) -> torch.Tensor:
    conv = F.conv2d(input, weight, bias=bias, stride=conv_stride, padding=conv_padding, dilation=conv_dilation,
                    groups=conv_groups)
    pooled = F.max_pool2d(conv, kernel_size=pool_kernel_size, stride=pool_stride, padding=pool_padding,
                          dilation=pool_dilation, ceil_mode=pool_ceil_mode)
    return F.relu(pooled, inplace=inplace)


def conv_inputs(gen, mode, x_shape, w_shape, bias=True):
    """Input, filters scaled by 1/sqrt(fan-in) (outputs of order 1) and an optional bias."""
    fan_in = w_shape[1] * w_shape[2] * w_shape[3]
    w = sample(w_shape, gen, mode) / math.sqrt(fan_in)
    return sample(x_shape, gen, mode), w, sample((w_shape[0],), gen, mode) * 0.5 if bias else None


def fixed_cases(gen):
    yield "example", Call(*conv_inputs(gen, "standard", (1, 3, 32, 32), (6, 3, 5, 5), bias=False), conv_padding=2)
    yield "pool3_stride2", Call(*conv_inputs(gen, "standard", (1, 3, 32, 32), (6, 3, 5, 5)), conv_stride=2,
                                pool_kernel_size=3, pool_stride=2)
    yield "pool_padding", Call(*conv_inputs(gen, "standard", (2, 4, 12, 11), (5, 4, 3, 3)), pool_kernel_size=3,
                               pool_stride=2, pool_padding=1)
    yield "ceil_mode", Call(*conv_inputs(gen, "standard", (1, 2, 12, 10), (4, 2, 3, 3)), pool_kernel_size=3,
                            pool_stride=2, pool_ceil_mode=True)
    yield "ceil_mode_padding", Call(*conv_inputs(gen, "standard", (1, 2, 11, 14), (3, 2, 2, 2)),
                                    pool_kernel_size=2, pool_stride=2, pool_padding=1, pool_ceil_mode=True)
    yield "pool_dilation", Call(*conv_inputs(gen, "standard", (1, 3, 15, 16), (4, 3, 3, 3)), pool_kernel_size=2,
                                pool_stride=1, pool_dilation=2)
    yield "rect_pool_groups", Call(*conv_inputs(gen, "standard", (2, 4, 14, 17), (6, 2, 3, 3)), 1, 1, 1, 2,
                                   (2, 3), (1, 2))
    yield "conv_tuple_args_inplace", Call(*conv_inputs(gen, "standard", (1, 3, 16, 13), (4, 3, 3, 2)),
                                          conv_stride=(2, 1), conv_padding=(1, 0), conv_dilation=(1, 2),
                                          inplace=True)
    yield "same_padding_unbatched", Call(*conv_inputs(gen, "standard", (3, 9, 8), (4, 3, 3, 3)),
                                         conv_padding="same")
    yield "negative_bias", Call(torch.zeros(1, 1, 6, 6), torch.zeros(2, 1, 3, 3), torch.tensor([-1.0, 0.5]))


def random_cases(gen, mode):
    yield "pad1_pool2", Call(*conv_inputs(gen, mode, (2, 8, 34, 34), (16, 8, 3, 3)), conv_padding=1)
    yield "pool3_s2_p1", Call(*conv_inputs(gen, mode, (2, 3, 45, 43), (12, 3, 3, 3), bias=False),
                              pool_kernel_size=3, pool_stride=2, pool_padding=1)
    yield "groups4_ceil_inplace", Call(*conv_inputs(gen, mode, (1, 16, 64, 50), (32, 4, 5, 5)), 1, 2, 1, 4, 3, 2,
                                       0, 1, True, True)
    yield "ceil_dilated_pool", Call(*conv_inputs(gen, mode, (2, 5, 27, 31), (7, 5, 3, 3)), pool_kernel_size=(3, 2),
                                    pool_stride=(2, 3), pool_dilation=(1, 2), pool_ceil_mode=True)


def perf_cases(gen):
    for s in (8, 11, 13):  # upstream's rows: 1 × 3 × (2^s + 2)², 64 filters 3×3, pool 2 stride 2
        hw = (1 << s) + 2
        yield f"1x3x{hw}x{hw}_k64", Call(*conv_inputs(gen, "standard", (1, 3, hw, hw), (64, 3, 3, 3)),
                                         pool_kernel_size=2, pool_stride=2)
    yield "16x64x128x128_k128", Call(*conv_inputs(gen, "standard", (16, 64, 128, 128), (128, 64, 3, 3)),
                                     conv_padding=1)


def pair(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value, value)


def conv_output_elements(call):
    """Number of convolution outputs (the pooling input), from torch's output-size rule."""
    names = ("input", "weight", "bias", "conv_stride", "conv_padding", "conv_dilation")
    args = dict(zip(names, call.args)) | {k: v for k, v in call.kwargs.items() if k in names}
    x, w = args["input"], args["weight"]
    stride, dilation = pair(args.get("conv_stride", 1)), pair(args.get("conv_dilation", 1))
    padding = args.get("conv_padding", 0)
    count = w.shape[0] * (x.shape[0] if x.dim() == 4 else 1)
    for i in range(2):
        size, k = x.shape[-2 + i], w.shape[2 + i]
        if padding == "same":
            count *= size
            continue
        pad = 0 if padding == "valid" else pair(padding)[i]
        count *= (size + 2 * pad - dilation[i] * (k - 1) - 1) // stride[i] + 1
    return count


def flops(call, out):
    return (2 * call.args[1][0].numel() + 1) * conv_output_elements(call) + out.numel()


TASK = Task(
    id="Fusion/fused_relu_max_pool2d_conv2d",
    entry="fused_relu_max_pool2d_conv2d",
    signature="fused_relu_max_pool2d_conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, "
              "conv_stride=1, conv_padding=0, conv_dilation=1, conv_groups=1, pool_kernel_size=2, pool_stride=None, "
              "pool_padding=0, pool_dilation=1, pool_ceil_mode: bool = False, inplace: bool = False) -> Tensor",
    description="Applies a 2-D convolution exactly as torch.nn.functional.conv2d with conv_stride, conv_padding "
                "(int, (h, w) pair, 'valid' or 'same'), conv_dilation and conv_groups (input (N, C_in, H, W) or "
                "unbatched (C_in, H, W); weight (C_out, C_in/groups, kH, kW); optional bias (C_out,); zero "
                "padding), then 2-D max pooling exactly as torch.nn.functional.max_pool2d (kernel "
                "pool_kernel_size; stride pool_stride, which defaults to the kernel size when None; implicit "
                "-inf padding pool_padding ≤ kernel/2; dilation pool_dilation; output size per dim "
                "floor_or_ceil((in + 2·pad − dilation·(k − 1) − 1)/stride) + 1, where with pool_ceil_mode=True "
                "ceil is used but a last window that would start in the right/bottom padding is dropped), "
                "then ReLU, max(0, x). Each size argument is an int or an (h, w) pair. `inplace` has no visible "
                "effect (torch's in-place ReLU on a temporary). Returns a new float32 tensor.",
    math=r"\mathrm{out} = \max(0, \mathrm{MaxPool2d}(\mathrm{conv2d}(x, W) + b))",
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
                            "tolerance; pooling and ReLU are exact selections."),
    flops=flops,
    unit="tf32",
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "rtol 1e-2, atol 1e-2·RMS(out), and relative RMS error ≤ "
                  f"{precision.TF32_REL_RMS:g}: TF32 products (rounded or truncated) pass, bf16 fail",
                  "the convolution is a matrix product; kbx admits TF32 tensor cores for fp32 products across its "
                  "matmul-class tasks, and the relative RMS bound still rejects lower operand precision"),
        Deviation(Kind.COVERAGE, "a few pooling configurations on 1–2 × 3 × 32² inputs, ceil mode and inplace "
                  "never set",
                  "adds pool padding, dilation, rectangular kernels and strides, ceil mode (with padding), conv "
                  "groups, tuple and 'same' conv arguments, unbatched input, inplace=True (no visible effect)",
                  "every argument of the signature; ceil mode's last-window rule is where kernels go wrong"),
        Deviation(Kind.PERF, "9 sizes, 1 × 3 × (2^s + 2)² for s = 5 … 13, 64 filters 3×3, pool 2 stride 2",
                  "s = 8, 11 and 13, plus 16 × 64 × 128² with 128 filters and padding 1",
                  "a subset spanning small to largest, plus a channel-heavy convolution where the product "
                  "dominates"),
    ),
)
