import torch
import triton
import triton.language as tl

# Flash-attention forward: one program per (batch·head, block of queries) streams key/value blocks with an
# online softmax (running max and sum in fp32), so the Sq×Sk score matrix is never materialized. Products use
# tensor cores (fp16 operands, or TF32 for fp32 inputs) with fp32 accumulation; the probabilities feed the P·V
# product in the inputs' dtype.


@triton.jit
def _attn_fwd(q_ptr, k_ptr, v_ptr, o_ptr, H, Sq, Sk, D, Dv, qk_scale,
              qs0, qs1, qs2, qs3, ks0, ks1, ks2, ks3, vs0, vs1, vs2, vs3,
              CAUSAL: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BD: tl.constexpr, BDV: tl.constexpr):
    pid_m = tl.program_id(0)
    bh = tl.program_id(1)
    b = (bh // H).to(tl.int64)
    h = (bh % H).to(tl.int64)
    rm = pid_m * BM + tl.arange(0, BM)
    rd = tl.arange(0, BD)
    rdv = tl.arange(0, BDV)
    m_ok = rm < Sq
    q = tl.load(q_ptr + b * qs0 + h * qs1 + rm.to(tl.int64)[:, None] * qs2 + rd[None, :] * qs3,
                mask=m_ok[:, None] & (rd < D)[None, :], other=0.0)
    k_base = k_ptr + b * ks0 + h * ks1
    v_base = v_ptr + b * vs0 + h * vs1
    m_i = tl.full([BM], float("-inf"), tl.float32)
    l_i = tl.zeros([BM], dtype=tl.float32)
    acc = tl.zeros([BM, BDV], dtype=tl.float32)
    if CAUSAL:
        hi = tl.minimum(Sk, (pid_m + 1) * BM)  # top-left aligned: query i sees keys j ≤ i
    else:
        hi = Sk
    for start in range(0, hi, BN):
        rn = start + tl.arange(0, BN)
        n_ok = rn < Sk
        kt = tl.load(k_base + rn.to(tl.int64)[None, :] * ks2 + rd[:, None] * ks3,
                     mask=(rd < D)[:, None] & n_ok[None, :], other=0.0)
        s = tl.dot(q, kt, input_precision="tf32") * qk_scale  # log2 domain
        keep = n_ok[None, :]
        if CAUSAL:
            keep = keep & (rn[None, :] <= rm[:, None])
        s = tl.where(keep, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)
        alpha = tl.exp2(m_i - m_safe)
        p = tl.exp2(s - m_safe[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_base + rn.to(tl.int64)[:, None] * vs2 + rdv[None, :] * vs3,
                    mask=n_ok[:, None] & (rdv < Dv)[None, :], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, input_precision="tf32")
        m_i = m_new
    out = acc / l_i[:, None]
    o_off = ((bh.to(tl.int64) * Sq + rm.to(tl.int64)[:, None]) * Dv) + rdv[None, :]
    tl.store(o_ptr + o_off, out.to(o_ptr.dtype.element_ty), mask=m_ok[:, None] & (rdv < Dv)[None, :])


def attention(q, k, v, causal=False, softmax_scale=None):
    B, H, Sq, D = q.shape
    Sk = k.shape[2]
    Dv = v.shape[3]
    scale = D ** -0.5 if softmax_scale is None else float(softmax_scale)
    out = torch.empty((B, H, Sq, Dv), dtype=q.dtype, device=q.device)
    if B * H * Sq * Dv == 0:
        return out
    BD = max(16, triton.next_power_of_2(D))
    BDV = max(16, triton.next_power_of_2(Dv))
    BM = 64
    BN = 64 if (q.dtype == torch.float16 or max(BD, BDV) <= 64) else 32
    grid = (triton.cdiv(Sq, BM), B * H)
    _attn_fwd[grid](q, k, v, out, H, Sq, Sk, D, Dv, scale * 1.4426950408889634,
                    *q.stride(), *k.stride(), *v.stride(),
                    CAUSAL=bool(causal), BM=BM, BN=BN, BD=BD, BDV=BDV, num_warps=4)
    return out
