import math

import torch
import triton
import triton.language as tl

# Eval: one elementwise pass with per-channel scale and shift. Training: per-channel moments reduced in parallel
# over chunks of (N × positions) with block-merged moments, combined per channel (which also updates the running
# buffers through their own strides), then the elementwise pass.


@triton.jit
def _channel_moments(x_ptr, cnt_ptr, mean_ptr, m2_ptr, S, total, chunk, xs0, xs1, xs2, BLOCK: tl.constexpr):
    c = tl.program_id(0).to(tl.int64)
    sp = tl.program_id(1)
    start = sp * chunk
    end = tl.minimum(start + chunk, total)
    zero = tl.sum(tl.zeros([BLOCK], dtype=tl.float32), axis=0)
    cnt = zero
    mean = zero
    m2 = zero
    for k in range(start, end, BLOCK):
        i = k + tl.arange(0, BLOCK)
        ok = i < end
        n = (i // S).to(tl.int64)
        s = (i % S).to(tl.int64)
        x = tl.load(x_ptr + n * xs0 + c * xs1 + s * xs2, mask=ok, other=0.0)
        nb = tl.sum(ok.to(tl.float32), axis=0)
        mb = tl.sum(x, axis=0) / nb
        d = tl.where(ok, x - mb, 0.0)
        tot = cnt + nb
        delta = mb - mean
        mean = mean + delta * (nb / tot)
        m2 = m2 + tl.sum(d * d, axis=0) + delta * delta * (cnt * nb / tot)
        cnt = tot
    slot = c * tl.num_programs(1) + sp
    tl.store(cnt_ptr + slot, cnt)
    tl.store(mean_ptr + slot, mean)
    tl.store(m2_ptr + slot, m2)


@triton.jit
def _channel_stats(cnt_ptr, mean_ptr, m2_ptr, stat_ptr, rm_ptr, rv_ptr, rm_s, rv_s, SPLIT, momentum, eps,
                   BLOCK: tl.constexpr):
    c = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    ok = offs < SPLIT
    n = tl.load(cnt_ptr + c * SPLIT + offs, mask=ok, other=0.0)
    mu = tl.load(mean_ptr + c * SPLIT + offs, mask=ok, other=0.0)
    q = tl.load(m2_ptr + c * SPLIT + offs, mask=ok, other=0.0)
    total = tl.sum(n, axis=0)
    mean = tl.sum(n * mu, axis=0) / total
    d = mu - mean
    m2 = tl.sum(q + n * d * d, axis=0)
    var = m2 / total
    tl.store(stat_ptr + 2 * c, mean)
    tl.store(stat_ptr + 2 * c + 1, 1.0 / tl.sqrt(var + eps))
    rm = tl.load(rm_ptr + c * rm_s)
    rv = tl.load(rv_ptr + c * rv_s)
    tl.store(rm_ptr + c * rm_s, (1.0 - momentum) * rm + momentum * mean)
    tl.store(rv_ptr + c * rv_s, (1.0 - momentum) * rv + momentum * (m2 / (total - 1.0)))


@triton.jit
def _eval_stats(rm_ptr, rv_ptr, rm_s, rv_s, stat_ptr, C, eps, BLOCK: tl.constexpr):
    c = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ok = c < C
    rm = tl.load(rm_ptr + c * rm_s, mask=ok, other=0.0)
    rv = tl.load(rv_ptr + c * rv_s, mask=ok, other=1.0)
    tl.store(stat_ptr + 2 * c, rm, mask=ok)
    tl.store(stat_ptr + 2 * c + 1, 1.0 / tl.sqrt(rv + eps), mask=ok)


@triton.jit
def _normalize_hardsigmoid(x_ptr, w_ptr, b_ptr, stat_ptr, out_ptr, C, S, total, xs0, xs1, xs2, ws, bs,
                           HAS_W: tl.constexpr, HAS_B: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < total
    s = offs % S
    rest = offs // S
    c = rest % C
    n = rest // C
    x = tl.load(x_ptr + n * xs0 + c * xs1 + s * xs2, mask=ok, other=0.0)
    mean = tl.load(stat_ptr + 2 * c, mask=ok, other=0.0)
    rstd = tl.load(stat_ptr + 2 * c + 1, mask=ok, other=1.0)
    t = (x - mean) * rstd
    if HAS_W:
        t = t * tl.load(w_ptr + c * ws, mask=ok, other=1.0)
    if HAS_B:
        t = t + tl.load(b_ptr + c * bs, mask=ok, other=0.0)
    y = tl.minimum(tl.maximum(t + 3.0, 0.0), 6.0) / 6.0
    tl.store(out_ptr + offs, y, mask=ok)


def fused_hardsigmoid_batch_norm(x, running_mean, running_var, weight=None, bias=None, training=False,
                                 momentum=0.1, eps=1e-5):
    shape = list(x.shape)
    N, C = shape[0], shape[1]
    S = math.prod(shape[2:])
    out = torch.empty(shape, dtype=torch.float32, device=x.device)
    x3 = x.reshape(N, C, S)
    stats = torch.empty((C, 2), dtype=torch.float32, device=x.device)
    rm_s, rv_s = running_mean.stride(0), running_var.stride(0)
    if training:
        total = N * S
        BLOCK = 1024 if total >= 1024 else max(16, triton.next_power_of_2(total))
        split = max(1, min(triton.cdiv(total, 4 * BLOCK), triton.cdiv(2048, C)))
        chunk = triton.cdiv(triton.cdiv(total, split), BLOCK) * BLOCK
        split = triton.cdiv(total, chunk)
        cnt = torch.empty((C, split), dtype=torch.float32, device=x.device)
        mean = torch.empty_like(cnt)
        m2 = torch.empty_like(cnt)
        _channel_moments[(C, split)](x3, cnt, mean, m2, S, total, chunk, x3.stride(0), x3.stride(1), x3.stride(2),
                                     BLOCK=BLOCK, num_warps=4)
        _channel_stats[(C,)](cnt, mean, m2, stats, running_mean, running_var, rm_s, rv_s, split, float(momentum),
                             float(eps), BLOCK=triton.next_power_of_2(split))
    else:
        _eval_stats[(triton.cdiv(C, 256),)](running_mean, running_var, rm_s, rv_s, stats, C, float(eps), BLOCK=256)
    total = N * C * S
    if total == 0:
        return out
    BLOCK = 1024
    _normalize_hardsigmoid[(triton.cdiv(total, BLOCK),)](
        x3, weight if weight is not None else stats, bias if bias is not None else stats, stats, out, C, S, total,
        x3.stride(0), x3.stride(1), x3.stride(2), weight.stride(0) if weight is not None else 0,
        bias.stride(0) if bias is not None else 0, HAS_W=weight is not None, HAS_B=bias is not None,
        BLOCK=BLOCK, num_warps=4)
    return out
