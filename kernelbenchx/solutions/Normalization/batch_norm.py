import torch
import triton
import triton.language as tl

# The Triton interpreter (numpy >= 2.4) cannot range() to a runtime bound, so loops below are while loops.


@triton.jit
def _partial_stats_kernel(x_ptr, cnt_ptr, mean_ptr, m2_ptr, C, S, per_channel, chunk, P,
                          BLOCK: tl.constexpr):
    # Program (c, p) reduces elements [p*chunk, (p+1)*chunk) of channel c's N*S values to (count, mean, M2).
    c = tl.program_id(0)
    p = tl.program_id(1)
    start = p.to(tl.int64) * chunk
    stop = tl.minimum(start + chunk, per_channel)
    n_a = 0.0
    mean_a = 0.0
    m2_a = 0.0
    j0 = start
    while j0 < stop:
        j = j0 + tl.arange(0, BLOCK)
        ok = j < stop
        n = j // S
        addr = (n * C + c) * S + j % S
        x = tl.load(x_ptr + addr, mask=ok, other=0.0).to(tl.float32)
        n_b = tl.sum(ok.to(tl.float32), axis=0)
        mean_b = tl.sum(x, axis=0) / n_b
        d = tl.where(ok, x - mean_b, 0.0)
        m2_b = tl.sum(d * d, axis=0)
        # Chan et al.: merge the running (n, mean, M2) with this tile's.
        n_ab = n_a + n_b
        delta = mean_b - mean_a
        mean_a = mean_a + delta * (n_b / n_ab)
        m2_a = m2_a + m2_b + delta * delta * (n_a * n_b / n_ab)
        n_a = n_ab
        j0 += BLOCK
    out = c * P + p
    tl.store(cnt_ptr + out, n_a)
    tl.store(mean_ptr + out, mean_a)
    tl.store(m2_ptr + out, m2_a)


@triton.jit
def _finalize_kernel(cnt_ptr, mean_ptr, m2_ptr, rm_ptr, rv_ptr, w_ptr, b_ptr, scale_ptr, shift_ptr,
                     P, momentum, eps, TRAINING: tl.constexpr, UPDATE: tl.constexpr, HAS_W: tl.constexpr,
                     HAS_B: tl.constexpr, BLOCK_P: tl.constexpr):
    c = tl.program_id(0)
    if TRAINING:
        # Combine the P partials: mean = Σ n_p mean_p / n, M2 = Σ M2_p + n_p (mean_p − mean)².
        tot = 0.0
        s = 0.0
        p0 = 0
        while p0 < P:
            p = p0 + tl.arange(0, BLOCK_P)
            ok = p < P
            cnt = tl.load(cnt_ptr + c * P + p, mask=ok, other=0.0)
            tot += tl.sum(cnt, axis=0)
            s += tl.sum(cnt * tl.load(mean_ptr + c * P + p, mask=ok, other=0.0), axis=0)
            p0 += BLOCK_P
        mean = s / tot
        m2 = 0.0
        p0 = 0
        while p0 < P:
            p = p0 + tl.arange(0, BLOCK_P)
            ok = p < P
            cnt = tl.load(cnt_ptr + c * P + p, mask=ok, other=0.0)
            dm = tl.load(mean_ptr + c * P + p, mask=ok, other=0.0) - mean
            m2 += tl.sum(tl.load(m2_ptr + c * P + p, mask=ok, other=0.0) + cnt * dm * dm, axis=0)
            p0 += BLOCK_P
        var = m2 / tot
        if UPDATE:
            rm = tl.load(rm_ptr + c)
            rv = tl.load(rv_ptr + c)
            tl.store(rm_ptr + c, (1.0 - momentum) * rm + momentum * mean)
            tl.store(rv_ptr + c, (1.0 - momentum) * rv + momentum * (m2 / (tot - 1.0)))
    else:
        mean = tl.load(rm_ptr + c)
        var = tl.load(rv_ptr + c)
    inv = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + c) if HAS_W else 1.0
    b = tl.load(b_ptr + c) if HAS_B else 0.0
    scale = w * inv
    tl.store(scale_ptr + c, scale)
    tl.store(shift_ptr + c, b - mean * scale)


@triton.jit
def _normalize_kernel(x_ptr, y_ptr, scale_ptr, shift_ptr, total, C, S, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < total
    c = (offs // S) % C
    x = tl.load(x_ptr + offs, mask=ok).to(tl.float32)
    y = x * tl.load(scale_ptr + c, mask=ok) + tl.load(shift_ptr + c, mask=ok)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=ok)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    x = input.contiguous()
    N, C = x.shape[0], x.shape[1]
    S = x.numel() // max(N * C, 1)
    dev = x.device
    scale = torch.empty(C, dtype=torch.float32, device=dev)
    shift = torch.empty(C, dtype=torch.float32, device=dev)
    dummy = scale
    update = training and running_mean is not None and running_var is not None
    BLOCK = 1024
    per_channel = N * S
    if training:
        # Enough programs per channel to fill the GPU, each reducing whole tiles.
        P = max(1, min(triton.cdiv(per_channel, BLOCK), triton.cdiv(1024, C)))
        chunk = triton.cdiv(triton.cdiv(per_channel, P), BLOCK) * BLOCK
        P = triton.cdiv(per_channel, chunk)
        cnt = torch.empty(C, P, dtype=torch.float32, device=dev)
        mean = torch.empty_like(cnt)
        m2 = torch.empty_like(cnt)
        _partial_stats_kernel[(C, P)](x, cnt, mean, m2, C, S, per_channel, chunk, P, BLOCK=BLOCK)
    else:
        P, cnt, mean, m2 = 1, dummy, dummy, dummy
    # Per-channel vectors are read (and the running statistics updated) through contiguous copies.
    rm = running_mean.contiguous() if running_mean is not None else dummy
    rv = running_var.contiguous() if running_var is not None else dummy
    w = weight.contiguous() if weight is not None else dummy
    b = bias.contiguous() if bias is not None else dummy
    _finalize_kernel[(C,)](cnt, mean, m2, rm, rv, w, b, scale, shift, P, float(momentum), float(eps),
                           TRAINING=bool(training), UPDATE=bool(update), HAS_W=weight is not None,
                           HAS_B=bias is not None, BLOCK_P=128)
    y = torch.empty_like(x)
    total = x.numel()
    _normalize_kernel[(triton.cdiv(total, BLOCK),)](x, y, scale, shift, total, C, S, BLOCK=BLOCK)
    if update and rm is not running_mean:
        running_mean.copy_(rm)
    if update and rv is not running_var:
        running_var.copy_(rv)
    return y.view(input.shape)
