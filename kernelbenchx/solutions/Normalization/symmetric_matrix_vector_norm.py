import math

import torch
import triton
import triton.language as tl


@triton.jit
def _symv_kernel(a_ptr, x_ptr, part_ptr, n, s_r, s_c, s_x, alpha, beta, p,
                 MODE: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    """Rows [pid·BLOCK_R, …): y_i = alpha·Σ_j A_ij x_j + beta·x_i, then this program's Σ|y_i|^p (max for
    MODE 3) into part[pid]. MODE 1: p = 1, 2: p = 2, 3: p = inf, 0: any other p > 0."""
    pid = tl.program_id(0)
    rows = pid.to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
    r_ok = rows < n
    acc = tl.zeros((BLOCK_R, BLOCK_C), dtype=tl.float32)
    c0 = 0
    while c0 < n:  # not `for`: a runtime-bound `for` breaks the interpreter under numpy >= 2.4
        cols = c0 + tl.arange(0, BLOCK_C)
        c_ok = cols < n
        a = tl.load(a_ptr + rows[:, None] * s_r + cols.to(tl.int64)[None, :] * s_c,
                    mask=r_ok[:, None] & c_ok[None, :], other=0.0)
        xv = tl.load(x_ptr + cols.to(tl.int64) * s_x, mask=c_ok, other=0.0)
        acc += a * xv[None, :]
        c0 += BLOCK_C
    y = alpha * tl.sum(acc, axis=1) + beta * tl.load(x_ptr + rows * s_x, mask=r_ok, other=0.0)
    ay = tl.where(r_ok, tl.abs(y), 0.0)
    if MODE == 1:
        part = tl.sum(ay, axis=0)
    elif MODE == 2:
        part = tl.sum(ay * ay, axis=0)
    elif MODE == 3:
        part = tl.max(ay, axis=0)
    else:
        part = tl.sum(tl.where(ay > 0, tl.exp(p * tl.log(tl.where(ay > 0, ay, 1.0))), 0.0), axis=0)
    tl.store(part_ptr + pid, part)


@triton.jit
def _finish_kernel(part_ptr, out_ptr, n_parts, p, MODE: tl.constexpr, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    i = 0
    while i < n_parts:
        offs = i + tl.arange(0, BLOCK)
        v = tl.load(part_ptr + offs, mask=offs < n_parts, other=0.0)
        if MODE == 3:
            acc = tl.maximum(acc, v)
        else:
            acc += v
        i += BLOCK
    if MODE == 3:
        s = tl.max(acc, axis=0)
    else:
        s = tl.sum(acc, axis=0)
    if MODE == 2:
        s = tl.sqrt(s)
    elif MODE == 0:
        s = tl.where(s > 0, tl.exp(tl.log(tl.where(s > 0, s, 1.0)) / p), 0.0)
    tl.store(out_ptr, s)


def symmetric_matrix_vector_norm(A, x, alpha, beta, p=2.0):
    n = A.shape[0]
    s_r, s_c = A.stride()
    if s_r == 1 and s_c != 1:  # column-major storage: A is symmetric, so read it as its (row-major) transpose
        s_r, s_c = s_c, s_r
    p = float(p)
    mode = 1 if p == 1 else 2 if p == 2 else 3 if p == math.inf else 0
    block_r = 16
    block_c = min(triton.next_power_of_2(max(n, 1)), 256)
    parts = max(1, triton.cdiv(n, block_r))
    part = torch.empty(parts, dtype=torch.float32, device=A.device)
    out = torch.empty((), dtype=torch.float32, device=A.device)
    if n:
        _symv_kernel[(parts,)](A, x, part, n, s_r, s_c, x.stride(0), float(alpha), float(beta), p,
                               MODE=mode, BLOCK_R=block_r, BLOCK_C=block_c)
    _finish_kernel[(1,)](part, out, parts if n else 0, p, MODE=mode, BLOCK=1024)
    return out
