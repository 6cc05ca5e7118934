import itertools

import torch
import triton
import triton.language as tl

# Two launches: a strided copy of `input` into the fresh output, then one lane per element of `index`, which
# reads its target coordinate along `dim` and writes src (read through src's own strides, which covers the
# leading index-shaped block of a larger src) or the scalar.


@triton.jit
def _copy_kernel(x_ptr, out_ptr, n, D1, D2, D3, s0, s1, s2, s3, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    i3 = offs % D3
    r = offs // D3
    i2 = r % D2
    r = r // D2
    i1 = r % D1
    i0 = r // D1
    tl.store(out_ptr + offs, tl.load(x_ptr + i0 * s0 + i1 * s1 + i2 * s2 + i3 * s3, mask=mask), mask=mask)


@triton.jit
def _scatter_kernel(idx_ptr, src_ptr, out_ptr, value, n, D1, D2, D3, is0, is1, is2, is3, ss0, ss1, ss2, ss3,
                    os0, os1, os2, os3, DIM: tl.constexpr, SCALAR: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    i3 = offs % D3
    r = offs // D3
    i2 = r % D2
    r = r // D2
    i1 = r % D1
    i0 = r // D1
    t = tl.load(idx_ptr + i0 * is0 + i1 * is1 + i2 * is2 + i3 * is3, mask=mask, other=0).to(tl.int64)
    if SCALAR:
        v = (tl.zeros([BLOCK], out_ptr.dtype.element_ty) + value).to(out_ptr.dtype.element_ty)
    else:
        v = tl.load(src_ptr + i0 * ss0 + i1 * ss1 + i2 * ss2 + i3 * ss3, mask=mask)
    if DIM == 0:
        i0 = t
    elif DIM == 1:
        i1 = t
    elif DIM == 2:
        i2 = t
    else:
        i3 = t
    tl.store(out_ptr + i0 * os0 + i1 * os1 + i2 * os2 + i3 * os3, v, mask=mask)


def _pad(shape, strides):
    pad = 4 - len(shape)
    return [1] * pad + list(shape), [0] * pad + list(strides)


def _launch_scatter(out, dim, index, src, BLOCK):
    """One launch over `index` (rank ≤ 4, `dim` non-negative) into the view `out` of the same rank."""
    rank = max(out.dim(), 1)
    idims, istr = _pad(index.shape, index.stride())
    _, ostr = _pad(out.shape, out.stride())
    scalar = not isinstance(src, torch.Tensor)
    if scalar:
        sstr, src_arg, value = [0, 0, 0, 0], out, src
    else:
        _, sstr = _pad(src.shape, src.stride())
        src_arg, value = src, 0.0
    _scatter_kernel[(triton.cdiv(index.numel(), BLOCK),)](index, src_arg, out, value, index.numel(), idims[1],
                                                          idims[2], idims[3], *istr, *sstr, *ostr,
                                                          DIM=dim + 4 - rank, SCALAR=scalar, BLOCK=BLOCK)


def scatter(input, dim, index, src):
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    n = input.numel()
    BLOCK = 1024
    if n:
        if input.dim() > 4:  # rank > 4: copy from a contiguous copy, flat
            x, dims, xs = input.contiguous(), [1, 1, 1, n], [0, 0, 0, 1]
        else:
            x, (dims, xs) = input, _pad(input.shape, input.stride())
        _copy_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, dims[1], dims[2], dims[3], *xs, BLOCK=BLOCK)
    m = index.numel()
    if m == 0 or n == 0:
        return out
    rank = max(input.dim(), 1)
    dim = dim % rank
    if rank <= 4:
        _launch_scatter(out, dim, index, src, BLOCK)
        return out
    # rank > 4: one launch per index position over the leading rank − 4 dimensions other than `dim`, on views
    loop = [d for d in range(rank) if d != dim][:rank - 4]
    order = loop + [d for d in range(rank) if d not in loop]
    scalar = not isinstance(src, torch.Tensor)
    o_p, i_p = out.permute(order), index.permute(order)
    s_p = src if scalar else src.permute(order)
    for pos in itertools.product(*(range(index.shape[d]) for d in loop)):
        _launch_scatter(o_p[pos], order.index(dim) - len(loop), i_p[pos], src if scalar else s_p[pos], BLOCK)
    return out
