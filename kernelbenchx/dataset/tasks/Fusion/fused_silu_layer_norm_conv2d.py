"""Fusion/fused_silu_layer_norm_conv2d: SiLU of a per-sample LayerNorm (over C, H, W) of a 2-D convolution."""

import math

import torch
import torch.nn.functional as F

from kernelbenchx.dataset import precision
from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample


def reference(x: torch.Tensor, weight: torch.Tensor, conv_weight: torch.Tensor, conv_bias=None, conv_stride=1,
              conv_padding=0, conv_dilation=1, conv_groups=1, ln_eps: float = 1e-5) -> torch.Tensor:
    conv = F.conv2d(x, conv_weight, bias=conv_bias, stride=conv_stride, padding=conv_padding,
                    dilation=conv_dilation, groups=conv_groups)
    # As upstream: `weight` is accepted but the layer norm has no affine parameters.
    return F.silu(F.layer_norm(conv, conv.shape[1:], eps=ln_eps))


def conv_inputs(gen, mode, x_shape, w_shape, bias=True):
    """x, the (unused) LayerNorm weight, filters scaled by 1/sqrt(fan-in) and an optional per-channel bias."""
    fan_in = w_shape[1] * w_shape[2] * w_shape[3]
    w = sample(w_shape, gen, mode) / math.sqrt(fan_in)
    bias = sample((w_shape[0],), gen, mode) if bias else None
    return sample(x_shape, gen, mode), sample((w_shape[0],), gen, mode), w, bias


def fixed_cases(gen):
    yield "example_pad1", Call(*conv_inputs(gen, "standard", (4, 3, 32, 32), (8, 3, 3, 3)), conv_padding=1)
    yield "no_bias", Call(*conv_inputs(gen, "standard", (2, 3, 9, 10), (5, 3, 3, 3), bias=False))
    yield "stride2_dilation2", Call(*conv_inputs(gen, "standard", (2, 4, 17, 15), (6, 4, 3, 3)), 2, 1, 2)
    yield "groups2_tuple", Call(*conv_inputs(gen, "standard", (1, 4, 12, 11), (6, 2, 3, 2)), conv_stride=(1, 2),
                                conv_padding=(2, 0), conv_groups=2)
    yield "same_large_eps", Call(*conv_inputs(gen, "standard", (3, 2, 7, 8), (4, 2, 3, 3)), conv_padding="same",
                                 ln_eps=1.0)
    yield "single_output_pixel", Call(*conv_inputs(gen, "standard", (2, 3, 3, 3), (7, 3, 3, 3)))
    x, _, w, b = conv_inputs(gen, "standard", (1, 3, 5, 5), (6, 3, 3, 3))
    yield "weight_none_stride2_pad1", Call(x, None, w, b, conv_stride=2, conv_padding=1)
    yield "constant_conv", Call(torch.zeros(2, 2, 5, 5), torch.ones(3), torch.zeros(3, 2, 3, 3),
                                torch.tensor([1.0, 1.0, 1.0]))
    yield "per_sample_scale", Call(*conv_inputs(gen, "standard", (3, 2, 8, 8), (4, 2, 3, 3))[:2],
                                   sample((4, 2, 3, 3), gen) * 100.0, None)
    # tiny values with the default ln_eps: the variance (~1e-8) is far below eps = 1e-5, so the output scales as
    # 1/sqrt(eps) and a different default eps shows in the relative RMS error
    x, weight, w, _ = conv_inputs(gen, "standard", (2, 3, 7, 7), (4, 3, 3, 3), bias=False)
    yield "tiny_values_default_eps", Call(x * 1e-4, weight, w)


def random_cases(gen, mode):
    yield "pad1", Call(*conv_inputs(gen, mode, (2, 8, 33, 35), (16, 8, 3, 3)), conv_padding=1)
    yield "groups4_stride2", Call(*conv_inputs(gen, mode, (1, 16, 64, 50), (32, 4, 5, 5)), 2, 2, 1, 4)
    yield "rgb_dilated_no_bias", Call(*conv_inputs(gen, mode, (2, 3, 45, 43), (12, 3, 3, 3), bias=False),
                                      conv_dilation=2, ln_eps=1e-3)


def perf_cases(gen):
    yield "1x8x32x32_k64", Call(*conv_inputs(gen, "standard", (1, 8, 32, 32), (64, 8, 3, 3)))
    yield "4x32x128x128_k64", Call(*conv_inputs(gen, "standard", (4, 32, 128, 128), (64, 32, 3, 3)))
    yield "16x128x512x512_k64", Call(*conv_inputs(gen, "standard", (16, 128, 512, 512), (64, 128, 3, 3)))


def flops(call, out):
    return (2 * call.args[2][0].numel() + 12) * out.numel()


TASK = Task(
    id="Fusion/fused_silu_layer_norm_conv2d",
    entry="fused_silu_layer_norm_conv2d",
    signature="fused_silu_layer_norm_conv2d(x: Tensor, weight: Tensor | None, conv_weight: Tensor, "
              "conv_bias: Tensor | None = None, conv_stride=1, conv_padding=0, conv_dilation=1, conv_groups=1, "
              "ln_eps: float = 1e-5) -> Tensor",
    description="Applies a 2-D convolution exactly as torch.nn.functional.conv2d (x (N, C_in, H, W); conv_weight "
                "(C_out, C_in/groups, kH, kW); optional conv_bias (C_out,); stride, padding and dilation each an "
                "int or an (h, w) pair; padding may also be 'valid' or 'same'; zero padding), giving v of shape "
                "(N, C_out, H_out, W_out); then layer normalization of each sample over all of its "
                "C_out·H_out·W_out values, (v − mean) / sqrt(var + ln_eps) with the biased variance and no "
                "scale or shift; then SiLU, t·sigmoid(t). `weight` (a (C_out,) tensor or None) is accepted for "
                "signature compatibility and is not used: the upstream reference normalizes without affine parameters. "
                "Returns a new float32 tensor (N, C_out, H_out, W_out).",
    math=r"v = \mathrm{conv2d}(x, W) + b,\quad t = \frac{v - \mathrm{E}_{c,h,w}[v]}{\sqrt{\mathrm{Var}_{c,h,w}[v] "
         r"+ \epsilon}},\quad \mathrm{out} = t\,\sigma(t)",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="x, weight, conv_weight, conv_bias float32; output float32",
                      tolerance=Tolerance(rtol=1e-2, atol=1e-2, scale="rms", rel_rms=precision.TF32_REL_RMS),
                      tf32=True,
                      precision=precision.TF32_PRECISION,
                      notes="The convolution may use TF32 products with fp32 accumulation, hence the RMS-scaled "
                            "tolerance; the per-sample mean and variance are fp32 reductions over C·H·W values."),
    flops=flops,
    unit="tf32",
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "rtol 1e-2, atol 1e-2·RMS(out), and relative RMS error ≤ "
                  f"{precision.TF32_REL_RMS:g}: TF32 products (rounded or truncated) pass, bf16 fail",
                  "the convolution is a matrix product; kbx admits TF32 tensor cores for fp32 products across its "
                  "matmul-class tasks, and the relative RMS bound still rejects lower operand precision"),
        Deviation(Kind.COVERAGE, "1 × 3 × 5² and 2 × 3 × 32² inputs, weight always None",
                  "adds groups, dilation, tuple and 'same' padding, a large ln_eps, a constant convolution (zero "
                  "variance), a single output pixel and samples of very different scales; weight passed as None "
                  "and as a (C_out,) tensor (ignored either way)",
                  "every argument of the signature; per-sample statistics only show with several samples of "
                  "different scales"),
        Deviation(Kind.PERF, "5 sizes, (2^(i−5), 2^(i−2), 2^i, 2^i) for i = 5 … 9, 64 filters 3×3 with bias",
                  "i = 5, 7 and 9", "a subset spanning small to largest"),
    ),
)
