import torch
import triton
import triton.language as tl


@triton.jit
def _mv_kernel(a_ptr, v_ptr, z_ptr, n, m, stride_an, stride_am, stride_v,
               BLOCK_N: tl.constexpr, BLOCK_M: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    k0 = 0
    while k0 < m:  # while, not range(): the interpreter (numpy >= 2.4) cannot range() to a runtime bound
        cols = k0 + tl.arange(0, BLOCK_M)
        a = tl.load(a_ptr + rows[:, None] * stride_an + cols[None, :] * stride_am,
                    mask=(rows[:, None] < n) & (cols[None, :] < m), other=0.0)
        v = tl.load(v_ptr + cols * stride_v, mask=cols < m, other=0.0)
        acc += tl.sum(a * v[None, :], axis=1)
        k0 += BLOCK_M
    tl.store(z_ptr + rows, acc, mask=rows < n)


@triton.jit
def _log_softmax_dropout_kernel(z_ptr, out_ptr, n, p, scale, seed, RANDOM: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    run_max = tl.full((BLOCK,), float("-inf"), tl.float32)
    s = 0
    while s < n:
        run_max = tl.maximum(run_max, tl.load(z_ptr + s + offs, mask=s + offs < n, other=float("-inf")))
        s += BLOCK
    zmax = tl.max(run_max, axis=0)
    total = tl.zeros((BLOCK,), dtype=tl.float32)
    s = 0
    while s < n:
        z = tl.load(z_ptr + s + offs, mask=s + offs < n, other=float("-inf"))
        total += tl.exp(z - zmax)
        s += BLOCK
    lse = zmax + tl.log(tl.sum(total, axis=0))
    s = 0
    while s < n:
        idx = s + offs
        y = tl.load(z_ptr + idx, mask=idx < n, other=0.0) - lse
        if RANDOM:
            y = tl.where(tl.rand(seed, idx) >= p, y * scale, 0.0)
        else:
            y = y * scale
        tl.store(out_ptr + idx, y, mask=idx < n)
        s += BLOCK


def fused_mv_logsoftmax_dropout(input, vec, p=0.5, training=True, inplace=False, dim=0, seed=0):
    n, m = input.shape
    z = torch.empty(n, dtype=torch.float32, device=input.device)
    out = torch.empty(n, dtype=torch.float32, device=input.device)
    # Memory-bound gemv: for large matrices enough row blocks to fill the GPU, wide column tiles for long rows.
    BLOCK_N = 16 if n * m >= (1 << 22) else 64
    BLOCK_M = 256 if m >= 1024 else 128
    _mv_kernel[(triton.cdiv(n, BLOCK_N),)](input, vec, z, n, m, input.stride(0), input.stride(1), vec.stride(0),
                                          BLOCK_N=BLOCK_N, BLOCK_M=BLOCK_M)
    random = bool(training) and 0.0 < p < 1.0
    scale = 1.0 / (1.0 - p) if random else (0.0 if training and p >= 1.0 else 1.0)
    _log_softmax_dropout_kernel[(1,)](z, out, n, p, scale, seed, RANDOM=random, BLOCK=1024)
    return out
