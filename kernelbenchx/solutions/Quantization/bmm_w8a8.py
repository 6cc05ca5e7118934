import torch
import triton
import triton.language as tl


@triton.jit
def _rne(x):
    # round half to even, exactly: split off the fraction (x - floor(x) is exact in fp32 for |x| < 2^23)
    r = tl.floor(x)
    f = x - r
    odd = (r - 2.0 * tl.floor(r * 0.5)) != 0.0
    return tl.where((f > 0.5) | ((f == 0.5) & odd), r + 1.0, r)


@triton.jit
def _quant_rows_kernel(x_ptr, q_ptr, s_ptr, R, C, sxb, sxr, sxc, BR: tl.constexpr, BC: tl.constexpr):
    """BR rows of batch program_id(1) per program, each with its own scale max|row|/127; q is (B, R, C) contiguous
    int8, s is (B, R)."""
    batch = tl.program_id(1).to(tl.int64)
    x_ptr += batch * sxb
    q_ptr += batch * R * C
    s_ptr += batch * R
    rr = tl.program_id(0) * BR + tl.arange(0, BR)
    rc = tl.arange(0, BC)
    r_ok = rr < R
    amax = tl.zeros((BR, BC), dtype=tl.float32)
    for c0 in range(0, C, BC):
        ok = r_ok[:, None] & (c0 + rc[None, :] < C)
        x = tl.load(x_ptr + rr[:, None].to(tl.int64) * sxr + (c0 + rc[None, :]) * sxc, mask=ok, other=0.0)
        amax = tl.maximum(amax, tl.abs(x))
    scale = tl.max(amax, axis=1) / 127.0
    safe = tl.where(scale > 0.0, scale, 1.0)
    tl.store(s_ptr + rr, scale, mask=r_ok)
    for c0 in range(0, C, BC):
        ok = r_ok[:, None] & (c0 + rc[None, :] < C)
        x = tl.load(x_ptr + rr[:, None].to(tl.int64) * sxr + (c0 + rc[None, :]) * sxc, mask=ok, other=0.0)
        q = tl.minimum(tl.maximum(_rne(x / safe[:, None]), -127.0), 127.0)
        tl.store(q_ptr + rr[:, None].to(tl.int64) * C + c0 + rc[None, :], q.to(tl.int8), mask=ok)


@triton.jit
def _quant_cols_kernel(w_ptr, q_ptr, s_ptr, K, N, swb, swk, swn, BK: tl.constexpr, BN: tl.constexpr):
    """BN columns per program (scale max|column|/127), read a (BK, BN) tile at a time along the rows, so that
    a row-major weight is read coalesced; q is stored transposed, (N, K) contiguous int8, K-major as the int8
    tensor-core products want their second operand. Batch program_id(1)."""
    batch = tl.program_id(1).to(tl.int64)
    w_ptr += batch * swb
    q_ptr += batch * N * K
    s_ptr += batch * N
    rn = tl.program_id(0) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    n_ok = rn < N
    amax = tl.zeros((BK, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        ok = (k0 + rk[:, None] < K) & n_ok[None, :]
        w = tl.load(w_ptr + (k0 + rk[:, None]).to(tl.int64) * swk + rn[None, :] * swn, mask=ok, other=0.0)
        amax = tl.maximum(amax, tl.abs(w))
    scale = tl.max(amax, axis=0) / 127.0
    safe = tl.where(scale > 0.0, scale, 1.0)
    tl.store(s_ptr + rn, scale, mask=n_ok)
    for k0 in range(0, K, BK):
        ok = (k0 + rk[:, None] < K) & n_ok[None, :]
        w = tl.load(w_ptr + (k0 + rk[:, None]).to(tl.int64) * swk + rn[None, :] * swn, mask=ok, other=0.0)
        q = tl.minimum(tl.maximum(_rne(w / safe[None, :]), -127.0), 127.0)
        tl.store(q_ptr + rn[None, :].to(tl.int64) * K + k0 + rk[:, None], q.to(tl.int8), mask=ok)


@triton.jit
def _int8_mm_kernel(a_ptr, b_ptr, sa_ptr, sb_ptr, c_ptr, M, N, K,
                    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    """c = float(qa @ qbᵀ) · sa[m] · sb[n] for qa (M, K) and qb (N, K): int8 tensor-core products, exact int32
    accumulation. Batch program_id(1)."""
    pid = tl.program_id(0)
    batch = tl.program_id(1).to(tl.int64)
    a_ptr += batch * M * K
    b_ptr += batch * N * K
    sa_ptr += batch * M
    sb_ptr += batch * N
    c_ptr += batch * M * N
    grid_m = tl.cdiv(M, BM)
    grid_n = tl.cdiv(N, BN)
    width = GROUP_M * grid_n
    first_m = (pid // width) * GROUP_M
    size_m = tl.minimum(grid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % width) % size_m
    pid_n = (pid % width) // size_m
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None].to(tl.int64) * K + rk[None, :]
    b_ptrs = b_ptr + rn[None, :].to(tl.int64) * K + rk[:, None]
    acc = tl.zeros((BM, BN), dtype=tl.int32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (k0 + rk[None, :] < K), other=0)
        b = tl.load(b_ptrs, mask=(k0 + rk[:, None] < K) & (rn[None, :] < N), other=0)
        acc += tl.dot(a, b, out_dtype=tl.int32)
        a_ptrs += BK
        b_ptrs += BK
    sa = tl.load(sa_ptr + rm, mask=rm < M, other=0.0)
    sb = tl.load(sb_ptr + rn, mask=rn < N, other=0.0)
    out = acc.to(tl.float32) * sa[:, None] * sb[None, :]
    tl.store(c_ptr + rm[:, None].to(tl.int64) * N + rn[None, :], out, mask=(rm[:, None] < M) & (rn[None, :] < N))


def bmm_w8a8(input, mat2):
    B, M, K = input.shape
    N = mat2.shape[2]
    dev = input.device
    qx = torch.empty((B, M, K), dtype=torch.int8, device=dev)
    qy = torch.empty((B, N, K), dtype=torch.int8, device=dev)
    sx = torch.empty((B, M), dtype=torch.float32, device=dev)
    sy = torch.empty((B, N), dtype=torch.float32, device=dev)
    _quant_rows_kernel[(triton.cdiv(M, 4), B)](input, qx, sx, M, K, *input.stride(), BR=4, BC=256)
    _quant_cols_kernel[(triton.cdiv(N, 64), B)](mat2, qy, sy, K, N, *mat2.stride(), BK=32, BN=64)
    out = torch.empty((B, M, N), dtype=torch.float32, device=dev)
    if B * M * N >= 1 << 22:
        BM, BN, BK, warps, stages = 128, 128, 64, 8, 3
    else:
        BM, BN, BK, warps, stages = 64, 64, 64, 4, 3
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN), B)
    _int8_mm_kernel[grid](qx, qy, sx, sy, out, M, N, K, BM=BM, BN=BN, BK=BK, GROUP_M=8, num_warps=warps,
                          num_stages=stages)
    return out
