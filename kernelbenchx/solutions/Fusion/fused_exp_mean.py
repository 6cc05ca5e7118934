import math

import torch
import triton
import triton.language as tl


@triton.jit
def _exp_mean_partial(x_ptr, out_ptr, N, chunk, xs_m, xs_n,
                      ACC64: tl.constexpr, FINAL: tl.constexpr, BLOCK: tl.constexpr):
    """Row `m` of the (M, N) view, columns [s·chunk, (s+1)·chunk): sum of exp(x); FINAL writes the mean."""
    m = tl.program_id(0).to(tl.int64)
    s = tl.program_id(1)
    start = s * chunk
    end = tl.minimum(start + chunk, N)
    if ACC64:
        acc = tl.zeros([BLOCK], dtype=tl.float64)
    else:
        acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(start, end, BLOCK):
        cols = k + tl.arange(0, BLOCK)
        ok = cols < end
        x = tl.load(x_ptr + m * xs_m + cols.to(tl.int64) * xs_n, mask=ok, other=float("-inf"))
        e = tl.exp(x)  # float32, as torch.exp; exp(-inf) = 0 for the masked lanes
        if ACC64:
            acc += e.to(tl.float64)
        else:
            acc += e
    total = tl.sum(acc, axis=0)
    if FINAL:
        tl.store(out_ptr + m, total / N)
    else:
        tl.store(out_ptr + m * tl.num_programs(1) + s, total)


@triton.jit
def _exp_mean_combine(part_ptr, out_ptr, SPLIT, N, BLOCK: tl.constexpr):
    m = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    p = tl.load(part_ptr + m * SPLIT + offs, mask=offs < SPLIT, other=0.0)
    tl.store(out_ptr + m, tl.sum(p, axis=0) / N)


def fused_exp_mean(input, dim=None, keepdim=False, dtype=None):
    shape = tuple(input.shape)
    nd = len(shape)
    if dim is None:
        red = list(range(nd))
    else:
        red = sorted({d % nd for d in ((dim,) if isinstance(dim, int) else dim)}) if nd else []
    kept = [d for d in range(nd) if d not in red]
    M = math.prod(shape[d] for d in kept)
    N = math.prod(shape[d] for d in red)
    out_dtype = dtype if dtype is not None else torch.float32
    acc64 = out_dtype == torch.float64
    out_shape = [1 if d in red else shape[d] for d in range(nd)] if keepdim else [shape[d] for d in kept]
    out = torch.empty(out_shape, dtype=out_dtype, device=input.device)
    if M == 0:
        return out
    x = input.permute(kept + red).reshape(M, N)
    BLOCK = 1024 if N >= 1024 else max(16, triton.next_power_of_2(max(N, 1)))
    split = 1
    if M < 512 and N >= 8 * BLOCK:  # few long rows: split them so every SM gets work
        split = min(1024, max(1, 1024 // M), triton.cdiv(N, 4 * BLOCK))
    chunk = triton.cdiv(triton.cdiv(N, split), BLOCK) * BLOCK if N else BLOCK
    split = max(1, triton.cdiv(N, chunk))
    flat = out.reshape(M)
    if split == 1:
        _exp_mean_partial[(M, 1)](x, flat, N, chunk, x.stride(0), x.stride(1),
                                  ACC64=acc64, FINAL=True, BLOCK=BLOCK, num_warps=4)
        return out
    part = torch.empty((M, split), dtype=torch.float64 if acc64 else torch.float32, device=input.device)
    _exp_mean_partial[(M, split)](x, part, N, chunk, x.stride(0), x.stride(1),
                                  ACC64=acc64, FINAL=False, BLOCK=BLOCK, num_warps=4)
    _exp_mean_combine[(M,)](part, flat, split, N, BLOCK=triton.next_power_of_2(split), num_warps=4)
    return out
