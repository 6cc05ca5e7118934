"""Quantization/conv2d_w8a8: conv2d with a per-tensor int8 input, per-output-channel int8 weights, int32 sums."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset import quantized
from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.quantized import Limits, activation_sample
from kernelbenchx.dataset.task import Call, Task, sample

# Measured with kernel-like variants of the pipeline and 100 stage-2 seeds: atol is twice the largest
# elementwise effect of rounding flips, LIMITS twice the worst faithful error against the float result.
TOLERANCE = Tolerance(rtol=0.0, atol=0.25, scale="rms")
LIMITS = Limits(rel_rmse=0.047, cosine=0.99946, rel_l1=0.048)
# Upstream judged against the float op with these absolute thresholds (dataset/quantized.py: upstream_judging).
UPSTREAM_THRESHOLDS = "cosine ≥ 0.95, relative L1 ≤ 0.05, RMSE ≤ 0.1"


def reference(input: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None,
              stride: int = 1, padding: int = 0) -> torch.Tensor:
    return quantized.conv2d_w8a8(input, weight, bias, stride, padding)


def unquantized(input: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None,
              stride: int = 1, padding: int = 0) -> torch.Tensor:
    return F.conv2d(input, weight, bias, stride, padding)


def check(call, output, expected, contract):
    return quantized.judge(output, expected, call.invoke(unquantized), contract.tolerance, LIMITS)


def fixed_cases(gen):
    yield "zero_input", Call(torch.zeros(1, 3, 8, 8), sample((4, 3, 3, 3), gen), sample((4,), gen))
    w = sample((6, 4, 3, 3), gen)
    w[2] = 0.0
    yield "zero_output_channel_pad1", Call(sample((2, 4, 9, 11), gen), w, None, 1, 1)
    yield "one_by_one_kernel", Call(sample((1, 8, 5, 7), gen), sample((5, 8, 1, 1), gen))
    yield "large_bias_stride2", Call(sample((2, 3, 15, 15), gen), sample((8, 3, 3, 3), gen),
                                     100.0 * sample((8,), gen), 2, 1)
    yield "extreme_channel_scales", Call(sample((1, 4, 10, 10), gen) * torch.logspace(-3, 3, 4).reshape(1, 4, 1, 1),
                                         sample((3, 4, 3, 3), gen) * torch.tensor([1e-3, 1.0, 1e3]).reshape(3, 1, 1, 1))
    yield "negative_zero", Call(torch.where(sample((1, 2, 6, 6), gen) > 0, -0.0, 1.0), sample((2, 2, 2, 2), gen))
    yield "kernel_7x7_stride2_pad3", Call(sample((1, 3, 23, 21), gen), sample((16, 3, 7, 7), gen),
                                          sample((16,), gen), 2, 3)
    # exact ties: with scales of exactly 1 (input max 127, every filter's max 127), every other input value is
    # r + 0.5 with |r + 0.5| in [63.5, 126.5], both signs and both parities of r; round half to even is the
    # pipeline, and rounding these ties any other way (half away from zero, half up, odd/even mixed up below
    # zero) moves RMS(out − pipeline) to several times the quantization error
    x = (torch.randint(63, 127, (1, 3, 7, 7), generator=gen).float() + 0.5) * torch.where(
        torch.rand((1, 3, 7, 7), generator=gen) < 0.5, -1.0, 1.0)
    x[0, 0, 0, 0] = 127.0
    w = torch.randint(-126, 127, (4, 3, 3, 3), generator=gen).float()
    w[:, 0, 0, 0] = 127.0
    yield "exact_ties_half_even", Call(x, w)


def random_cases(gen, mode):
    yield "rgb_3x3_pad1", Call(activation_sample((2, 3, 33, 33), gen, mode),
                               activation_sample((16, 3, 3, 3), gen, mode), activation_sample((16,), gen, mode), 1, 1)
    yield "pointwise_16_to_32", Call(activation_sample((2, 16, 20, 20), gen, mode),
                                     activation_sample((32, 16, 1, 1), gen, mode))
    yield "c8_3x3_stride2", Call(activation_sample((1, 8, 31, 29), gen, mode),
                                 activation_sample((24, 8, 3, 3), gen, mode), activation_sample((24,), gen, mode), 2, 1)


def perf_cases(gen):
    # Upstream's rows: no bias, stride 1, padding 1 (recovered from the FLOP counts of its golden results).
    for xs, ws in (((1, 3, 224, 224), (64, 3, 7, 7)), ((2, 64, 56, 56), (128, 64, 3, 3)),
                   ((4, 128, 28, 28), (256, 128, 3, 3))):
        yield (f"n{xs[0]}_c{xs[1]}_{xs[2]}x{xs[3]}_k{ws[2]}_co{ws[0]}",
               Call(sample(xs, gen).clamp(-10, 10), sample(ws, gen).clamp(-10, 10), None, 1, 1))


def flops(call, out):
    weight = call.args[1]
    return 2.0 * out.numel() * weight[0].numel()


TASK = Task(
    id="Quantization/conv2d_w8a8",
    entry="conv2d_w8a8",
    signature="conv2d_w8a8(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: int = 1, "
              "padding: int = 0) -> Tensor",
    description="W8A8 2-D convolution (cross-correlation, no dilation, one group) of input (N, C_in, H, W) with "
                "weight (C_out, C_in, kH, kW), optional bias (C_out,), integer stride and zero padding applied "
                "equally to both spatial dimensions; everything float32, output float32 (N, C_out, H_out, W_out) "
                "with H_out = (H + 2·padding − kH) // stride + 1 (likewise W_out). The result is defined "
                "by this exact quantization pipeline (no quantized PyTorch APIs); the unquantized "
                "torch.nn.functional.conv2d(input, weight, bias, stride, padding) is only the accuracy yardstick:\n"
                "1. input, ONE scale for the whole tensor: s_x = max |input| / 127 (fp32); "
                "q_x = clamp(round(input / s_x), -127, 127) as int8, rounding half to even; padding is 0.\n"
                "2. weight, one scale per output channel: s_w[co] = max over (C_in, kH, kW) of |weight[co]| / 127; "
                "q_w = clamp(round(weight / s_w[co]), -127, 127) as int8, rounding half to even.\n"
                "   A tensor or channel whose max is 0 quantizes to all zeros.\n"
                "3. acc = conv2d(q_x, q_w), accumulated exactly in int32.\n"
                "4. out[n, co, h, w] = float(acc[n, co, h, w]) · s_x · s_w[co] + bias[co] in fp32 (bias is "
                "added after dequantization, unquantized).",
    math=r"Y=s_x\,s_w[c_o]\,\mathrm{conv2d}(\mathrm{rne}(X/s_x),\ \mathrm{rne}(W/s_w))+b,\quad "
         r"s_x=\max|X|/127,\ s_w[c_o]=\max|W_{c_o}|/127",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input, weight and bias float32; output float32",
                      tolerance=TOLERANCE, accumulation="int32 (exact integer dot products)",
                      notes=quantized.describe_rules(TOLERANCE, LIMITS)),
    flops=flops,
    unit="int8",
    check=check,
    deviations=quantized.upstream_judging(UPSTREAM_THRESHOLDS),
)
