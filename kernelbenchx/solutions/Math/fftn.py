# N-dimensional FFT as a sequence of 1-D transforms, each a mixed-radix Stockham FFT (self-sorting: every pass
# reads and writes in natural order, no bit reversal). A radix-R pass applies the twiddles and an R-point DFT
# as a complex matrix product on tensor blocks (tl.dot, fp32 IEEE); radices are products of the length's prime
# factors up to 32, and a larger prime factor becomes one pass of its own (chunked over the DFT's inputs and
# outputs), so any length works. Not expected to beat cuFFT (it fuses more passes and uses hand-tuned butterflies): this is a
# correct, general reference.
import math

import torch
import triton
import triton.language as tl

MAX_DIMS = 6
MAX_RADIX = 32


@triton.jit
def _pack_kernel(src_ptr, dst_ptr, n, d1, d2, d3, d4, d5, e0, e1, e2, e3, e4, e5, s0, s1, s2, s3, s4, s5,
                 SRC_COMPLEX: tl.constexpr, BLOCK: tl.constexpr):
    # dst (contiguous complex, logical shape d0..d5) ← src read through strides; indices past the source's
    # extent e_k read as zero (the zero padding of `s`)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)  # int32 index arithmetic, int64 addresses
    mask = offs < n
    i5 = offs % d5
    r = offs // d5
    i4 = r % d4
    r = r // d4
    i3 = r % d3
    r = r // d3
    i2 = r % d2
    r = r // d2
    i1 = r % d1
    i0 = r // d1
    ok = mask & (i0 < e0) & (i1 < e1) & (i2 < e2) & (i3 < e3) & (i4 < e4) & (i5 < e5)
    src = (i0.to(tl.int64) * s0 + i1.to(tl.int64) * s1 + i2.to(tl.int64) * s2 + i3.to(tl.int64) * s3
           + i4.to(tl.int64) * s4 + i5.to(tl.int64) * s5)
    if SRC_COMPLEX:
        re = tl.load(src_ptr + 2 * src, mask=ok, other=0.0)
        im = tl.load(src_ptr + 2 * src + 1, mask=ok, other=0.0)
    else:
        re = tl.load(src_ptr + src, mask=ok, other=0.0)
        im = tl.zeros_like(re)
    dst = offs.to(tl.int64) * 2
    tl.store(dst_ptr + dst, re, mask=mask)
    tl.store(dst_ptr + dst + 1, im, mask=mask)


@triton.jit
def _stockham_kernel(x_ptr, y_ptr, G, L, R, Ns, scale, X_COMPLEX: tl.constexpr, BK: tl.constexpr,
                     BN: tl.constexpr, BJ: tl.constexpr):
    # One radix-R pass over rows of length L (contiguous complex): for column j < L/R of a row,
    #   v[n] = x[j + n·L/R] · e^(−2πi·n·k/(Ns·R)),  k = j mod Ns
    #   y[(j div Ns)·Ns·R + k + m·Ns] = Σ_n e^(−2πi·m·n/R) · v[n]
    # Columns of all rows are flattened (G = rows · L/R) so short rows still fill a block.
    LR = L // R
    NsR = Ns * R
    g = tl.program_id(0) * BJ + tl.arange(0, BJ)  # int32 index arithmetic (G < 2^31), int64 addresses
    g_ok = g < G
    row = g // LR
    j = g - row * LR
    k = j % Ns
    base = row.to(tl.int64) * L
    m = tl.program_id(1) * BK + tl.arange(0, BK)
    m_ok = m < R
    two_pi_nsr = -6.283185307179586 / NsR.to(tl.float32)
    two_pi_r = -6.283185307179586 / R.to(tl.float32)
    acc_re = tl.zeros([BK, BJ], tl.float32)
    acc_im = tl.zeros([BK, BJ], tl.float32)
    for n0 in range(0, R, BN):
        nn = n0 + tl.arange(0, BN)
        n_ok = nn < R
        src = base[None, :] + (j[None, :] + nn[:, None] * LR)
        ld = n_ok[:, None] & g_ok[None, :]
        if X_COMPLEX:
            xr = tl.load(x_ptr + 2 * src, mask=ld, other=0.0)
            xi = tl.load(x_ptr + 2 * src + 1, mask=ld, other=0.0)
        else:
            xr = tl.load(x_ptr + src, mask=ld, other=0.0)
            xi = tl.zeros_like(xr)
        # twiddle: exact integer reduction of n·k modulo Ns·R, angle folded into [−π, π]
        a = (nn[:, None] * k[None, :]) % NsR
        a = tl.where(2 * a > NsR, a - NsR, a)
        th = a.to(tl.float32) * two_pi_nsr
        c = tl.cos(th)
        s = tl.sin(th)
        vr = xr * c - xi * s
        vi = xr * s + xi * c
        # DFT matrix block W[m, n]
        b = (m[:, None] * nn[None, :]) % R
        b = tl.where(2 * b > R, b - R, b)
        ph = b.to(tl.float32) * two_pi_r
        w_ok = m_ok[:, None] & n_ok[None, :]
        wr = tl.where(w_ok, tl.cos(ph), 0.0)
        wi = tl.where(w_ok, tl.sin(ph), 0.0)
        acc_re += tl.dot(wr, vr, input_precision="ieee") - tl.dot(wi, vi, input_precision="ieee")
        acc_im += tl.dot(wr, vi, input_precision="ieee") + tl.dot(wi, vr, input_precision="ieee")
    dst = base[None, :] + ((j // Ns) * NsR + k)[None, :] + m[:, None] * Ns
    st = m_ok[:, None] & g_ok[None, :]
    tl.store(y_ptr + 2 * dst, acc_re * scale, mask=st)
    tl.store(y_ptr + 2 * dst + 1, acc_im * scale, mask=st)


def _radices(L: int) -> list[int]:
    """L's prime factors packed into as few radices ≤ 32 as first-fit-decreasing finds, then spread evenly over
    that many passes (a tl.dot block is at least 16 wide, so radices near 16–32 cost the least per element); a
    prime above 32 is a radix of its own."""
    primes, p, rest = [], 2, L
    while p * p <= rest:
        while rest % p == 0:
            primes.append(p)
            rest //= p
        p += 1
    if rest > 1:
        primes.append(rest)
    bins: list[int] = []
    for f in sorted(primes, reverse=True):  # first fit decreasing: the fewest passes
        for i, b in enumerate(bins):
            if b * f <= MAX_RADIX:
                bins[i] = b * f
                break
        else:
            bins.append(f)
    balanced = [1] * sum(1 for b in bins if b <= MAX_RADIX)
    for f in sorted(primes, reverse=True):  # then as even as that many passes allow (no tiny last radix)
        fits = [i for i, b in enumerate(balanced) if b * f <= MAX_RADIX]
        if fits:
            i = min(fits, key=lambda i: balanced[i])
            balanced[i] *= f
        else:
            balanced.append(f)
    return [b for b in balanced if b > 1]


def _pack(src, src_complex, src_strides, extents, shape, dst):
    n = math.prod(shape)
    pad = MAX_DIMS - len(shape)
    sizes = [1] * pad + list(shape)
    ext = [1] * pad + list(extents)
    strides = [0] * pad + list(src_strides)
    BLOCK = 4096 if dst.is_cuda else 65536
    _pack_kernel[(triton.cdiv(n, BLOCK),)](src, dst, n, *sizes[1:], *ext, *strides, SRC_COMPLEX=src_complex,
                                           BLOCK=BLOCK)


def _fft_rows(src, src_complex, dst, rows, L, scale):
    """1-D DFT of `rows` contiguous rows of length L: src → dst (float32 interleaved views)."""
    radices = _radices(L)
    cur, cur_complex, Ns = src, src_complex, 1
    for i, R in enumerate(radices):
        last = i == len(radices) - 1
        out = dst if last else torch.empty(rows * L * 2, dtype=torch.float32, device=dst.device)
        BK = max(16, min(triton.next_power_of_2(R), 64))
        # [BK, BJ] accumulator tiles of 4096 values; the CPU interpreter pays per operation, not per element
        BJ = max(32, 4096 // BK) if dst.is_cuda else 1024
        G = rows * (L // R)
        grid = (triton.cdiv(G, BJ), triton.cdiv(R, BK))
        _stockham_kernel[grid](cur, out, G, L, R, Ns, scale if last else 1.0, X_COMPLEX=cur_complex, BK=BK, BN=BK,
                               BJ=BJ, num_warps=8)
        cur, cur_complex, Ns = out, True, Ns * R


def fftn(input: torch.Tensor, s=None, dim=None, norm=None) -> torch.Tensor:
    ndim = input.dim()
    if dim is None:
        dims = list(range(ndim)) if s is None else list(range(ndim - len(s), ndim))
    else:
        dims = [d % ndim for d in dim]
    lengths = [input.shape[d] for d in dims] if s is None else [
        input.shape[d] if size == -1 else size for d, size in zip(dims, s)]
    out_shape = list(input.shape)
    for d, size in zip(dims, lengths):
        out_shape[d] = size
    out = torch.empty(out_shape, dtype=torch.complex64, device=input.device)
    numel = out.numel()
    if numel == 0:
        return out
    total = math.prod(lengths)
    scale = 1.0 if norm in (None, "backward") else (1.0 / total if norm == "forward" else 1.0 / math.sqrt(total))
    is_complex = input.is_complex()
    x = input.to(torch.complex64) if is_complex else input.to(torch.float32)
    cur = torch.view_as_real(x) if is_complex else x
    cur_complex, cur_strides = is_complex, list(x.stride())
    extents = [min(x.shape[e], out_shape[e]) for e in range(ndim)]  # zero padding beyond, trimming within
    out_r = torch.view_as_real(out)
    active = [(d, size) for d, size in zip(dims, lengths) if size > 1]  # a length-1 DFT is the identity
    for i, (d, L) in enumerate(active):
        last = i == len(active) - 1
        perm = [e for e in range(ndim) if e != d] + [d]  # rows along d
        shape = [out_shape[e] for e in perm]
        row_major = [math.prod(shape[p + 1:]) for p in range(ndim)]
        if (all(cur_strides[e] == row_major[p] for p, e in enumerate(perm))
                and all(extents[e] == out_shape[e] for e in range(ndim))):
            rows_in, rows_complex = cur, cur_complex  # already rows along d: the first pass reads it in place
        else:
            rows_in, rows_complex = torch.empty(numel * 2, dtype=torch.float32, device=out.device), True
            _pack(cur, cur_complex, [cur_strides[e] for e in perm], [extents[e] for e in perm], shape, rows_in)
        natural = perm == list(range(ndim))
        dst = out_r if (last and natural) else torch.empty(numel * 2, dtype=torch.float32, device=out.device)
        _fft_rows(rows_in, rows_complex, dst, numel // L, L, scale if last else 1.0)
        cur, cur_complex, extents = dst, True, list(out_shape)
        cur_strides = [0] * ndim  # the result is row-major in perm order
        for p, e in enumerate(perm):
            cur_strides[e] = row_major[p]
    if cur is not out_r:  # back to the output's order (or the plain copy when every length is 1)
        _pack(cur, cur_complex, cur_strides, extents, out_shape, out_r)
    return out
