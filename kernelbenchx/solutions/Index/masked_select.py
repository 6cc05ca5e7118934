import torch
import triton
import triton.language as tl

# Stream compaction in three launches over the broadcast shape (row-major order): per-block counts of True,
# one exclusive scan of the counts, then each block recomputes its in-block prefix sum and writes its selected
# values at their final places. The output length depends on the data, so the host reads the total once
# (as torch.masked_select does) to allocate the output.


@triton.jit
def _offsets(offs, D1, D2, D3, s0, s1, s2, s3):
    i3 = offs % D3
    r = offs // D3
    i2 = r % D2
    r = r // D2
    i1 = r % D1
    i0 = r // D1
    return i0 * s0 + i1 * s1 + i2 * s2 + i3 * s3


@triton.jit
def _count_kernel(m_ptr, counts_ptr, n, D1, D2, D3, ms0, ms1, ms2, ms3, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    valid = offs < n
    m = tl.load(m_ptr + _offsets(offs, D1, D2, D3, ms0, ms1, ms2, ms3), mask=valid, other=0).to(tl.int32)
    tl.store(counts_ptr + pid, tl.sum((m != 0).to(tl.int32), axis=0))


@triton.jit
def _scan_kernel(counts_ptr, starts_ptr, nblocks, CHUNK: tl.constexpr):
    carry = tl.zeros((), dtype=tl.int64)
    for base in range(0, nblocks, CHUNK):
        idx = base + tl.arange(0, CHUNK)
        c = tl.load(counts_ptr + idx, mask=idx < nblocks, other=0).to(tl.int64)
        inclusive = tl.cumsum(c, axis=0)
        tl.store(starts_ptr + idx, carry + inclusive - c, mask=idx < nblocks)
        carry += tl.sum(c, axis=0)
    tl.store(starts_ptr + nblocks, carry)


@triton.jit
def _select_kernel(x_ptr, m_ptr, starts_ptr, out_ptr, n, D1, D2, D3, xs0, xs1, xs2, xs3, ms0, ms1, ms2, ms3,
                   BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    valid = offs < n
    m = (tl.load(m_ptr + _offsets(offs, D1, D2, D3, ms0, ms1, ms2, ms3), mask=valid, other=0) != 0).to(tl.int32)
    keep = valid & (m != 0)
    pos = tl.load(starts_ptr + pid) + (tl.cumsum(m, axis=0) - m).to(tl.int64)
    x = tl.load(x_ptr + _offsets(offs, D1, D2, D3, xs0, xs1, xs2, xs3), mask=keep)
    tl.store(out_ptr + pos, x, mask=keep)


def _as4d(t, shape):
    v = t.expand(shape)
    pad = 4 - len(shape)
    return [1] * pad + list(v.shape), [0] * pad + list(v.stride())


def masked_select(input, mask):
    shape = torch.broadcast_shapes(input.shape, mask.shape)
    x, m = input, mask.view(torch.uint8)
    if len(shape) > 4:  # rank > 4: broadcast copies, then one flat pass
        x, m = x.expand(shape).contiguous().view(-1), m.expand(shape).contiguous().view(-1)
        shape = x.shape
    n = 1
    for s in shape:
        n *= s
    if n == 0:
        return torch.empty(0, dtype=input.dtype, device=input.device)
    dims, xs = _as4d(x, shape)
    _, ms = _as4d(m, shape)
    BLOCK = 2048
    nblocks = triton.cdiv(n, BLOCK)
    counts = torch.empty(nblocks, dtype=torch.int32, device=input.device)
    starts = torch.empty(nblocks + 1, dtype=torch.int64, device=input.device)
    _count_kernel[(nblocks,)](m, counts, n, dims[1], dims[2], dims[3], *ms, BLOCK=BLOCK)
    _scan_kernel[(1,)](counts, starts, nblocks, CHUNK=1024)
    total = int(starts[nblocks].item())
    out = torch.empty(total, dtype=input.dtype, device=input.device)
    if total:
        _select_kernel[(nblocks,)](x, m, starts, out, n, dims[1], dims[2], dims[3], *xs, *ms, BLOCK=BLOCK)
    return out
