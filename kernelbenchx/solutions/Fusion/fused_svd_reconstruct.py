import torch
import triton
import triton.language as tl

# One-sided (Hestenes) Jacobi SVD. With A (m × n), m ≥ n (a wide A is handled through its transpose), the
# columns of W = A·V are orthogonalized by plane rotations while V accumulates them. Row p of the work buffer
# Z = [W | V] (n' × (m + n), n' = n rounded up to even, a zero row added for odd n) holds a column of W followed
# by the same column of V, so one rotation of two rows updates both. A sweep is n' − 1 rounds of the circle
# (round-robin) tournament: slot k of the top half meets slot k of the bottom half, and the rotated rows are
# written to the slots they occupy in the next round (which column sits in which slot does not matter: the
# results depend only on the set of columns). For small n one program runs every sweep (rounds separated by
# barriers); for large n each round is a launch with a few pairs per program, reading one buffer and writing
# the other. A pair is rotated while its cosine exceeds √m·ε (as LAPACK sgesvj); sweeps repeat until the
# largest cosine met in a sweep is below 1e-5 (the sweep after that would change S by far less than the
# tolerance; quadratic convergence), at most 40. The convergence test stays on the device (nothing is read back
# to the host, which also lets a call be captured in a CUDA graph): for large n all 40 sweeps are launched and
# the rounds after convergence return at once. S = the norms of W's columns, sorted descending; the reconstruction is
# Wᵀ·V (= U·diag(S)·Vᵀ in any column order). A correct, general reference, not faster than cuSOLVER's gesvd:
# Jacobi needs several sweeps of dependent rounds.

STOP_COS = 1e-5
MAX_SWEEPS = 40


@triton.jit
def init_kernel(a_ptr, z_ptr, m, n, L, sa_r, sa_c, BLOCK: tl.constexpr):
    """Z[j] = (A[:, j], e_j) for j < n; the padding row (odd n) is zero."""
    j = tl.program_id(0)
    row = z_ptr + j.to(tl.int64) * L
    for i0 in range(0, L, BLOCK):
        idx = i0 + tl.arange(0, BLOCK)
        a = tl.load(a_ptr + idx.to(tl.int64) * sa_r + j.to(tl.int64) * sa_c, mask=(idx < m) & (j < n), other=0.0)
        e = tl.where(idx - m == j, 1.0, 0.0)
        tl.store(row + idx, tl.where(idx < m, a, e), mask=idx < L)


@triton.jit
def _rotation(alpha, beta, gamma, live, tol):
    """(c, s, turn, cos) of the Jacobi rotation that makes a pair orthogonal; identity where not turned."""
    root = tl.sqrt(alpha * beta)
    turn = live & (tl.abs(gamma) > tol * root)
    cos = tl.where(turn, tl.abs(gamma) / tl.where(turn, root, 1.0), 0.0)
    zeta = (beta - alpha) / (2.0 * tl.where(turn, gamma, 1.0))
    t = tl.where(zeta >= 0, 1.0, -1.0) / (tl.abs(zeta) + tl.sqrt(1.0 + zeta * zeta))
    c = tl.where(turn, 1.0 / tl.sqrt(1.0 + t * t), 1.0)
    s = tl.where(turn, t, 0.0) * c
    return c, s, cos


@triton.jit
def _next_slots(k, half):
    """Circle method: top slot 0 stays; top k → top k + 1, the last top → the last bottom; bottom 0 → top 1,
    bottom k → bottom k − 1."""
    dx = tl.where(k == 0, 0, tl.where(k < half - 1, k + 1, 2 * half - 1))
    dy = tl.where(k == 0, 1, half + k - 1)
    return dx, dy


@triton.jit
def sweep_kernel(z_ptr, m, L, half, tol, stop, max_sweeps, BLOCK_P: tl.constexpr, BLOCK_L: tl.constexpr):
    """Every sweep in one program (small n: every pair and a whole row fit one block), until the largest cosine
    met in a sweep is below `stop` or max_sweeps have run: the convergence test never leaves the device."""
    k = tl.arange(0, BLOCK_P)
    cols = tl.arange(0, BLOCK_L)
    k_ok = k < half
    ok = k_ok[:, None] & (cols < L)[None, :]
    in_w = (cols < m)[None, :]
    dx, dy = _next_slots(k, half)
    row_x = z_ptr + k.to(tl.int64)[:, None] * L + cols[None, :]
    row_y = z_ptr + (half + k).to(tl.int64)[:, None] * L + cols[None, :]
    out_x = z_ptr + dx.to(tl.int64)[:, None] * L + cols[None, :]
    out_y = z_ptr + dy.to(tl.int64)[:, None] * L + cols[None, :]
    sweep = tl.zeros((), tl.int32)
    last = tl.full((), 1.0, tl.float32)
    while (sweep < max_sweeps) & (last >= stop):
        worst = tl.zeros((BLOCK_P,), dtype=tl.float32)
        for rnd in range(0, 2 * half - 1):
            x = tl.load(row_x, mask=ok, other=0.0)
            y = tl.load(row_y, mask=ok, other=0.0)
            xw = tl.where(in_w, x, 0.0)
            yw = tl.where(in_w, y, 0.0)
            c, s, cos = _rotation(tl.sum(xw * xw, axis=1), tl.sum(yw * yw, axis=1), tl.sum(xw * yw, axis=1),
                                  k_ok, tol)
            worst = tl.maximum(worst, cos)
            c = c[:, None]
            s = s[:, None]
            tl.debug_barrier()  # every slot read before any is overwritten
            tl.store(out_x, c * x - s * y, mask=ok)
            tl.store(out_y, s * x + c * y, mask=ok)
            tl.debug_barrier()
        last = tl.max(worst, axis=0)
        sweep += 1


@triton.jit
def round_kernel(src_ptr, dst_ptr, state_ptr, m, L, half, tol, BLOCK_P: tl.constexpr, BLOCK_L: tl.constexpr):
    """One round (large n): BLOCK_P pairs per program, rows in chunks, from src into their next slots in dst.
    Once the sweeps have converged (state[1] ≠ 0) it does nothing: no pair is live, no row is read."""
    k = tl.program_id(0) * BLOCK_P + tl.arange(0, BLOCK_P)
    k_ok = (k < half) & (tl.load(state_ptr + 1) == 0)
    dx, dy = _next_slots(k, half)
    px = src_ptr + k.to(tl.int64)[:, None] * L
    py = src_ptr + (half + k).to(tl.int64)[:, None] * L
    alpha = tl.zeros((BLOCK_P,), dtype=tl.float32)
    beta = tl.zeros((BLOCK_P,), dtype=tl.float32)
    gamma = tl.zeros((BLOCK_P,), dtype=tl.float32)
    for i0 in range(0, m, BLOCK_L):
        idx = i0 + tl.arange(0, BLOCK_L)
        ok = k_ok[:, None] & (idx < m)[None, :]
        x = tl.load(px + idx[None, :], mask=ok, other=0.0)
        y = tl.load(py + idx[None, :], mask=ok, other=0.0)
        alpha += tl.sum(x * x, axis=1)
        beta += tl.sum(y * y, axis=1)
        gamma += tl.sum(x * y, axis=1)
    c, s, cos = _rotation(alpha, beta, gamma, k_ok, tol)
    c = c[:, None]
    s = s[:, None]
    qx = dst_ptr + dx.to(tl.int64)[:, None] * L
    qy = dst_ptr + dy.to(tl.int64)[:, None] * L
    for i0 in range(0, L, BLOCK_L):
        idx = i0 + tl.arange(0, BLOCK_L)
        ok = k_ok[:, None] & (idx < L)[None, :]
        x = tl.load(px + idx[None, :], mask=ok, other=0.0)
        y = tl.load(py + idx[None, :], mask=ok, other=0.0)
        tl.store(qx + idx[None, :], c * x - s * y, mask=ok)
        tl.store(qy + idx[None, :], s * x + c * y, mask=ok)
    tl.atomic_max(state_ptr + 2, tl.max(cos, axis=0).to(tl.int32, bitcast=True))  # cos ≥ 0: int order = float order


@triton.jit
def end_sweep_kernel(state_ptr, stop):
    """After a sweep's rounds: state = (sweeps run, converged, largest cosine's bits). A sweep that ran counts
    (each flips the buffer holding the result: it has an odd number of rounds) and sets converged when its
    largest cosine is below `stop`; the cosine is reset for the next sweep."""
    done = tl.load(state_ptr + 1)
    worst = tl.load(state_ptr + 2).to(tl.float32, bitcast=True)
    tl.store(state_ptr, tl.load(state_ptr) + tl.where(done == 0, 1, 0))
    tl.store(state_ptr + 1, tl.where((done != 0) | (worst < stop), 1, 0))
    tl.store(state_ptr + 2, 0)


@triton.jit
def norms_sort_kernel(z_ptr, state_ptr, s_ptr, m, n, n_pad, L, BLOCK_N: tl.constexpr, BLOCK_M: tl.constexpr):
    """S = the n largest column norms of W, descending (the padding row's norm, 0, sorts last)."""
    z_ptr += (tl.load(state_ptr) % 2).to(tl.int64) * n_pad * L  # the buffer the last sweep wrote
    rows = tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for i0 in range(0, m, BLOCK_M):
        idx = i0 + tl.arange(0, BLOCK_M)
        x = tl.load(z_ptr + rows.to(tl.int64)[:, None] * L + idx[None, :],
                    mask=(rows < n_pad)[:, None] & (idx < m)[None, :], other=0.0)
        acc += tl.sum(x * x, axis=1)
    norms = tl.where(rows < n_pad, tl.sqrt(acc), -1.0)
    tl.store(s_ptr + rows, tl.sort(norms, 0, descending=True), mask=rows < n)


@triton.jit
def reconstruct_kernel(z_ptr, state_ptr, out_ptr, m, n, n_pad, L, so_r, so_c, BLOCK_I: tl.constexpr,
                       BLOCK_J: tl.constexpr, BLOCK_K: tl.constexpr):
    """out[i, j] = Σ_p W[p, i]·V[p, j] (W = Z[:, :m], V = Z[:, m:]), written through out's strides."""
    z_ptr += (tl.load(state_ptr) % 2).to(tl.int64) * n_pad * L
    ri = tl.program_id(0) * BLOCK_I + tl.arange(0, BLOCK_I)
    rj = tl.program_id(1) * BLOCK_J + tl.arange(0, BLOCK_J)
    acc = tl.zeros((BLOCK_I, BLOCK_J), dtype=tl.float32)
    for p0 in range(0, n_pad, BLOCK_K):
        ps = p0 + tl.arange(0, BLOCK_K)
        row = z_ptr + ps.to(tl.int64) * L
        wt = tl.load(row[None, :] + ri[:, None], mask=(ps < n_pad)[None, :] & (ri < m)[:, None], other=0.0)
        v = tl.load(row[:, None] + m + rj[None, :], mask=(ps < n_pad)[:, None] & (rj < n)[None, :], other=0.0)
        acc = tl.dot(wt, v, acc, input_precision="ieee")
    tl.store(out_ptr + ri.to(tl.int64)[:, None] * so_r + rj.to(tl.int64)[None, :] * so_c, acc,
             mask=(ri < m)[:, None] & (rj < n)[None, :])


def _one_program(L, half, cpu):
    """Whether one program runs every sweep: when the pairs × a row fit a block (always under the CPU
    interpreter, where each operation costs the same whatever its size)."""
    return cpu or triton.next_power_of_2(half) * triton.next_power_of_2(L) <= 16384


def _jacobi(z, state, m, L, half, cpu):
    """Sweeps until the largest cosine met in one is below STOP_COS (at most MAX_SWEEPS), without reading
    anything back to the host: the test runs on the device. z is (1, n', L) for one program, else (2, n', L)
    (the rounds alternate between the two buffers); state[0] (sweeps run) says which one holds the result."""
    tol = 2.0 ** -23 * max(m, 16) ** 0.5  # rotate while |cos| of a column pair exceeds √m·ε (as LAPACK sgesvj)
    if _one_program(L, half, cpu):
        BLOCK_P, BLOCK_L = triton.next_power_of_2(half), triton.next_power_of_2(L)
        sweep_kernel[(1,)](z, m, L, half, tol, STOP_COS, MAX_SWEEPS, BLOCK_P=BLOCK_P, BLOCK_L=BLOCK_L,
                           num_warps=8 if BLOCK_P * BLOCK_L >= 2048 else 4)
        return
    BLOCK_P = min(8, triton.next_power_of_2(triton.cdiv(half, 128)))
    BLOCK_L = max(16, min(1024, 4096 // BLOCK_P))
    # every sweep is launched; once converged its rounds return at once. A sweep has an odd number of rounds,
    # so sweep s reads buffer s % 2 in its first round (as long as every earlier sweep ran).
    src, dst = z[0], z[1]
    for _ in range(MAX_SWEEPS):
        for _ in range(2 * half - 1):
            round_kernel[(triton.cdiv(half, BLOCK_P),)](src, dst, state, m, L, half, tol, BLOCK_P=BLOCK_P,
                                                        BLOCK_L=BLOCK_L, num_warps=8)
            src, dst = dst, src
        end_sweep_kernel[(1,)](state, STOP_COS)


def fused_svd_reconstruct(A):
    M, N = A.shape
    dev = A.device
    out = torch.empty((M, N), dtype=A.dtype, device=dev)
    k = min(M, N)
    S = torch.empty(k, dtype=A.dtype, device=dev)
    if k == 0:
        return out, S
    wide = M < N
    a = A.t() if wide else A  # work on the tall orientation: m ≥ n
    m, n = a.shape
    target = out.t() if wide else out
    L = m + n
    n_pad = n + (n % 2)
    cpu = dev.type == "cpu"
    z = torch.empty((1 if _one_program(L, n_pad // 2, cpu) else 2, n_pad, L), dtype=torch.float32, device=dev)
    state = torch.zeros(3, dtype=torch.int32, device=dev)  # sweeps run, converged, largest cosine (bits)
    init_kernel[(n_pad,)](a, z, m, n, L, *a.stride(), BLOCK=256)
    if n > 1:
        _jacobi(z, state, m, L, n_pad // 2, cpu)
    BN = max(16, triton.next_power_of_2(n_pad))
    norms_sort_kernel[(1,)](z, state, S, m, n, n_pad, L, BLOCK_N=BN, BLOCK_M=max(16, min(256, 8192 // BN)))
    BI, BJ, BK = 32, 32, 16
    reconstruct_kernel[(triton.cdiv(m, BI), triton.cdiv(n, BJ))](z, state, target, m, n, n_pad, L,
                                                                *target.stride(),
                                                                BLOCK_I=BI, BLOCK_J=BJ, BLOCK_K=BK)
    return out, S
