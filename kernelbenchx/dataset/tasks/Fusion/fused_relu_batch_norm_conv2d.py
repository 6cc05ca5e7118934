"""Fusion/fused_relu_batch_norm_conv2d: ReLU of batch normalization of a 2-D convolution."""

import math

import torch
import torch.nn.functional as F

from kernelbenchx.dataset import precision
from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample, uniform


def reference(input: torch.Tensor, weight: torch.Tensor, bias=None, stride=1, padding=0, dilation=1, groups=1,
              running_mean=None, running_var=None, bn_weight=None, bn_bias=None, training: bool = False,
              momentum: float = 0.1, eps: float = 1e-5, inplace: bool = False) -> torch.Tensor:
    conv = F.conv2d(input, weight, bias=bias, stride=stride, padding=padding, dilation=dilation, groups=groups)
    normed = F.batch_norm(conv, running_mean, running_var, bn_weight, bn_bias, training=training,
                          momentum=momentum, eps=eps)
    return F.relu(normed, inplace=inplace)


def layer(gen, mode, x_shape, w_shape, conv_bias=True, stats=True, affine=True):
    """Positional arguments up to groups are filled with defaults; BN statistics near the convolution's own."""
    c_out = w_shape[0]
    fan_in = w_shape[1] * w_shape[2] * w_shape[3]
    x = sample(x_shape, gen, mode)
    w = sample(w_shape, gen, mode) / math.sqrt(fan_in)
    b = sample((c_out,), gen, mode) * 0.5 if conv_bias else None
    mean = sample((c_out,), gen, mode) * 0.3 if stats else None
    var = uniform((c_out,), gen, 0.5, 2.0) if stats else None
    gamma = uniform((c_out,), gen, 0.5, 1.5) if affine else None
    beta = sample((c_out,), gen, mode) * 0.3 if affine else None
    return [x, w, b, 1, 0, 1, 1, mean, var, gamma, beta]


def with_conv(args, stride=1, padding=0, dilation=1, groups=1):
    args[3:7] = [stride, padding, dilation, groups]
    return args


def fixed_cases(gen):
    yield "eval_pad1", Call(*with_conv(layer(gen, "standard", (1, 3, 5, 5), (6, 3, 3, 3)), padding=1))
    yield "train_example", Call(*with_conv(layer(gen, "standard", (1, 3, 5, 5), (6, 3, 3, 3), conv_bias=False),
                                           padding=1), True)
    yield "train_stride2_no_affine", Call(*with_conv(layer(gen, "standard", (2, 3, 9, 9), (6, 3, 3, 3),
                                                           affine=False), stride=2, padding=1), True, 0.3, 1e-3)
    yield "train_no_running_stats", Call(*layer(gen, "standard", (2, 4, 7, 8), (5, 4, 3, 3), stats=False), True)
    yield "eval_groups_dilation", Call(*with_conv(layer(gen, "standard", (2, 4, 13, 11), (6, 2, 3, 3)),
                                                  dilation=2, groups=2), False, 0.1, 1e-2)
    yield "eval_no_affine_inplace", Call(*layer(gen, "standard", (1, 2, 6, 7), (3, 2, 2, 2), affine=False),
                                         inplace=True)
    yield "train_same_tuple", Call(*with_conv(layer(gen, "standard", (3, 2, 10, 9), (4, 2, 3, 5)),
                                              padding="same"), True, 0.5)
    yield "train_momentum1_rect_stride", Call(*with_conv(layer(gen, "standard", (2, 3, 4, 5), (4, 3, 3, 3)),
                                                         stride=(2, 1), padding=(0, 1)), True, 1.0, 1e-5)
    # training mode on channels centred far from zero (conv bias ~100, spread ~1): scale·v + shift cancels two
    # values of ~100, so scale and shift must be fp32 (an fp16 scale is off by ~100·2^-12 after the cancellation)
    args = layer(gen, "standard", (2, 3, 6, 6), (4, 3, 3, 3))
    args[2] = args[2] + 100.0
    yield "train_large_offset", Call(*args, True)


def random_cases(gen, mode):
    yield "train_pad1", Call(*with_conv(layer(gen, mode, (2, 8, 33, 35), (16, 8, 3, 3)), padding=1), True)
    yield "eval_groups4_stride2", Call(*with_conv(layer(gen, mode, (1, 16, 64, 50), (32, 4, 5, 5)), stride=2,
                                                  padding=2, groups=4))
    yield "train_rgb_no_bias_inplace", Call(*layer(gen, mode, (2, 3, 45, 43), (12, 3, 3, 3), conv_bias=False), True,
                                            0.2, 1e-3, True)
    yield "eval_pad1_inplace", Call(*with_conv(layer(gen, mode, (1, 6, 20, 24), (8, 6, 3, 3)), padding=1),
                                    inplace=True)


def perf_cases(gen):
    for i in (0, 2, 4):  # upstream's rows: (1, 64·2^i, 32·2^i, 32·2^i) → 128·2^i channels, eval mode
        c, hw = 64 << i, 32 << i
        yield f"eval_1x{c}x{hw}x{hw}_k{2 * c}", Call(*with_conv(layer(gen, "standard", (1, c, hw, hw),
                                                                      (2 * c, c, 3, 3), conv_bias=False), padding=1))
    yield "train_8x256x64x64_k256", Call(*with_conv(layer(gen, "standard", (8, 256, 64, 64), (256, 256, 3, 3),
                                                          conv_bias=False), padding=1), True)


def flops(call, out):
    return (2 * call.args[1][0].numel() + 8) * out.numel()


TASK = Task(
    id="Fusion/fused_relu_batch_norm_conv2d",
    entry="fused_relu_batch_norm_conv2d",
    signature="fused_relu_batch_norm_conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, "
              "padding=0, dilation=1, groups=1, running_mean: Tensor | None = None, "
              "running_var: Tensor | None = None, bn_weight: Tensor | None = None, bn_bias: Tensor | None = None, "
              "training: bool = False, momentum: float = 0.1, eps: float = 1e-5, inplace: bool = False) -> Tensor",
    description="Applies a 2-D convolution exactly as torch.nn.functional.conv2d (input (N, C_in, H, W); weight "
                "(C_out, C_in/groups, kH, kW); optional bias (C_out,); stride, padding and dilation each an int "
                "or an (h, w) pair; padding may also be 'valid' or 'same'; zero padding), then batch "
                "normalization per output channel c as torch.nn.functional.batch_norm, then ReLU. "
                "training=False: y = (v − running_mean[c]) / sqrt(running_var[c] + eps) (running stats required). "
                "training=True: the mean and the biased variance of channel c over the batch and both spatial "
                "dims are used instead, and when running_mean/running_var are given they are updated in place: "
                "running_mean = (1 − momentum)·running_mean + momentum·mean and running_var = (1 − momentum)·"
                "running_var + momentum·unbiased variance (count/(count − 1) times the biased one). Then "
                "y·bn_weight[c] + bn_bias[c] (each omitted when None), then max(0, ·). `inplace` has no visible "
                "effect. Returns a new float32 tensor (N, C_out, H_out, W_out).",
    math=r"\mathrm{out} = \max\!\left(0, \frac{\mathrm{conv2d}(x) - \mu}{\sqrt{\sigma^2 + \epsilon}}\gamma + "
         r"\beta\right)",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input, weight, bias, running stats and BN parameters float32; output float32",
                      tolerance=Tolerance(rtol=1e-2, atol=1e-2, scale="rms", rel_rms=precision.TF32_REL_RMS),
                      tf32=True,
                      precision=precision.TF32_PRECISION,
                      mutates=(7, 8),
                      notes="The convolution may use TF32 products with fp32 accumulation, hence the RMS-scaled "
                            "tolerance (also applied to the updated running statistics). In training mode "
                            "running_mean and running_var (positional arguments 7 and 8) must hold the updated "
                            "statistics afterwards; in eval mode they must be left unchanged."),
    flops=flops,
    unit="tf32",
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  f"rtol 1e-2, atol 1e-2·RMS, and relative RMS error ≤ {precision.TF32_REL_RMS:g} on the output and "
                  "on the updated running statistics: TF32 products (rounded or truncated) pass, bf16 fail",
                  "the convolution is a matrix product; kbx admits TF32 tensor cores for fp32 products across its "
                  "matmul-class tasks, and the relative RMS bound still rejects lower operand precision"),
        Deviation(Kind.COVERAGE, "4 × 3 × 32² and 2 × 3 × 32² inputs, running statistics 0 and 1, unit affine "
                  "parameters in the fixed cases, inplace never set",
                  "adds strides, dilation, groups, 'same' and tuple padding, no conv bias, no running statistics, "
                  "no affine parameters, momentum 0.2 … 1, statistics away from 0 and 1, inplace=True (no visible "
                  "effect) with both modes",
                  "every argument of the signature; zero means and unit variances hide a kernel that ignores them"),
        Deviation(Kind.PERF, "5 sizes, eval mode, (1, 64·2^i, 32·2^i, 32·2^i) → 128·2^i channels, i = 0 … 4",
                  "i = 0, 2 and 4 in eval mode, plus training mode on 8 × 256 × 64² → 256",
                  "a subset spanning small to largest, plus the training path (batch statistics), which "
                  "upstream never times"),
    ),
)
