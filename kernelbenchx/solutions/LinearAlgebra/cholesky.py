import torch
import triton
import triton.language as tl

# Loops over runtime bounds are `while` loops: `for ... in range(runtime)` breaks the Triton interpreter
# under numpy >= 2.4.


@triton.jit
def _cholesky_kernel(a_ptr, l_ptr, n, s_ab, s_ar, s_ac, s_lb, s_lr, s_lc,
                     BR: tl.constexpr, BC: tl.constexpr):
    # One program per matrix, left-looking: column j of L from column j of A (lower part only) and the
    # columns of L already finished. Global memory is the workspace, so phases are separated by barriers.
    b = tl.program_id(0).to(tl.int64)
    a_ptr += b * s_ab
    l_ptr += b * s_lb
    ar = tl.arange(0, BR)
    ac = tl.arange(0, BC)
    j = 0
    while j < n:
        r0 = 0
        while r0 < j:  # zeros above the diagonal
            rows = r0 + ar
            zero = tl.load(a_ptr + rows * s_ar + j * s_ac, mask=rows < j, other=0.0) * 0.0
            tl.store(l_ptr + rows * s_lr + j * s_lc, zero, mask=rows < j)
            r0 += BR
        r0 = j
        while r0 < n:
            rows = r0 + ar
            rmask = rows < n
            acc = tl.load(a_ptr + rows * s_ar + j * s_ac, mask=rmask, other=0.0)
            c0 = 0
            while c0 < j:
                cols = c0 + ac
                cmask = cols < j
                lj = tl.load(l_ptr + j * s_lr + cols * s_lc, mask=cmask, other=0.0)
                lr = tl.load(l_ptr + rows[:, None] * s_lr + cols[None, :] * s_lc,
                             mask=rmask[:, None] & cmask[None, :], other=0.0)
                acc -= tl.sum(lr * lj[None, :], axis=1)
                c0 += BC
            tl.store(l_ptr + rows * s_lr + j * s_lc, acc, mask=rmask)
            r0 += BR
        tl.debug_barrier()
        # dividing the column, diagonal included, by sqrt(d) leaves sqrt(d) on the diagonal
        root = tl.sqrt(tl.load(l_ptr + j * s_lr + j * s_lc))
        r0 = j
        while r0 < n:
            rows = r0 + ar
            rmask = rows < n
            col = tl.load(l_ptr + rows * s_lr + j * s_lc, mask=rmask, other=0.0)
            tl.store(l_ptr + rows * s_lr + j * s_lc, col / root, mask=rmask)
            r0 += BR
        tl.debug_barrier()
        j += 1


def cholesky(A: torch.Tensor, *, upper: bool = False) -> torch.Tensor:
    n = A.shape[-1]
    a = A.reshape(-1, n, n)
    out = torch.empty(A.shape, dtype=A.dtype, device=A.device)
    o = out.view(-1, n, n)
    # upper=True writes U = Lᵀ: the same kernel through transposed output strides
    s_lr, s_lc = (o.stride(2), o.stride(1)) if upper else (o.stride(1), o.stride(2))
    if a.shape[0] and n:
        _cholesky_kernel[(a.shape[0],)](a, o, n, a.stride(0), a.stride(1), a.stride(2),
                                        o.stride(0), s_lr, s_lc, BR=64, BC=64)
    return out
