import torch
import triton
import triton.language as tl

# Stream compaction in three launches: per-block mask counts, one exclusive scan of the counts, then each block
# recomputes its in-block prefix sum, applies add + GELU and writes its selected values at their final places.
# The output length is data-dependent, so the host reads the total once (as torch.masked_select does).


@triton.jit
def offsets4d(offs, S1, S2, S3, s0, s1, s2, s3):
    i3 = offs % S3
    r = offs // S3
    i2 = r % S2
    r = r // S2
    i1 = r % S1
    i0 = r // S1
    return i0 * s0 + i1 * s1 + i2 * s2 + i3 * s3


@triton.jit
def count_kernel(m_ptr, counts_ptr, n, S1, S2, S3, ms0, ms1, ms2, ms3, FLAT: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    valid = offs < n
    if FLAT:
        mo = offs
    else:
        mo = offsets4d(offs, S1, S2, S3, ms0, ms1, ms2, ms3)
    m = tl.load(m_ptr + mo, mask=valid, other=0).to(tl.int32)
    tl.store(counts_ptr + pid, tl.sum(m, axis=0))


@triton.jit
def scan_kernel(counts_ptr, starts_ptr, nblocks, CHUNK: tl.constexpr):
    carry = tl.zeros((), dtype=tl.int64)
    for base in range(0, nblocks, CHUNK):
        idx = base + tl.arange(0, CHUNK)
        c = tl.load(counts_ptr + idx, mask=idx < nblocks, other=0).to(tl.int64)
        inclusive = tl.cumsum(c, axis=0)
        tl.store(starts_ptr + idx, carry + inclusive - c, mask=idx < nblocks)
        carry += tl.sum(c, axis=0)
    tl.store(starts_ptr + nblocks, carry)


@triton.jit
def select_gelu_kernel(x_ptr, m_ptr, o_ptr, starts_ptr, y_ptr, n, o_scalar, o_stride, alpha,
                       S1, S2, S3, xs0, xs1, xs2, xs3, ms0, ms1, ms2, ms3,
                       O_TENSOR: tl.constexpr, FLAT: tl.constexpr, TANH: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    valid = offs < n
    if FLAT:
        xo = offs
        mo = offs
    else:
        xo = offsets4d(offs, S1, S2, S3, xs0, xs1, xs2, xs3)
        mo = offsets4d(offs, S1, S2, S3, ms0, ms1, ms2, ms3)
    m = tl.load(m_ptr + mo, mask=valid, other=0).to(tl.int32)
    keep = valid & (m != 0)
    pos = tl.load(starts_ptr + pid) + (tl.cumsum(m, axis=0) - m).to(tl.int64)
    x = tl.load(x_ptr + xo, mask=keep, other=0.0)
    if O_TENSOR:
        o = tl.load(o_ptr + pos * o_stride, mask=keep, other=0.0)
    else:
        o = o_scalar
    s = x + alpha * o
    if TANH:
        z = 0.7978845608028654 * (s + 0.044715 * s * s * s)
        t = 1.0 - 2.0 / (tl.exp(2.0 * z) + 1.0)
        y = 0.5 * s * (1.0 + t)
    else:
        y = 0.5 * s * (1.0 + tl.erf(s * 0.7071067811865476))
    tl.store(y_ptr + pos, y, mask=keep)


def as4d(t, shape):
    v = t.broadcast_to(shape)
    if len(shape) > 4:
        return v.contiguous().reshape(1, 1, 1, -1)
    return v.reshape((1,) * (4 - len(shape)) + tuple(shape))


def fused_masked_select_add_gelu(input, mask, other, *, alpha=1, approximate="none"):
    shape = torch.broadcast_shapes(input.shape, mask.shape)
    n = 1
    for d in shape:
        n *= d
    dev = input.device
    if n == 0:
        return torch.empty(0, dtype=torch.float32, device=dev)
    x4, m4 = as4d(input, shape), as4d(mask, shape)
    size4 = x4.shape
    flat = x4.is_contiguous() and m4.is_contiguous()  # dense, full shape: no stride-0 (broadcast) dims
    BLOCK = 4096
    nblocks = triton.cdiv(n, BLOCK)
    counts = torch.empty(nblocks, dtype=torch.int32, device=dev)
    starts = torch.empty(nblocks + 1, dtype=torch.int64, device=dev)
    count_kernel[(nblocks,)](m4, counts, n, size4[1], size4[2], size4[3], *m4.stride(), FLAT=flat, BLOCK=BLOCK,
                             num_warps=8)
    scan_kernel[(1,)](counts, starts, nblocks, CHUNK=1024, num_warps=4)
    total = int(starts[nblocks].item())
    y = torch.empty(total, dtype=torch.float32, device=dev)
    if total == 0:
        return y
    o_is_t = isinstance(other, torch.Tensor)
    if o_is_t:
        o = other.reshape(-1)
        o_stride = 0 if o.numel() == 1 else o.stride(0)
        o_scalar = 0.0
    else:
        o, o_stride, o_scalar = y, 0, float(other)
    select_gelu_kernel[(nblocks,)](x4, m4, o, starts, y, n, o_scalar, o_stride, float(alpha),
                                   size4[1], size4[2], size4[3], *x4.stride(), *m4.stride(),
                                   O_TENSOR=o_is_t, FLAT=flat, TANH=approximate == "tanh", BLOCK=BLOCK,
                                   num_warps=8)
    return y
