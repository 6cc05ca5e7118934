import math

import torch
import triton
import triton.language as tl

# Cross-entropy over the class dim 1 in one pass per row: an online (max-rescaled) log-sum-exp, the target's
# logit, and the linear sums the label-smoothing and probability-target terms need (Σ w·x, Σ w, Σ w·t'·x,
# Σ w·t'), combined with the lse at the end. log_softmax over `dim` is idempotent along the class dim (up to
# rounding), so it is applied separately only when `dim` is another dimension.


@triton.jit
def _log_softmax_dim(x_ptr, out_ptr, L, Bsz, xs0, xs1, xs2, BLOCK_L: tl.constexpr, BLOCK_B: tl.constexpr):
    """log_softmax over the middle dim of an (A, L, B) view; out is the contiguous (A, L, B) result."""
    a = tl.program_id(0).to(tl.int64)
    bs = tl.program_id(1) * BLOCK_B + tl.arange(0, BLOCK_B)
    bok = bs < Bsz
    base = x_ptr + a * xs0 + bs.to(tl.int64)[None, :] * xs2
    mx = tl.full([BLOCK_B], float("-inf"), tl.float32)
    se = tl.zeros([BLOCK_B], dtype=tl.float32)
    for k in range(0, L, BLOCK_L):
        ls = k + tl.arange(0, BLOCK_L)
        m = (ls < L)[:, None] & bok[None, :]
        x = tl.load(base + ls.to(tl.int64)[:, None] * xs1, mask=m, other=float("-inf"))
        new = tl.maximum(mx, tl.max(x, axis=0))
        safe = tl.where(new == float("-inf"), 0.0, new)
        se = se * tl.exp(mx - safe) + tl.sum(tl.exp(x - safe[None, :]), axis=0)
        mx = new
    lse = mx + tl.log(se)
    for k in range(0, L, BLOCK_L):
        ls = k + tl.arange(0, BLOCK_L)
        m = (ls < L)[:, None] & bok[None, :]
        x = tl.load(base + ls.to(tl.int64)[:, None] * xs1, mask=m, other=0.0)
        tl.store(out_ptr + (a * L + ls.to(tl.int64)[:, None]) * Bsz + bs[None, :], x - lse[None, :], mask=m)


@triton.jit
def _cross_entropy_rows(x_ptr, t_ptr, w_ptr, loss_ptr, part_ptr, R, C, S, xs0, xs1, xs2, ts0, ts1, ts2,
                        ignore_index, smoothing,
                        PROB: tl.constexpr, HAS_W: tl.constexpr, REDUCE: tl.constexpr,
                        BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    rok = rows < R
    n = (rows // S).to(tl.int64)
    s = (rows % S).to(tl.int64)
    xrow = x_ptr + n * xs0 + s * xs2
    mx = tl.full([BLOCK_R], float("-inf"), tl.float32)
    se = tl.zeros([BLOCK_R], dtype=tl.float32)
    swx = tl.zeros([BLOCK_R], dtype=tl.float32)  # Σ w·x (class targets) or Σ w·t'·x (probabilities)
    sw = tl.zeros([BLOCK_R], dtype=tl.float32)   # Σ w or Σ w·t'
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
        nll = wy * (lse - xy)
        smooth = tl.where(smoothing != 0, (smoothing / C) * (lse * sw - swx), 0.0)  # −inf logits: no 0·inf
        loss = tl.where(valid, (1.0 - smoothing) * nll + smooth, 0.0)
        den = wy
    loss = tl.where(rok, loss, 0.0)
    if REDUCE:
        tl.store(part_ptr + 2 * tl.program_id(0), tl.sum(loss, axis=0))
        tl.store(part_ptr + 2 * tl.program_id(0) + 1, tl.sum(den, axis=0))
    else:
        tl.store(loss_ptr + rows, loss, mask=rok)


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


def fused_cross_entropy_log_softmax(input, target, dim=1, weight=None, ignore_index=-100, reduction="mean",
                                    label_smoothing=0.0):
    shape = list(input.shape)
    nd = len(shape)
    dev = input.device
    d = dim % nd
    x = input
    if d != 1:
        A = math.prod(shape[:d])
        Bsz = math.prod(shape[d + 1:])
        L = shape[d]
        src = input.reshape(A, L, Bsz)
        x = torch.empty(shape, dtype=torch.float32, device=dev)
        BLOCK_B = min(64, max(2, triton.next_power_of_2(Bsz)))
        _log_softmax_dim[(A, triton.cdiv(Bsz, BLOCK_B))](src, x, L, Bsz, src.stride(0), src.stride(1),
                                                          src.stride(2), BLOCK_L=64, BLOCK_B=BLOCK_B)
    N, C = shape[0], shape[1]
    S = math.prod(shape[2:])
    R = N * S
    x3 = x.reshape(N, C, S)
    prob = target.is_floating_point()
    if prob:
        t3 = target.reshape(N, C, S)
        ts = (t3.stride(0), t3.stride(1), t3.stride(2))
    else:
        t3 = target.reshape(N, 1, S)
        ts = (t3.stride(0), 0, t3.stride(2))
    BLOCK_C = min(256, max(16, triton.next_power_of_2(C)))
    BLOCK_R = max(1, min(64, 4096 // BLOCK_C))
    programs = triton.cdiv(R, BLOCK_R)
    w = weight.contiguous() if weight is not None else x3
    args = (R, C, S, x3.stride(0), x3.stride(1), x3.stride(2), *ts, int(ignore_index), float(label_smoothing))
    if reduction == "none":
        out = torch.empty(shape[:1] + shape[2:], dtype=torch.float32, device=dev)
        if R > 0:
            _cross_entropy_rows[(programs,)](x3, t3, w, out, out, *args, PROB=prob, HAS_W=weight is not None,
                                             REDUCE=False, BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C, num_warps=4)
        return out
    out = torch.empty((), dtype=torch.float32, device=dev)
    parts = torch.zeros((max(programs, 1), 2), dtype=torch.float32, device=dev)
    if R > 0:
        _cross_entropy_rows[(programs,)](x3, t3, w, out, parts, *args, PROB=prob, HAS_W=weight is not None,
                                         REDUCE=True, BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C, num_warps=4)
    _reduce_parts[(1,)](parts, out, max(programs, 1), MEAN=reduction == "mean", BLOCK=1024)
    return out
