import torch
import triton
import triton.language as tl


@triton.jit
def _gather_fill_kernel(x_ptr, idx_ptr, m_ptr, out_ptr, total, s1, s2, s3,
                        xs0, xs1, xs2, xs3, xsd, is0, is1, is2, is3, ms0, ms1, ms2, ms3, value,
                        BLOCK: tl.constexpr):
    """out[i] = value where mask[i] else x[i with coordinate `dim` replaced by index[i]], over index's 4-D shape.
    xs* are input strides with the gathered dim's stride moved to xsd (its own entry zeroed)."""
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < total
    i3 = offs % s3
    rest = offs // s3
    i2 = rest % s2
    rest = rest // s2
    i1 = rest % s1
    i0 = rest // s1
    fill = tl.load(m_ptr + i0 * ms0 + i1 * ms1 + i2 * ms2 + i3 * ms3, mask=ok, other=0) != 0
    j = tl.load(idx_ptr + i0 * is0 + i1 * is1 + i2 * is2 + i3 * is3, mask=ok, other=0).to(tl.int64)
    x = tl.load(x_ptr + i0 * xs0 + i1 * xs1 + i2 * xs2 + i3 * xs3 + j * xsd, mask=ok & (fill == 0), other=0)
    res = tl.where(fill, value, x)
    tl.store(out_ptr + offs, res.to(out_ptr.dtype.element_ty), mask=ok)


def fused_gather_masked_fill(input, dim, index, mask, value):
    nd = input.dim()
    d = dim % nd if nd else 0
    out = torch.empty(index.shape, dtype=input.dtype, device=input.device)
    total = out.numel()
    if total == 0:
        return out
    pad = 4 - nd
    sizes = [1] * pad + list(index.shape)
    xs = [0] * pad + list(input.stride())
    xsd = xs[pad + d]
    xs[pad + d] = 0
    ist = [0] * pad + list(index.stride())
    mview = mask.broadcast_to(index.shape)
    ms = [0] * pad + list(mview.stride())
    BLOCK = 1024
    _gather_fill_kernel[(triton.cdiv(total, BLOCK),)](
        input, index, mview, out, total, sizes[1], sizes[2], sizes[3], *xs, xsd, *ist, *ms,
        float(value) if input.is_floating_point() else int(value), BLOCK=BLOCK, num_warps=4)
    return out
