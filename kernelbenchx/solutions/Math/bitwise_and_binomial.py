import torch
import triton
import triton.language as tl

# One elementwise kernel over the output (broadcast shape, up to 4 dims). Each output element finds its draw's
# index in the draw shape (broadcast of total_count and p), so elements sharing a draw share its Philox counters
# and therefore its value. K ~ Binomial(n, p) is a sum of independent Binomial(c, p) draws over chunks of
# c <= CHUNK trials, each by inversion from its own uniform (chunk j uses seed + j): walk the CDF from 0 with
# the recurrence pmf(k+1) = pmf(k)·(c−k)/(k+1)·p/(1−p), on min(p, 1−p) (then K = n − k for p > 1/2), about
# n·min(p, 1−p) steps in all. Chunks keep the walk's start (1−p)^c >= 2^-64 a normal float32: for a whole
# n above ~120 at p near 1/2 it underflowed to 0 and every draw came out K = n.

SEED = 0x9E3779B97F4A7C15 >> 2  # the signature has no seed: a fixed one (same inputs, same draws)


@triton.jit
def _and_binomial_kernel(a_ptr, o_ptr, n_ptr, p_ptr, out_ptr, total, S1, S2, S3,
                         sa0, sa1, sa2, sa3, so0, so1, so2, so3, sn0, sn1, sn2, sn3, sp0, sp1, sp2, sp3,
                         d0, d1, d2, d3, seed, LOGITS: tl.constexpr, CHUNK: tl.constexpr,
                         BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    i3 = offs % S3
    r = offs // S3
    i2 = r % S2
    r = r // S2
    i1 = r % S1
    i0 = r // S1
    a = tl.load(a_ptr + i0 * sa0 + i1 * sa1 + i2 * sa2 + i3 * sa3, mask=mask, other=0)
    o = tl.load(o_ptr + i0 * so0 + i1 * so1 + i2 * so2 + i3 * so3, mask=mask, other=0)
    m = (a & o).to(tl.float32)
    n = tl.load(n_ptr + i0 * sn0 + i1 * sn1 + i2 * sn2 + i3 * sn3, mask=mask, other=0).to(tl.float32)
    x = tl.load(p_ptr + i0 * sp0 + i1 * sp1 + i2 * sp2 + i3 * sp3, mask=mask, other=0.0).to(tl.float32)
    if LOGITS:
        flip = x > 0.0
        q = tl.sigmoid(-tl.abs(x))  # min(p, 1 − p), accurate for large |logits|
    else:
        flip = x > 0.5
        q = tl.where(flip, 1.0 - x, x)
    draw = i0 * d0 + i1 * d1 + i2 * d2 + i3 * d3
    ratio = q / (1.0 - q)
    log_q1 = tl.log(1.0 - q)  # q = 1/2 at most, so 1 − q ≥ 1/2
    k = tl.zeros((BLOCK,), dtype=tl.float32)
    left = tl.where(mask & (q > 0.0), n, 0.0)  # trials not drawn yet
    j = 0
    while tl.max(left, axis=0) > 0.0:
        c = tl.minimum(left, CHUNK)
        u = tl.rand(seed + j, draw)
        pmf = tl.exp(c * log_q1)  # P(K_chunk = 0)
        cdf = pmf
        kc = tl.zeros((BLOCK,), dtype=tl.float32)
        walking = (u >= cdf) & (kc < c)
        while tl.sum(walking.to(tl.int32), axis=0) > 0:
            pmf = pmf * ratio * (c - kc) / (kc + 1.0)
            kc = tl.where(walking, kc + 1.0, kc)
            cdf = tl.where(walking, cdf + pmf, cdf)
            walking = walking & (u >= cdf) & (kc < c)
        k += kc
        left -= c
        j += 1
    k = tl.where(flip, n - k, k)
    tl.store(out_ptr + offs, k * m, mask=mask)


def _four(shape):
    return (1,) * (4 - len(shape)) + tuple(shape)


def bitwise_and_binomial(input, other, total_count, probs=None, logits=None):
    x = logits if logits is not None else probs
    count = total_count if isinstance(total_count, torch.Tensor) else torch.full((), total_count, device=x.device)
    draw_shape = torch.broadcast_shapes(count.shape, x.shape)
    shape = torch.broadcast_shapes(input.shape, other.shape, draw_shape)
    out = torch.empty(shape, dtype=torch.float32, device=x.device)
    total = out.numel()
    if total == 0:
        return out
    s4 = _four(shape)
    views = [t.expand(shape).reshape(s4) if t.dim() <= 4 else t for t in (input, other, count, x)]
    # Draw index strides: row-major strides of the draw shape, 0 along dims where the draw is reused.
    d4 = _four(draw_shape)
    dstride, acc = [0, 0, 0, 0], 1
    for dim in range(3, -1, -1):
        if d4[dim] > 1:
            dstride[dim] = acc
        acc *= d4[dim]
    BLOCK = 1024
    _and_binomial_kernel[(triton.cdiv(total, BLOCK),)](
        views[0], views[1], views[2], views[3], out, total, s4[1], s4[2], s4[3],
        *views[0].stride(), *views[1].stride(), *views[2].stride(), *views[3].stride(), *dstride, SEED,
        LOGITS=logits is not None, CHUNK=64, BLOCK=BLOCK)
    return out
