import torch
import triton
import triton.language as tl

MAX_DIMS = 4


@triton.jit
def _roll_kernel(x_ptr, y_ptr, n, d1, d2, d3, h0, h1, h2, h3, s0, s1, s2, s3, BLOCK: tl.constexpr):
    # out[i0, i1, i2, i3] = in[(i0 + h0) mod d0, ...]; the output is contiguous, the input read through strides
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    i3 = offs % d3
    rest = offs // d3
    i2 = rest % d2
    rest = rest // d2
    i1 = rest % d1
    i0 = rest // d1
    d0 = n // (d1 * d2 * d3)
    j0 = i0 + h0
    j0 = tl.where(j0 >= d0, j0 - d0, j0)
    j1 = i1 + h1
    j1 = tl.where(j1 >= d1, j1 - d1, j1)
    j2 = i2 + h2
    j2 = tl.where(j2 >= d2, j2 - d2, j2)
    j3 = i3 + h3
    j3 = tl.where(j3 >= d3, j3 - d3, j3)
    src = j0.to(tl.int64) * s0 + j1.to(tl.int64) * s1 + j2.to(tl.int64) * s2 + j3.to(tl.int64) * s3
    tl.store(y_ptr + offs, tl.load(x_ptr + src, mask=mask), mask=mask)


def ifftshift(input: torch.Tensor, dim=None) -> torch.Tensor:
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    if n == 0:
        return out
    ndim = input.dim()
    dims = range(ndim) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    shift = [0] * ndim
    for d in dims:  # a dim listed twice is shifted twice, as torch.roll does
        d = d % ndim
        shift[d] = (shift[d] + input.shape[d] // 2) % input.shape[d]
    if ndim > MAX_DIMS:  # roll is separable: one pass per shifted dim over an (outer, size, inner) view
        x = input.contiguous()
        for d in range(ndim):
            if shift[d] == 0:
                continue
            size = x.shape[d]
            inner = x.stride(d)
            y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
            _roll_kernel[(triton.cdiv(n, 1024),)](x, y, n, n // (size * inner), size, inner, 0, 0, shift[d], 0,
                                                  0, size * inner, inner, 1, BLOCK=1024)
            x = y
        return x.clone() if x is input else x
    x = input
    sizes, strides = list(x.shape), list(x.stride())
    pad = MAX_DIMS - len(sizes)
    sizes, strides, shift = [1] * pad + sizes, [0] * pad + strides, [0] * pad + shift
    BLOCK = 1024 if n < (1 << 20) else 4096
    _roll_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, sizes[1], sizes[2], sizes[3], *shift, *strides, BLOCK=BLOCK,
                                          num_warps=4 if BLOCK == 1024 else 8)
    return out
