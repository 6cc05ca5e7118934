import itertools

import torch
import triton
import triton.language as tl

# A tiled copy of the permuted view into a fresh contiguous tensor. Each program moves a BB×BA tile spanned by
# the output's last dimension (a, contiguous in the output) and the output dimension that is contiguous in the
# input (b), so both the loads and the stores are coalesced (Triton moves the tile through shared memory);
# the remaining dimensions (at most three) are flattened into the grid.


@triton.jit
def _permute_kernel(x_ptr, out_ptr, A, B, O1, O2, sxa, sxb, sx0, sx1, sx2, soa, sob, so0, so1, so2,
                    n_ta, n_tb, BA: tl.constexpr, BB: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    ta = pid % n_ta
    r = pid // n_ta
    tb = r % n_tb
    r = r // n_tb
    o2 = r % O2
    r = r // O2
    o1 = r % O1
    o0 = r // O1
    ia = ta * BA + tl.arange(0, BA)
    ib = tb * BB + tl.arange(0, BB)
    mask = (ib[:, None] < B) & (ia[None, :] < A)
    src = x_ptr + o0 * sx0 + o1 * sx1 + o2 * sx2 + ib[:, None] * sxb + ia[None, :] * sxa
    dst = out_ptr + o0 * so0 + o1 * so1 + o2 * so2 + ib[:, None] * sob + ia[None, :] * soa
    tl.store(dst, tl.load(src, mask=mask), mask=mask)


def _copy(view, out):
    """out (contiguous) = view, both of the same shape, rank ≤ 5."""
    r = view.dim()
    a = r - 1
    others = [d for d in range(r) if d != a]
    # b: the output dimension whose input stride is smallest (the input's contiguous one, when there is one)
    b = min(others, key=lambda d: (view.shape[d] <= 1, abs(view.stride(d)))) if others else None
    rest = [d for d in others if d != b]
    A = view.shape[a]
    B = view.shape[b] if b is not None else 1
    sxb = view.stride(b) if b is not None else 0
    sob = out.stride(b) if b is not None else 0
    sizes = [view.shape[d] for d in rest]
    sx = [view.stride(d) for d in rest]
    so = [out.stride(d) for d in rest]
    pad = 3 - len(rest)
    sizes, sx, so = [1] * pad + sizes, [0] * pad + sx, [0] * pad + so
    if abs(view.stride(a)) == 1 or B == 1:  # rows already contiguous on both sides: wide row tiles
        BA, BB = min(1024, triton.next_power_of_2(A)), 1 if B == 1 else min(4, triton.next_power_of_2(B))
    else:
        BA, BB = min(64, triton.next_power_of_2(A)), min(64, triton.next_power_of_2(B))
    n_ta, n_tb = triton.cdiv(A, BA), triton.cdiv(B, BB)
    grid = (n_ta * n_tb * sizes[0] * sizes[1] * sizes[2],)
    _permute_kernel[grid](view, out, A, B, sizes[1], sizes[2], view.stride(a), sxb, *sx, out.stride(a), sob, *so,
                          n_ta, n_tb, BA=BA, BB=BB, num_warps=4)


def permute_copy(input, dims):
    view = input.permute(*dims) if input.dim() else input
    out = torch.empty(view.shape, dtype=input.dtype, device=input.device)
    if out.numel() == 0:
        return out
    if view.dim() == 0:
        _copy(view.reshape(1), out.view(1))
        return out
    if view.dim() <= 5:
        _copy(view, out)
        return out
    lead = view.dim() - 5  # rank > 5: one launch per leading sub-tensor
    for pos in itertools.product(*(range(s) for s in view.shape[:lead])):
        _copy(view[pos], out[pos])
    return out
