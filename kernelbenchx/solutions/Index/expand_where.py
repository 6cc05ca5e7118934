import torch
import triton
import triton.language as tl

# One pass over the output: each program owns one output row (all dimensions but the last) and a block of the
# last dimension, and reads input, cond and other through their broadcast strides (stride 0 where broadcast),
# so nothing is materialized.


@triton.jit
def _expand_where_kernel(x_ptr, c_ptr, y_ptr, out_ptr, D1, D2, D3,
                         xs0, xs1, xs2, xs3, cs0, cs1, cs2, cs3, ys0, ys1, ys2, ys3,
                         BLOCK: tl.constexpr):
    row = tl.program_id(1).to(tl.int64)
    i2 = row % D2
    i1 = (row // D2) % D1
    i0 = row // (D2 * D1)
    cols = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < D3
    x = tl.load(x_ptr + i0 * xs0 + i1 * xs1 + i2 * xs2 + cols * xs3, mask=mask)
    c = tl.load(c_ptr + i0 * cs0 + i1 * cs1 + i2 * cs2 + cols * cs3, mask=mask, other=0)
    y = tl.load(y_ptr + i0 * ys0 + i1 * ys1 + i2 * ys2 + cols * ys3, mask=mask)
    tl.store(out_ptr + row * D3 + cols, tl.where(c != 0, x, y), mask=mask)


def _as4d(t, shape):
    """A view of `t` broadcast to `shape` (rank ≤ 4), as 4 dimensions."""
    v = t.expand(shape)
    pad = 4 - len(shape)
    return [1] * pad + list(v.shape), [0] * pad + list(v.stride())


def expand_where(input, target_sizes, cond, other):
    expanded = input.expand(*target_sizes)
    shape = torch.broadcast_shapes(expanded.shape, cond.shape, other.shape)
    out = torch.empty(shape, dtype=expanded.dtype, device=expanded.device)
    if out.numel() == 0:
        return out
    x, c, y = expanded, cond.view(torch.uint8), other
    if len(shape) > 4:  # rank > 4: broadcast copies, then one flat pass
        x, c, y = (t.expand(shape).contiguous().view(-1) for t in (x, c, y))
        shape = (out.numel(),)
    dims, xs = _as4d(x, shape)
    _, cs = _as4d(c, shape)
    _, ys = _as4d(y, shape)
    D0, D1, D2, D3 = dims
    BLOCK = min(4096, triton.next_power_of_2(D3))
    grid = (triton.cdiv(D3, BLOCK), D0 * D1 * D2)
    _expand_where_kernel[grid](x, c, y, out, D1, D2, D3, *xs, *cs, *ys, BLOCK=BLOCK, num_warps=4)
    return out
