import math

import torch
import triton
import triton.language as tl


@triton.jit
def _index_select_eq_kernel(x_ptr, idx_ptr, y_ptr, out_ptr, total, L, Bsz, idx_s, xs0, xs1, xs2, ys0, ys1, ys2,
                            y_int, y_flt, Y_TENSOR: tl.constexpr, CMP: tl.constexpr, BLOCK: tl.constexpr):
    """out[a, l, b] = (x[a, idx[l], b] == y[a, l, b]) over the flat (A, L, B) output, compared in the promoted
    dtype (CMP: 0 int64, 1 float32, 2 float64), as torch.eq does."""
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    b = offs % Bsz
    rest = offs // Bsz
    l = rest % L
    a = rest // L
    row = tl.load(idx_ptr + l * idx_s, mask=mask, other=0).to(tl.int64)
    x = tl.load(x_ptr + a * xs0 + row * xs1 + b * xs2, mask=mask, other=0)
    if Y_TENSOR:
        y = tl.load(y_ptr + a * ys0 + l * ys1 + b * ys2, mask=mask, other=0)
    elif CMP == 0:
        y = tl.zeros([BLOCK], dtype=tl.int64) + y_int
    else:
        y = tl.zeros([BLOCK], dtype=tl.float64) + y_flt
    if CMP == 0:
        eq = x.to(tl.int64) == y.to(tl.int64)
    elif CMP == 1:
        eq = x.to(tl.float32) == y.to(tl.float32)
    else:
        eq = x.to(tl.float64) == y.to(tl.float64)
    tl.store(out_ptr + offs, eq, mask=mask)


def fused_index_select_eq(input, dim, index, other):
    nd = input.dim()
    d = dim % nd if nd else 0
    shape = list(input.shape)
    A = math.prod(shape[:d])
    Bsz = math.prod(shape[d + 1:])
    L = index.numel()
    sel_shape = shape[:d] + [L] + shape[d + 1:]
    y_tensor = isinstance(other, torch.Tensor)
    out_shape = list(torch.broadcast_shapes(sel_shape, other.shape)) if y_tensor else sel_shape
    if out_shape != sel_shape:
        raise NotImplementedError("other may not enlarge the selection's shape")
    out = torch.empty(out_shape, dtype=torch.bool, device=input.device)
    total = A * L * Bsz
    if total == 0:
        return out
    cmp = torch.result_type(input, other)
    x3 = input.reshape(A, shape[d], Bsz)
    if y_tensor:
        y3 = other.broadcast_to(sel_shape).reshape(A, L, Bsz)
        ys = (y3.stride(0), y3.stride(1), y3.stride(2))
    else:
        y3, ys = x3, (0, 0, 0)
    idx = index.reshape(L)
    BLOCK = 1024
    _index_select_eq_kernel[(triton.cdiv(total, BLOCK),)](
        x3, idx, y3, out, total, L, Bsz, idx.stride(0), x3.stride(0), x3.stride(1), x3.stride(2), *ys,
        int(other) if not y_tensor and not isinstance(other, float) else 0,
        float(other) if not y_tensor else 0.0, Y_TENSOR=y_tensor,
        CMP=0 if not cmp.is_floating_point else (2 if cmp == torch.float64 else 1), BLOCK=BLOCK, num_warps=4)
    return out
