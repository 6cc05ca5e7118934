"""Quantization/attention_w8a8: single-head attention with per-token int8 Q, K, V and an int32 QKᵀ."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset import quantized
from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.quantized import Limits, activation_sample
from kernelbenchx.dataset.task import Call, Task, randint, sample

# Measured with kernel-like variants of the pipeline and 100 stage-2 seeds: atol is twice the largest
# elementwise effect of rounding flips, LIMITS twice the worst faithful error against the float result.
TOLERANCE = Tolerance(rtol=0.0, atol=0.05, scale="rms")
LIMITS = Limits(rel_rmse=0.061, cosine=0.99908, rel_l1=0.049)
# Upstream judged against the float op with these absolute thresholds (dataset/quantized.py: upstream_judging).
UPSTREAM_THRESHOLDS = "cosine ≥ 0.90, relative L1 ≤ 0.10, RMSE ≤ 0.15"


def reference(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor) -> torch.Tensor:
    return quantized.attention_w8a8(query, key, value)


def unquantized(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor) -> torch.Tensor:
    return F.scaled_dot_product_attention(query, key, value)


def check(call, output, expected, contract):
    return quantized.judge(output, expected, call.invoke(unquantized), contract.tolerance, LIMITS)


def fixed_cases(gen):
    yield "single_token", Call(sample((2, 1, 16), gen), sample((2, 1, 16), gen), sample((2, 1, 16), gen))
    q, k = sample((1, 12, 32), gen), sample((1, 20, 32), gen)
    k[0, 7] = 8.0 * q[0, 3]  # query 3 attends almost only to key 7
    yield "near_one_hot", Call(q, k, sample((1, 20, 32), gen))
    yield "zero_query_uniform", Call(torch.zeros(1, 9, 16), sample((1, 13, 16), gen), sample((1, 13, 16), gen))
    v = sample((2, 17, 24), gen)
    v[:, 4] = 0.0
    yield "zero_value_rows_kv_longer", Call(sample((2, 10, 24), gen), sample((2, 17, 24), gen), v)
    yield "extreme_token_scales", Call(sample((1, 8, 16), gen) * torch.logspace(-2, 2, 8).reshape(1, 8, 1),
                                       sample((1, 8, 16), gen), sample((1, 8, 16), gen) * 100.0)
    yield "odd_head_dim", Call(sample((3, 19, 40), gen), sample((3, 23, 40), gen), sample((3, 23, 40), gen))
    # Every key opposes every query: Q and K rows are integers with max |x| = 127 (scale exactly 1, quantized
    # exactly), q·k = −127² + Σ small products, so the scores are ≈ −4032 ± 1 and exp(score) underflows unless the
    # softmax is shifted by the row's true max.
    q, k = randint((1, 8, 16), gen, -1, 2).float(), randint((1, 24, 16), gen, -1, 2).float()
    q[..., 0], k[..., 0] = 127.0, -127.0
    yield "far_negative_scores", Call(q, k, sample((1, 24, 16), gen))
    # Exact .5 ties of both signs and both parities (each value row's max is 127, so its scale is exactly 1):
    # round half to even sends -1.5 to -2 and 2.5 to 2, and the dequantized values reach the output directly.
    v = randint((1, 16, 64), gen, -30, 30).float() + 0.5
    v[..., 0] = 127.0
    yield "half_ties_value", Call(sample((1, 8, 64), gen), sample((1, 16, 64), gen), v)


def random_cases(gen, mode):
    yield "b2_s64_d64", Call(*(activation_sample((2, 64, 64), gen, mode) for _ in range(3)))
    yield "b1_s200_d48", Call(*(activation_sample((1, 200, 48), gen, mode) for _ in range(3)))
    yield "b3_sq97_sk130_d32", Call(activation_sample((3, 97, 32), gen, mode),
                                    activation_sample((3, 130, 32), gen, mode), activation_sample((3, 130, 32), gen, mode))


def perf_cases(gen):
    for b, s, d in ((2, 512, 64), (2, 1024, 64), (2, 2048, 64), (1, 4096, 64)):  # upstream's rows
        yield f"b{b}_s{s}_d{d}", Call(*(sample((b, s, d), gen).clamp(-10, 10) for _ in range(3)))


def flops(call, out):
    b, sq, d = call.args[0].shape
    return 4.0 * b * sq * call.args[1].shape[1] * d


TASK = Task(
    id="Quantization/attention_w8a8",
    entry="attention_w8a8",
    signature="attention_w8a8(query: Tensor, key: Tensor, value: Tensor) -> Tensor",
    description="W8A8 single-head attention. query (B, S_q, D), key and value (B, S_k, D), all float32; output "
                "float32 (B, S_q, D), no mask, no dropout; the scores may all lie far below 0 (e.g. ≈ −4000 "
                "when every key opposes the query). The result is defined by this exact pipeline "
                "(no quantized PyTorch APIs); unquantized float attention softmax(Q·Kᵀ/√D)·V "
                "(torch.nn.functional.scaled_dot_product_attention) is only the accuracy yardstick:\n"
                "1. Q, K and V are each quantized per token (per row over D): s[b, t] = max_d |X[b, t, d]| / 127 "
                "(fp32); q = clamp(round(X / s[b, t]), -127, 127) as int8, rounding half to even; a row whose max "
                "is 0 quantizes to zeros.\n"
                "2. acc[b, i, j] = Σ_d q_Q[b, i, d]·q_K[b, j, d], accumulated exactly in int32.\n"
                "3. scores[b, i, j] = float(acc) · s_Q[b, i] · s_K[b, j] / √D (the 1/√D may be folded into "
                "s_Q), in fp32.\n"
                "4. P = softmax(scores) over j, in fp32 (P is not quantized).\n"
                "5. out[b, i, :] = Σ_j P[b, i, j] · (q_V[b, j, :] · s_V[b, j]), in fp32 (V dequantized; no TF32).",
    math=r"S_{ij}=\frac{s_Q[i]\,s_K[j]}{\sqrt{D}}\sum_d \mathrm{rne}(Q_{id}/s_Q[i])\,\mathrm{rne}(K_{jd}/s_K[j]),"
         r"\ Y=\mathrm{softmax}(S)\,(s_V\odot\mathrm{rne}(V/s_V))",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="query, key, value float32 (B, S, D); output float32 (B, S_q, D)",
                      tolerance=TOLERANCE,
                      accumulation="int32 for Q·Kᵀ (exact integer dot products); fp32 for softmax and P·V",
                      notes=quantized.describe_rules(TOLERANCE, LIMITS)),
    flops=flops,
    unit="int8",
    check=check,
    deviations=quantized.upstream_judging(UPSTREAM_THRESHOLDS),
)
