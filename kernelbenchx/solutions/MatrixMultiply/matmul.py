# torch.matmul on fp32 with TF32 tensor cores (the contract allows them). Hopper's wgmma wants both 32-bit
# operands K-major, so a B that is not already K-contiguous (row-major (K, N), the common case) is first copied
# to a K-contiguous (N, K) buffer by a tiled Triton transpose, and the GEMM loads (BN, BK) tiles of it and feeds
# tl.trans(b) to tl.dot; an A whose K stride is not 1 is copied to row-major the same way. A K-contiguous operand
# (a transposed view, A·Aᵀ) is read in place. On an H100 this is 2.5-4x faster than loading row-major B tiles
# (4096³: 0.50 ms against 1.70 ms; eager TF32 cuBLAS 0.37 ms); it stays slower than cuBLAS because of the extra
# pass over B and because cuBLAS's TF32 kernels pipeline better than Triton's at these sizes.
import torch
import triton
import triton.language as tl


@triton.jit
def _copy_kernel(src_ptr, dst_ptr, R, C, B1, ss0, ss1, ssr, ssc, sd0, sd1, sdr, sdc,
                 BR: tl.constexpr, BC: tl.constexpr):
    """dst[b0, b1, r, c] = src[b0, b1, r, c], one (BR, BC) tile per program; with src and dst contiguous along
    different dimensions this is a tiled transpose (the tile is staged through shared memory)."""
    pid = tl.program_id(0)
    batch = tl.program_id(1)
    b0 = batch // B1
    b1 = batch % B1
    grid_c = tl.cdiv(C, BC)
    rr = (pid // grid_c) * BR + tl.arange(0, BR)
    rc = (pid % grid_c) * BC + tl.arange(0, BC)
    mask = (rr[:, None] < R) & (rc[None, :] < C)
    src = src_ptr + b0.to(tl.int64) * ss0 + b1.to(tl.int64) * ss1 + rr[:, None].to(tl.int64) * ssr \
        + rc[None, :].to(tl.int64) * ssc
    dst = dst_ptr + b0.to(tl.int64) * sd0 + b1.to(tl.int64) * sd1 + rr[:, None].to(tl.int64) * sdr \
        + rc[None, :].to(tl.int64) * sdc
    tl.store(dst, tl.load(src, mask=mask, other=0.0), mask=mask)


@triton.jit
def _bmm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, B1,
                sa0, sa1, sam, sak, sb0, sb1, sbk, sbn, sc0, sc1, scm, scn,
                BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    # Two batch dimensions (b0, b1) with arbitrary (possibly zero, i.e. broadcast) strides.
    pid = tl.program_id(0)
    batch = tl.program_id(1)
    b0 = batch // B1
    b1 = batch % B1
    grid_m = tl.cdiv(M, BM)
    grid_n = tl.cdiv(N, BN)
    # Grouped ordering of the output tiles for L2 reuse.
    width = GROUP_M * grid_n
    group = pid // width
    first_m = group * GROUP_M
    size_m = tl.minimum(grid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % width) % size_m
    pid_n = (pid % width) // size_m

    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + b0.to(tl.int64) * sa0 + b1.to(tl.int64) * sa1 + rm[:, None].to(tl.int64) * sam + rk[None, :] * sak
    # B is read as (BN, BK) tiles (K-contiguous when sbk == 1) and transposed in registers for the dot.
    b_ptrs = b_ptr + b0.to(tl.int64) * sb0 + b1.to(tl.int64) * sb1 + rn[:, None].to(tl.int64) * sbn + rk[None, :] * sbk
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (k0 + rk[None, :] < K), other=0.0)
        b = tl.load(b_ptrs, mask=(rn[:, None] < N) & (k0 + rk[None, :] < K), other=0.0)
        acc += tl.dot(a, tl.trans(b), input_precision="tf32")  # TF32 tensor cores (allowed by the contract)
        a_ptrs += BK * sak
        b_ptrs += BK * sbk
    c_ptrs = c_ptr + b0.to(tl.int64) * sc0 + b1.to(tl.int64) * sc1 + rm[:, None].to(tl.int64) * scm + rn[None, :] * scn
    tl.store(c_ptrs, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def _launch(a, b, c):
    """a (B0, B1, M, K), b (B0, B1, K, N), c (B0, B1, M, N); any strides."""
    B0, B1, M, K = a.shape
    N = b.shape[-1]
    if M * N >= 1 << 22:  # large tiles once there are enough of them to fill the GPU
        BM, BN, BK, warps, stages = 128, 256, 32, 8, 3
    elif M * N >= 1 << 18:
        BM, BN, BK, warps, stages = 64, 64, 32, 4, 4
    else:
        BM, BN, BK, warps, stages = 32, 64, 32, 4, 4
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN), B0 * B1)
    _bmm_kernel[grid](a, b, c, M, N, K, B1, *a.stride(), *b.stride(), *c.stride(),
                      BM=BM, BN=BN, BK=BK, GROUP_M=8, num_warps=warps, num_stages=stages)


def _four_d(t):
    """t (..., R, C) as a list of (B0, B1, R, C) views (one per index of the dimensions before the last four)."""
    lead = t.shape[:-4] if t.dim() > 4 else ()
    pad = (1,) * max(0, 4 - t.dim())
    return [t[idx].reshape(*pad, *t[idx].shape) if pad else t[idx] for idx in _indices(lead)]


def _contiguous_copy(src):
    """A contiguous copy of src (..., R, C) made by _copy_kernel (any strides in, row-major out)."""
    dst = torch.empty(src.shape, dtype=src.dtype, device=src.device)
    R, C = src.shape[-2:]
    for s, d in zip(_four_d(src), _four_d(dst)):
        B0, B1 = s.shape[:2]
        grid = (triton.cdiv(R, 64) * triton.cdiv(C, 64), B0 * B1)
        _copy_kernel[grid](s, d, R, C, B1, *s.stride(), *d.stride(), BR=64, BC=64, num_warps=4)
    return dst


def matmul(input: torch.Tensor, other: torch.Tensor) -> torch.Tensor:
    a, b = input, other
    a_vec, b_vec = a.dim() == 1, b.dim() == 1
    if a_vec:
        a = a.unsqueeze(0)
    if b_vec:
        b = b.unsqueeze(-1)
    M, K = a.shape[-2:]
    N = b.shape[-1]
    batch = tuple(torch.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    c = torch.empty(*batch, M, N, dtype=torch.float32, device=a.device)
    if c.numel():
        if K:
            # K-major operands for the tensor cores: each copy is read by many tiles, so it pays once the other
            # operand has at least 64 rows / columns (below that, the product is bound by one read of it).
            if b.stride(-2) != 1 and M >= 64:
                b = _contiguous_copy(b.transpose(-1, -2)).transpose(-1, -2)
            if a.stride(-1) != 1 and N >= 64:
                a = _contiguous_copy(a)
        a_e = a.expand(*batch, M, K)
        b_e = b.expand(*batch, K, N)
        # Keep exactly two batch dimensions per launch; loop over any further leading ones.
        lead = batch[:-2] if len(batch) > 2 else ()
        pad = (1,) * max(0, 2 - len(batch))
        for idx in _indices(lead):
            ai, bi, ci = a_e[idx], b_e[idx], c[idx]
            _launch(ai.reshape(*pad, *ai.shape) if pad else ai,
                    bi.reshape(*pad, *bi.shape) if pad else bi,
                    ci.view(*pad, *ci.shape) if pad else ci)
    if b_vec:
        c = c.squeeze(-1)
    if a_vec:
        c = c.squeeze(-1 if b_vec else -2)
    return c


def _indices(shape):
    if not shape:
        yield ()
        return
    for i in range(shape[0]):
        for rest in _indices(shape[1:]):
            yield (i, *rest)
