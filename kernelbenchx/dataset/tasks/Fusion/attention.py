"""Fusion/attention: scaled dot-product attention with optional causal masking."""

import torch

from kernelbenchx.dataset import precision
from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, randint, sample

F16 = torch.float16
F32 = torch.float32
# Relative RMS error the contract admits: truncated-TF32 products reach 2.25e-3 on these cases (measured over 15
# seeds; the QKᵀ logits' absolute error becomes the probabilities' relative error), bf16 operands 2.6e-3 to 5e-3
# (above 3.3e-3 on the D = 128 cases, so every seed has bf16 failures).
# Elementwise, TF32 needs up to 1.4e-2·RMS(out) on rows where an outlier logit sharpens the softmax (atol 3e-2).
REL_RMS = 3e-3


def reference(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False,
              softmax_scale=None) -> torch.Tensor:
    # Computed in fp32 and rounded once, as torch's fused attention kernels do for fp16 inputs.
    scale = q.shape[-1] ** -0.5 if softmax_scale is None else softmax_scale
    scores = torch.matmul(q.float(), k.float().transpose(-2, -1)) * scale
    if causal:
        keep = torch.ones(scores.shape[-2:], dtype=torch.bool, device=q.device).tril()
        scores = scores.masked_fill(~keep, float("-inf"))
    return torch.matmul(torch.softmax(scores, dim=-1), v.float()).to(q.dtype)


def qkv(b, h, sq, sk, d, gen, mode="standard", dtype=F16, dv=None):
    return (sample((b, h, sq, d), gen, mode, dtype=dtype), sample((b, h, sk, d), gen, mode, dtype=dtype),
            sample((b, h, sk, dv or d), gen, mode, dtype=dtype))


def fixed_cases(gen):
    yield "float32_tiny", Call(*qkv(1, 1, 4, 4, 8, gen, dtype=F32))
    yield "float32_cross_lengths_scaled", Call(*qkv(2, 2, 19, 45, 32, gen, dtype=F32), softmax_scale=0.2)
    yield "tiny", Call(*qkv(1, 1, 4, 4, 8, gen))
    yield "tiny_causal", Call(*qkv(1, 2, 5, 5, 16, gen), causal=True)
    yield "uniform_keys", Call(sample((1, 1, 3, 8), gen, dtype=F16), torch.zeros(1, 1, 6, 8, dtype=F16),
                               sample((1, 1, 6, 8), gen, dtype=F16))
    yield "sharp_scale", Call(*qkv(2, 2, 17, 17, 32, gen), False, 1.0)
    yield "cross_lengths", Call(*qkv(2, 3, 7, 29, 64, gen))
    yield "causal_short_queries", Call(*qkv(1, 2, 9, 20, 32, gen), causal=True)
    yield "value_dim_differs", Call(*qkv(1, 2, 16, 16, 32, gen, dv=48), True)
    # every key opposes every query: scores ≈ −256 ± 1 (small integers, exact in fp16 and TF32), so exp(score)
    # underflows unless the running max starts at −inf (or the first block's max)
    q, k = randint((1, 2, 24, 16), gen, -1, 2).float(), randint((1, 2, 40, 16), gen, -1, 2).float()
    q[..., 0], k[..., 0] = 32.0, -32.0
    yield "float32_far_negative_scores", Call(q, k, sample((1, 2, 40, 16), gen, dtype=F32))
    yield "float32", Call(*qkv(2, 2, 33, 33, 64, gen, dtype=torch.float32), causal=True)
    yield "float32_value_dim_differs_causal_short_keys", Call(*qkv(1, 2, 20, 9, 32, gen, dtype=F32, dv=24), True)


def random_cases(gen, mode):
    yield "b2_h4_s128", Call(*qkv(2, 4, 128, 128, 64, gen, mode))
    yield "b1_h3_s200_causal", Call(*qkv(1, 3, 200, 200, 64, gen, mode), causal=True)
    yield "b2_h2_s77x150_d32_scaled", Call(*qkv(2, 2, 77, 150, 32, gen, mode), softmax_scale=0.3)
    yield "float32_b1_h2_s96_causal", Call(*qkv(1, 2, 96, 96, 64, gen, mode, dtype=torch.float32), causal=True)
    yield "float32_b2_h4_s130x257_d128", Call(*qkv(2, 4, 130, 257, 128, gen, mode, dtype=F32))


def perf_cases(gen):
    for s in (256, 512, 1024):
        yield f"float32_b2_h8_s{s}", Call(*qkv(2, 8, s, s, 64, gen, dtype=F32))
    yield "float32_b2_h16_s4096_causal", Call(*qkv(2, 16, 4096, 4096, 64, gen, dtype=F32), causal=True)


def flops(call, out):
    q, k = call.args[0], call.args[1]
    causal = call.kwargs.get("causal", call.args[3] if len(call.args) > 3 else False)
    work = 2.0 * q.shape[:-1].numel() * k.shape[-2] * (q.shape[-1] + out.shape[-1])
    return work / 2 if causal else work


TASK = Task(
    id="Fusion/attention",
    entry="attention",
    signature="attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = False, softmax_scale: float | None = None) "
              "-> Tensor",
    description="Scaled dot-product attention. q is (B, H, Sq, D), k is (B, H, Sk, D), v is (B, H, Sk, Dv). "
                "scores = (q @ kᵀ)·scale with scale = softmax_scale, or 1/√D when softmax_scale is None. When "
                "causal is True, query i may attend only to keys j ≤ i (the top-left-aligned lower triangle "
                "tril(ones(Sq, Sk)), as torch's is_causal; Sq may differ from Sk); masked scores are −inf. "
                "Scores may all lie far below 0 (e.g. ≈ −256 when every key opposes the query). "
                "Returns softmax(scores, dim=-1) @ v, shape (B, H, Sq, Dv), in the inputs' dtype (float16, or "
                "float32). The reference computes in float32 and rounds the result once; the upstream `out=` "
                "argument is dropped.",
    math=r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\left(\frac{QK^\top}{\sqrt{d}} + M\right)V",
    difficulty=5,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="q, k, v all float32 or all float16; output the same dtype",
                      tolerance=Tolerance(rtol=1e-2, atol=3e-2, scale="rms", rel_rms=REL_RMS),
                      tf32=True,
                      precision="TF32 (or fp16-operand) tensor-core products with fp32 accumulation pass, Triton's "
                                "truncated TF32 operands included; bf16 operands, one precision step lower, fail "
                                "the relative RMS bound. The bound is 3× the GEMM tasks' because the softmax turns "
                                "an absolute logit error δs into a relative probability error δs",
                      notes="Keep softmax statistics and accumulators in fp32 (online softmax is fine); fp16 "
                            "probabilities may feed the P·V product. Every query row attends to at least one key."),
    flops=flops,
    unit="tf32",
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5 (float32) and 5e-3 (float16)",
                  "|out − ref| ≤ 3e-2·RMS(ref) + 1e-2·|ref| and a relative RMS error ≤ 3e-3 against a reference "
                  "computed in float32 and rounded once",
                  "1e-5 rejects any reordering of the two K-length products, let alone TF32 or an online "
                  "softmax; the RMS bounds admit fp16/TF32 tensor-core products and reject bf16 operands"),
        Deviation(Kind.PERF, "5 float32 sizes, B = 2, H = 8, D = 64, S = 64 … 1024, non-causal",
                  "float32 S = 256, 512 and 1024, plus a causal B = 2, H = 16, S = 4096 case",
                  "three of upstream's sizes, its largest included; the added case is a realistic sequence "
                  "length, where the O(S²) work dominates and causal masking halves it"),
    ),
)
