"""Quantization/linear_w4a16: fp16 linear whose weight is quantized to int4 per output channel (weight-only)."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset import quantized
from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.quantized import Limits, activation_sample
from kernelbenchx.dataset.task import Call, Task, sample

# Measured with kernel-like variants of the pipeline and 100 stage-2 seeds: atol is twice the largest
# elementwise effect of rounding flips, LIMITS twice the worst faithful error against the float result.
TOLERANCE = Tolerance(rtol=0.0, atol=1.0, scale="rms")
LIMITS = Limits(rel_rmse=0.66, cosine=0.8999, rel_l1=0.64)
# Upstream judged against the float op with these absolute thresholds (dataset/quantized.py: upstream_judging).
UPSTREAM_THRESHOLDS = "cosine ≥ 0.90, relative L1 ≤ 0.10, RMSE ≤ 0.15"
UNMET = ("per-channel int4 weights give relative L1 0.11-0.28 and RMSE 1.3-6.6 on upstream's random cases")
HALF = torch.float16


def reference(input: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
    return quantized.linear_w4a16(input, weight, bias)


def unquantized(input: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
    return F.linear(input, weight, bias)


def check(call, output, expected, contract):
    return quantized.judge(output, expected, call.invoke(unquantized), contract.tolerance, LIMITS)


def fixed_cases(gen):
    w = sample((24, 40), gen, dtype=HALF)
    w[5] = 0.0
    yield "zero_weight_row", Call(sample((6, 40), gen, dtype=HALF), w, sample((24,), gen, dtype=HALF))
    yield "one_by_one", Call(torch.tensor([[1.5]], dtype=HALF), torch.tensor([[-0.25]], dtype=HALF))
    yield "odd_k_3d_input", Call(sample((2, 5, 33), gen, dtype=HALF), sample((17, 33), gen, dtype=HALF))
    yield "large_bias", Call(sample((4, 64), gen, dtype=HALF), sample((32, 64), gen, dtype=HALF),
                             (100.0 * sample((32,), gen)).to(HALF))
    w = torch.randint(-7, 8, (20, 48), generator=gen).to(HALF)
    w[:, 0] = 7.0  # every row's max is 7, so the scale is 1 and quantization is exact
    yield "integer_weights_exact", Call(sample((3, 48), gen, dtype=HALF), w)
    w = sample((16, 128), gen, dtype=HALF)
    w[:, 3] = 8.0  # one outlier per row squeezes every other weight of that row to a few levels
    yield "outlier_column", Call(sample((8, 128), gen, dtype=HALF), w)
    yield "vector_input", Call(sample((96,), gen, dtype=HALF), sample((40, 96), gen, dtype=HALF))
    # weights ±2^-17 or 0: q = ±7 exactly, and the scale 2^-17/7 ≈ 1.09e-6 is only approximable in float16
    # (a subnormal there, 1.6% off), so a scale held below float32 moves every output far beyond the output's
    # float16 rounding (inputs ~100 keep the outputs normal float16 values)
    w = torch.randint(-1, 2, (24, 64), generator=gen).to(HALF) * 2.0 ** -17
    w[:, 0] = 2.0 ** -17
    yield "tiny_weight_scale", Call((100.0 * sample((5, 64), gen)).to(HALF), w)


def random_cases(gen, mode):
    yield "m16_k256_n128", Call(activation_sample((16, 256), gen, mode, dtype=HALF),
                                activation_sample((128, 256), gen, mode, dtype=HALF),
                                activation_sample((128,), gen, mode, dtype=HALF))
    yield "m8_k128_n64", Call(activation_sample((8, 128), gen, mode, dtype=HALF),
                              activation_sample((64, 128), gen, mode, dtype=HALF))
    yield "b2x7_k300_n77", Call(activation_sample((2, 7, 300), gen, mode, dtype=HALF),
                                activation_sample((77, 300), gen, mode, dtype=HALF),
                                activation_sample((77,), gen, mode, dtype=HALF))


def perf_cases(gen):
    for m, k, n in ((1, 2048, 4096), (8, 4096, 4096), (32, 4096, 16384)):
        yield f"m{m}_k{k}_n{n}", Call(sample((m, k), gen, dtype=HALF), sample((n, k), gen, dtype=HALF),
                                      sample((n,), gen, dtype=HALF))


def flops(call, out):
    return 2.0 * out.numel() * call.args[1].shape[1]


TASK = Task(
    id="Quantization/linear_w4a16",
    entry="linear_w4a16",
    signature="linear_w4a16(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor",
    description="W4A16 linear layer (weight-only quantization): input float16 (*, K), weight float16 (N, K), "
                "optional bias float16 (N,); output float16 (*, N). The result is defined by "
                "this exact pipeline (no quantized PyTorch APIs); the unquantized "
                "torch.nn.functional.linear(input, weight, bias) is only the accuracy yardstick:\n"
                "1. Quantize the weight to int4 with one scale per output channel (row n): "
                "s[n] = max_k |weight[n, k]| / 7 computed in fp32; q = clamp(round(weight / s[n]), -8, 7), "
                "rounding half to even (|weight / s| ≤ 7, so -8 never occurs); a row whose max is 0 quantizes to "
                "zeros. Packing two int4 values per byte (low nibble = even k, high nibble = odd k, two's "
                "complement) is the customary storage; it is internal and does not change the result.\n"
                "2. out[..., n] = Σ_k input[..., k] · (q[n, k] · s[n]) + bias[n], activations kept in float16, "
                "products accumulated in fp32, the sum rounded once to float16.",
    math=r"s_n=\max_k|W_{nk}|/7,\quad Y_{mn}=\sum_k X_{mk}\,s_n\,\mathrm{clamp}(\mathrm{rne}(W_{nk}/s_n),-8,7)+b_n",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input, weight, bias float16; output float16",
                      tolerance=TOLERANCE, accumulation="fp32",
                      notes=quantized.describe_rules(TOLERANCE, LIMITS, HALF)),
    flops=flops,
    unit="fp16",
    check=check,
    deviations=quantized.upstream_judging(UPSTREAM_THRESHOLDS, UNMET),
)
