import math

import torch
import triton
import triton.language as tl


@triton.jit
def _gelu(x, TANH: tl.constexpr):
    if TANH:
        inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        return 0.5 * x * (1.0 + (2.0 * tl.sigmoid(2.0 * inner) - 1.0))
    else:
        return 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))


@triton.jit
def _gelu_min_rows(x_ptr, val_ptr, idx_ptr, N, chunk, xs_m, xs_n,
                   TANH: tl.constexpr, WITH_INDEX: tl.constexpr, BLOCK: tl.constexpr):
    """Minimum of GELU over columns [s·chunk, (s+1)·chunk) of row m, and the first column holding it."""
    m = tl.program_id(0).to(tl.int64)
    s = tl.program_id(1)
    start = s * chunk
    end = tl.minimum(start + chunk, N)
    best = tl.full([BLOCK], float("inf"), tl.float32)
    where = tl.full([BLOCK], 2147483647, tl.int32)
    for k in range(start, end, BLOCK):
        cols = k + tl.arange(0, BLOCK)
        ok = cols < end
        x = tl.load(x_ptr + m * xs_m + cols.to(tl.int64) * xs_n, mask=ok, other=0.0)
        g = tl.where(ok, _gelu(x, TANH), float("inf"))
        better = g < best  # strict: each lane keeps its first occurrence
        best = tl.where(better, g, best)
        where = tl.where(better, cols, where)
    mn = tl.min(best, axis=0)
    slot = m * tl.num_programs(1) + s
    tl.store(val_ptr + slot, mn)
    if WITH_INDEX:
        tl.store(idx_ptr + slot, tl.min(tl.where(best == mn, where, 2147483647), axis=0).to(tl.int64))


@triton.jit
def _min_combine(val_ptr, idx_ptr, out_val_ptr, out_idx_ptr, SPLIT,
                 WITH_INDEX: tl.constexpr, BLOCK: tl.constexpr):
    m = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    ok = offs < SPLIT
    v = tl.load(val_ptr + m * SPLIT + offs, mask=ok, other=float("inf"))
    mn = tl.min(v, axis=0)
    tl.store(out_val_ptr + m, mn)
    if WITH_INDEX:
        i = tl.load(idx_ptr + m * SPLIT + offs, mask=ok, other=9223372036854775807)
        tl.store(out_idx_ptr + m, tl.min(tl.where(v == mn, i, 9223372036854775807), axis=0))


def fused_gelu_min(input, approximate="none", dim=None, keepdim=False):
    shape = tuple(input.shape)
    nd = len(shape)
    tanh = approximate == "tanh"
    if dim is None:
        red, kept = list(range(nd)), []
    else:
        d = dim % nd if nd else 0
        red, kept = ([d] if nd else []), [i for i in range(nd) if i != d]
    M = math.prod(shape[i] for i in kept)
    N = math.prod(shape[i] for i in red)
    x = input.permute(kept + red).reshape(M, N)
    if dim is None:
        out_shape = []
    elif keepdim:
        out_shape = [1 if i in red else shape[i] for i in range(nd)]
    else:
        out_shape = [shape[i] for i in kept]
    values = torch.empty(out_shape, dtype=torch.float32, device=input.device)
    indices = torch.empty(out_shape, dtype=torch.int64, device=input.device)
    with_index = dim is not None
    if M > 0:
        BLOCK = 1024 if N >= 1024 else max(16, triton.next_power_of_2(max(N, 1)))
        split = 1
        if M < 512 and N >= 8 * BLOCK:  # few long rows: split them so every SM gets work
            split = min(1024, max(1, 1024 // M), triton.cdiv(N, 4 * BLOCK))
        chunk = max(BLOCK, triton.cdiv(triton.cdiv(N, split), BLOCK) * BLOCK)
        split = max(1, triton.cdiv(N, chunk))
        if split == 1:
            _gelu_min_rows[(M, 1)](x, values, indices, N, chunk, x.stride(0), x.stride(1),
                                   TANH=tanh, WITH_INDEX=with_index, BLOCK=BLOCK, num_warps=4)
        else:
            pv = torch.empty((M, split), dtype=torch.float32, device=input.device)
            pi = torch.empty((M, split), dtype=torch.int64, device=input.device)
            _gelu_min_rows[(M, split)](x, pv, pi, N, chunk, x.stride(0), x.stride(1),
                                       TANH=tanh, WITH_INDEX=with_index, BLOCK=BLOCK, num_warps=4)
            _min_combine[(M,)](pv, pi, values, indices, split, WITH_INDEX=with_index,
                               BLOCK=triton.next_power_of_2(split), num_warps=4)
    if dim is None:
        return values
    return values, indices
