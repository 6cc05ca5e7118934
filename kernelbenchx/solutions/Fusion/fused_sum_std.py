import torch
import triton
import triton.language as tl

# The input is viewed as an (M, K) matrix (kept dims × reduced dims). Stage 1 sums K-chunks of BLOCK_M rows
# into a (SPLIT, M) buffer of partial sums (split-K keeps the GPU busy when M is small); stage 2, one program,
# adds the partials, then takes the mean and the sum of squared deviations in two passes (no one-pass
# cancellation) and writes the 0-d result.


@triton.jit
def partial_sums_kernel(x_ptr, part_ptr, M, K, k_per_split, s_m, s_k,
                        ACC64: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    split = tl.program_id(1)
    rows = pid_m.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_ok = rows < M
    if ACC64:
        acc = tl.zeros((BLOCK_M, BLOCK_K), dtype=tl.float64)
    else:
        acc = tl.zeros((BLOCK_M, BLOCK_K), dtype=tl.float32)
    k_start = split.to(tl.int64) * k_per_split
    for k0 in range(0, k_per_split, BLOCK_K):
        ks = k_start + k0 + tl.arange(0, BLOCK_K)
        ok = row_ok[:, None] & (ks < K)[None, :] & ((k0 + tl.arange(0, BLOCK_K)) < k_per_split)[None, :]
        v = tl.load(x_ptr + rows[:, None] * s_m + ks[None, :] * s_k, mask=ok, other=0.0)
        acc += v.to(acc.dtype)
    tl.store(part_ptr + split.to(tl.int64) * M + rows, tl.sum(acc, axis=1), mask=row_ok)


@triton.jit
def std_kernel(part_ptr, sums_ptr, out_ptr, M, n_split, correction,
               ACC64: tl.constexpr, BLOCK: tl.constexpr):
    if ACC64:
        total = tl.zeros((BLOCK,), dtype=tl.float64)
    else:
        total = tl.zeros((BLOCK,), dtype=tl.float32)
    for m0 in range(0, M, BLOCK):
        idx = m0 + tl.arange(0, BLOCK)
        ok = idx < M
        s = tl.zeros((BLOCK,), dtype=total.dtype)
        for sp in range(0, n_split):
            s += tl.load(part_ptr + sp * M + idx, mask=ok, other=0.0)
        tl.store(sums_ptr + idx, s, mask=ok)
        total += s
    mean = tl.sum(total, axis=0) / M
    sq = tl.zeros((BLOCK,), dtype=total.dtype)
    for m0 in range(0, M, BLOCK):
        idx = m0 + tl.arange(0, BLOCK)
        ok = idx < M
        d = tl.where(ok, tl.load(sums_ptr + idx, mask=ok, other=0.0) - mean, 0.0)
        sq += d * d
    var = tl.sum(sq, axis=0) / (M - correction)
    tl.store(out_ptr, tl.sqrt(var).to(out_ptr.dtype.element_ty))


@triton.jit
def zero_kernel(out_ptr):
    tl.store(out_ptr, tl.zeros((), dtype=out_ptr.dtype.element_ty))


def fused_sum_std(input, dim=None, keepdim=False, dtype=None, correction=1):
    out_dtype = dtype if dtype is not None else input.dtype
    out = torch.empty((), dtype=out_dtype, device=input.device)
    nd = input.dim()
    if dim is None:
        red = list(range(nd))
    elif isinstance(dim, int):
        red = [dim % max(nd, 1)]
    else:
        red = sorted(set(d % max(nd, 1) for d in dim))
    kept = [d for d in range(nd) if d not in red]
    M = 1
    for d in kept:
        M *= input.shape[d]
    K = 1
    for d in red:
        K *= input.shape[d]
    if M <= correction:  # too few sums: the result is 0 by definition
        zero_kernel[(1,)](out)
        return out
    x2 = input.permute(kept + red).reshape(M, K)
    s_m, s_k = x2.stride()
    acc64 = out_dtype == torch.float64
    acc_dtype = torch.float64 if acc64 else torch.float32
    if s_k == 1 or s_m != 1:  # rows contiguous along K (or neither): wide K tiles
        BLOCK_M, BLOCK_K = 4, min(1024, triton.next_power_of_2(max(K, 16)))
    else:  # reduction across rows of a row-major buffer: coalesce along M
        BLOCK_M, BLOCK_K = 128, 32
    if acc64:
        BLOCK_K = max(16, BLOCK_K // 2)
    m_blocks = triton.cdiv(M, BLOCK_M)
    k_blocks = triton.cdiv(K, BLOCK_K)
    n_split = max(1, min(k_blocks, triton.cdiv(1024, m_blocks)))
    k_per_split = triton.cdiv(k_blocks, n_split) * BLOCK_K
    n_split = triton.cdiv(K, k_per_split)
    part = torch.empty((n_split, M), dtype=acc_dtype, device=input.device)
    sums = torch.empty(M, dtype=acc_dtype, device=input.device)
    partial_sums_kernel[(m_blocks, n_split)](x2, part, M, K, k_per_split, s_m, s_k,
                                             ACC64=acc64, BLOCK_M=BLOCK_M, BLOCK_K=BLOCK_K, num_warps=4)
    std_kernel[(1,)](part, sums, out, M, n_split, correction, ACC64=acc64, BLOCK=1024, num_warps=8)
    return out
