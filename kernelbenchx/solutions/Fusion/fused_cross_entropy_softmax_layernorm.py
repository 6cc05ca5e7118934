import math

import torch
import triton
import triton.language as tl

# 2-D logits normalized over their class dim (the common case, and every perf case) take one fused pass: each
# row is loaded once into registers and gives both its cross-entropy term and its layer-normalized softmax;
# programs are persistent so the loss has one partial sum per program. Other shapes use a cross-entropy kernel
# over dim 1, a softmax over the last dim, then a layer norm over each normalized group.


@triton.jit
def _fused_rows(x_ptr, t_ptr, w_ptr, out_ptr, loss_ptr, part_ptr, R, C, xs0, xs1, ts0, ts1, os0,
                ignore_index, smoothing, eps,
                PROB: tl.constexpr, HAS_W: tl.constexpr, REDUCE: tl.constexpr,
                BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid = tl.program_id(0)
    cs = tl.arange(0, BLOCK_C)
    cok = cs < C
    c64 = cs.to(tl.int64)
    if HAS_W:
        w = tl.load(w_ptr + cs, mask=cok, other=0.0)
    else:
        w = tl.where(cok, 1.0, 0.0)
    num = tl.zeros([BLOCK_R], dtype=tl.float32)
    den = tl.zeros([BLOCK_R], dtype=tl.float32)
    for tile in range(pid, tl.cdiv(R, BLOCK_R), tl.num_programs(0)):
        rows = tile * BLOCK_R + tl.arange(0, BLOCK_R)
        rok = rows < R
        r64 = rows.to(tl.int64)
        m = rok[:, None] & cok[None, :]
        x = tl.load(x_ptr + r64[:, None] * xs0 + c64[None, :] * xs1, mask=m, other=float("-inf"))
        mx = tl.max(x, axis=1)
        mx = tl.where(rok, mx, 0.0)
        e = tl.exp(x - mx[:, None])
        se = tl.sum(e, axis=1)
        lse = mx + tl.log(se)
        xz = tl.where(m, x, 0.0)
        # cross-entropy term of each row
        if PROB:
            t = tl.load(t_ptr + r64[:, None] * ts0 + c64[None, :] * ts1, mask=m, other=0.0)
            coef = tl.where(m, w[None, :] * ((1.0 - smoothing) * t + smoothing / C), 0.0)
            loss = lse * tl.sum(coef, axis=1) - tl.sum(coef * xz, axis=1)
            d = tl.where(rok, 1.0, 0.0)
        else:
            y = tl.load(t_ptr + r64 * ts0, mask=rok, other=ignore_index)
            valid = rok & (y != ignore_index)
            yc = tl.where(valid, y, 0).to(tl.int64)
            xy = tl.sum(tl.where(c64[None, :] == yc[:, None], xz, 0.0), axis=1)
            if HAS_W:
                wy = tl.load(w_ptr + yc, mask=valid, other=0.0)
            else:
                wy = tl.where(valid, 1.0, 0.0)
            smooth = tl.where(smoothing != 0, (smoothing / C) * (lse * tl.sum(w, axis=0)
                                                                 - tl.sum(w[None, :] * xz, axis=1)), 0.0)
            loss = tl.where(valid, (1.0 - smoothing) * wy * (lse - xy) + smooth, 0.0)
            d = wy
        loss = tl.where(rok, loss, 0.0)
        if REDUCE:
            num += loss
            den += d
        else:
            tl.store(loss_ptr + rows, loss, mask=rok)
        # layer norm of the softmax row
        p = e / se[:, None]
        mean = tl.sum(tl.where(m, p, 0.0), axis=1) / C
        dev = tl.where(m, p - mean[:, None], 0.0)
        rstd = 1.0 / tl.sqrt(tl.sum(dev * dev, axis=1) / C + eps)
        tl.store(out_ptr + r64[:, None] * os0 + c64[None, :], dev * rstd[:, None], mask=m)
    if REDUCE:
        tl.store(part_ptr + 2 * pid, tl.sum(num, axis=0))
        tl.store(part_ptr + 2 * pid + 1, tl.sum(den, axis=0))


@triton.jit
def _ce_rows(x_ptr, t_ptr, w_ptr, loss_ptr, part_ptr, R, C, S, xs0, xs1, xs2, ts0, ts1, ts2,
             ignore_index, smoothing,
             PROB: tl.constexpr, HAS_W: tl.constexpr, REDUCE: tl.constexpr,
             BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    """Cross-entropy over class dim 1 of an (N, C, S) view, one row (n, s) per lane, online log-sum-exp."""
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    rok = rows < R
    n = (rows // S).to(tl.int64)
    s = (rows % S).to(tl.int64)
    xrow = x_ptr + n * xs0 + s * xs2
    mx = tl.full([BLOCK_R], float("-inf"), tl.float32)
    se = tl.zeros([BLOCK_R], dtype=tl.float32)
    swx = tl.zeros([BLOCK_R], dtype=tl.float32)
    sw = tl.zeros([BLOCK_R], dtype=tl.float32)
    for k in range(0, C, BLOCK_C):
        cs = k + tl.arange(0, BLOCK_C)
        cok = cs < C
        m = rok[:, None] & cok[None, :]
        x = tl.load(xrow[:, None] + cs.to(tl.int64)[None, :] * xs1, mask=m, other=float("-inf"))
        new = tl.maximum(mx, tl.max(x, axis=1))
        safe = tl.where(new == float("-inf"), 0.0, new)
        se = se * tl.exp(mx - safe) + tl.sum(tl.exp(x - safe[:, None]), axis=1)
        mx = new
        if HAS_W:
            w = tl.load(w_ptr + cs, mask=cok, other=0.0)
        else:
            w = tl.where(cok, 1.0, 0.0)
        coef = tl.broadcast_to(w[None, :], [BLOCK_R, BLOCK_C])
        if PROB:
            t = tl.load(t_ptr + n[:, None] * ts0 + cs.to(tl.int64)[None, :] * ts1 + s[:, None] * ts2, mask=m,
                        other=0.0)
            coef = coef * ((1.0 - smoothing) * t + smoothing / C)
        coef = tl.where(m, coef, 0.0)
        swx += tl.sum(coef * tl.where(m, x, 0.0), axis=1)
        sw += tl.sum(coef, axis=1)
    lse = mx + tl.log(se)
    if PROB:
        loss = lse * sw - swx
        den = tl.where(rok, 1.0, 0.0)
    else:
        y = tl.load(t_ptr + n * ts0 + s * ts2, mask=rok, other=ignore_index)
        valid = rok & (y != ignore_index)
        yc = tl.where(valid, y, 0).to(tl.int64)
        xy = tl.load(xrow + yc * xs1, mask=valid, other=0.0)
        if HAS_W:
            wy = tl.load(w_ptr + yc, mask=valid, other=0.0)
        else:
            wy = tl.where(valid, 1.0, 0.0)
        smooth = tl.where(smoothing != 0, (smoothing / C) * (lse * sw - swx), 0.0)  # −inf logits: no 0·inf
        loss = tl.where(valid, (1.0 - smoothing) * wy * (lse - xy) + smooth, 0.0)
        den = wy
    loss = tl.where(rok, loss, 0.0)
    if REDUCE:
        tl.store(part_ptr + 2 * tl.program_id(0), tl.sum(loss, axis=0))
        tl.store(part_ptr + 2 * tl.program_id(0) + 1, tl.sum(den, axis=0))
    else:
        tl.store(loss_ptr + rows, loss, mask=rok)


@triton.jit
def _softmax_rows(x_ptr, out_ptr, L, Bsz, xs0, xs1, BLOCK: tl.constexpr):
    """Softmax over the last dim of an (A, L) view into the contiguous output."""
    a = tl.program_id(0).to(tl.int64)
    mx = tl.full([BLOCK], float("-inf"), tl.float32)
    se = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, L, BLOCK):
        ls = k + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + a * xs0 + ls.to(tl.int64) * xs1, mask=ls < L, other=float("-inf"))
        new = tl.maximum(mx, x)
        safe = tl.where(new == float("-inf"), 0.0, new)
        se = se * tl.exp(mx - safe) + tl.exp(x - safe)
        mx = new
    top = tl.max(mx, axis=0)
    total = tl.sum(se * tl.exp(mx - top), axis=0)
    for k in range(0, L, BLOCK):
        ls = k + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + a * xs0 + ls.to(tl.int64) * xs1, mask=ls < L, other=float("-inf"))
        tl.store(out_ptr + a * L + ls, tl.exp(x - top) / total, mask=ls < L)


@triton.jit
def _layernorm_groups(buf_ptr, G, eps, BLOCK: tl.constexpr):
    """In place: each contiguous group of G values minus its mean, over sqrt(biased variance + eps)."""
    base = buf_ptr + tl.program_id(0).to(tl.int64) * G
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, G, BLOCK):
        offs = k + tl.arange(0, BLOCK)
        acc += tl.load(base + offs, mask=offs < G, other=0.0)
    mean = tl.sum(acc, axis=0) / G
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, G, BLOCK):
        offs = k + tl.arange(0, BLOCK)
        d = tl.where(offs < G, tl.load(base + offs, mask=offs < G, other=0.0) - mean, 0.0)
        acc += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / G + eps)
    for k in range(0, G, BLOCK):
        offs = k + tl.arange(0, BLOCK)
        v = tl.load(base + offs, mask=offs < G, other=0.0)
        tl.store(base + offs, (v - mean) * rstd, mask=offs < G)


@triton.jit
def _reduce_parts(part_ptr, out_ptr, P, MEAN: tl.constexpr, BLOCK: tl.constexpr):
    num = tl.zeros([BLOCK], dtype=tl.float32)
    den = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, P, BLOCK):
        offs = k + tl.arange(0, BLOCK)
        ok = offs < P
        num += tl.load(part_ptr + 2 * offs, mask=ok, other=0.0)
        den += tl.load(part_ptr + 2 * offs + 1, mask=ok, other=0.0)
    total = tl.sum(num, axis=0)
    if MEAN:
        total = total / tl.sum(den, axis=0)
    tl.store(out_ptr, total)


def fused_cross_entropy_softmax_layernorm(logits, targets, normalized_shape, weight=None, ignore_index=-100,
                                          reduction="mean", label_smoothing=0.0, eps=1e-5):
    shape = list(logits.shape)
    dev = logits.device
    norm = [int(normalized_shape)] if isinstance(normalized_shape, int) else [int(v) for v in normalized_shape]
    G = math.prod(norm)
    N, C = shape[0], shape[1]
    S = math.prod(shape[2:])
    R = N * S
    prob = targets.is_floating_point()
    out = torch.empty(shape, dtype=torch.float32, device=dev)
    reduce = reduction != "none"
    loss = torch.empty(() if reduce else shape[:1] + shape[2:], dtype=torch.float32, device=dev)
    w = weight.contiguous() if weight is not None else out
    if len(shape) == 2 and norm == [C] and C <= 16384:
        BLOCK_C = max(16, triton.next_power_of_2(C))
        BLOCK_R = max(1, min(16, 4096 // BLOCK_C))
        tiles = triton.cdiv(R, BLOCK_R)
        sms = torch.cuda.get_device_properties(dev).multi_processor_count if logits.is_cuda else 16
        programs = max(1, min(tiles, 4 * sms))
        parts = torch.zeros((programs, 2), dtype=torch.float32, device=dev)
        ts = (targets.stride(0), targets.stride(1) if prob else 0)
        if R > 0:
            _fused_rows[(programs,)](logits, targets, w, out, loss, parts, R, C, logits.stride(0), logits.stride(1),
                                     *ts, out.stride(0), int(ignore_index), float(label_smoothing), float(eps),
                                     PROB=prob, HAS_W=weight is not None, REDUCE=reduce, BLOCK_R=BLOCK_R,
                                     BLOCK_C=BLOCK_C, num_warps=8 if BLOCK_C >= 2048 else 4)
        if reduce:
            _reduce_parts[(1,)](parts, loss, programs, MEAN=reduction == "mean", BLOCK=1024)
        return loss, out
    # General shapes.
    x3 = logits.reshape(N, C, S)
    if prob:
        t3 = targets.reshape(N, C, S)
        ts = (t3.stride(0), t3.stride(1), t3.stride(2))
    else:
        t3 = targets.reshape(N, 1, S)
        ts = (t3.stride(0), 0, t3.stride(2))
    BLOCK_C = min(256, max(16, triton.next_power_of_2(C)))
    BLOCK_R = max(1, min(64, 4096 // BLOCK_C))
    programs = max(1, triton.cdiv(R, BLOCK_R))
    parts = torch.zeros((programs, 2), dtype=torch.float32, device=dev)
    if R > 0:
        _ce_rows[(programs,)](x3, t3, w, loss, parts, R, C, S, x3.stride(0), x3.stride(1), x3.stride(2), *ts,
                              int(ignore_index), float(label_smoothing), PROB=prob, HAS_W=weight is not None,
                              REDUCE=reduce, BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C, num_warps=4)
    if reduce:
        _reduce_parts[(1,)](parts, loss, programs, MEAN=reduction == "mean", BLOCK=1024)
    L = shape[-1]
    A = math.prod(shape[:-1])
    if A * L > 0:
        x2 = logits.reshape(A, L)
        _softmax_rows[(A,)](x2, out, L, 1, x2.stride(0), x2.stride(1),
                            BLOCK=min(1024, max(16, triton.next_power_of_2(L))))
        _layernorm_groups[(out.numel() // G,)](out, G, float(eps),
                                               BLOCK=min(1024, max(16, triton.next_power_of_2(G))))
    return loss, out
