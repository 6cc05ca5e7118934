"""Fusion/attention: scaled dot-product attention with optional causal masking."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, sample

F16 = torch.float16


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
    yield "tiny", Call(*qkv(1, 1, 4, 4, 8, gen))
    yield "tiny_causal", Call(*qkv(1, 2, 5, 5, 16, gen), causal=True)
    yield "uniform_keys", Call(sample((1, 1, 3, 8), gen, dtype=F16), torch.zeros(1, 1, 6, 8, dtype=F16),
                               sample((1, 1, 6, 8), gen, dtype=F16))
    yield "sharp_scale", Call(*qkv(2, 2, 17, 17, 32, gen), False, 1.0)
    yield "cross_lengths", Call(*qkv(2, 3, 7, 29, 64, gen))
    yield "causal_short_queries", Call(*qkv(1, 2, 9, 20, 32, gen), causal=True)
    yield "value_dim_differs", Call(*qkv(1, 2, 16, 16, 32, gen, dv=48), True)
    yield "float32", Call(*qkv(2, 2, 33, 33, 64, gen, dtype=torch.float32), causal=True)


def random_cases(gen, mode):
    yield "b2_h4_s128", Call(*qkv(2, 4, 128, 128, 64, gen, mode))
    yield "b1_h3_s200_causal", Call(*qkv(1, 3, 200, 200, 64, gen, mode), causal=True)
    yield "b2_h2_s77x150_d32_scaled", Call(*qkv(2, 2, 77, 150, 32, gen, mode), softmax_scale=0.3)
    yield "float32_b1_h2_s96_causal", Call(*qkv(1, 2, 96, 96, 64, gen, mode, dtype=torch.float32), causal=True)


def perf_cases(gen):
    yield "b2_h8_s256", Call(*qkv(2, 8, 256, 256, 64, gen))
    yield "b2_h8_s1024", Call(*qkv(2, 8, 1024, 1024, 64, gen))
    yield "b2_h16_s4096_causal", Call(*qkv(2, 16, 4096, 4096, 64, gen), causal=True)
    yield "b4_h16_s4096_d128", Call(*qkv(4, 16, 4096, 4096, 128, gen))


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
                "Returns softmax(scores, dim=-1) @ v, shape (B, H, Sq, Dv), in the inputs' dtype (float16, or "
                "float32). The reference computes in float32 and rounds the result once; the upstream `out=` "
                "argument is dropped.",
    math=r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\left(\frac{QK^\top}{\sqrt{d}} + M\right)V",
    difficulty=5,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="q, k, v float16 (float32 in some cases), all the same dtype; output the same dtype",
                      tolerance=Tolerance(rtol=1e-2, atol=1e-2, scale="rms"),
                      tf32=True,
                      notes="Keep softmax statistics and accumulators in fp32 (online softmax is fine); fp16 "
                            "probabilities may feed the P·V product. Every query row attends to at least one key."),
    flops=flops,
    unit="fp16",
)
