import torch
import triton
import triton.language as tl

# One pass over both inputs: per row the three sums x1·x2, ‖x1‖², ‖x2‖² give the normalized vectors' sums
# without materializing them; the per-row losses are written ('none') or summed per program, and a second tiny
# kernel adds the partial sums ('sum' / 'mean') in a fixed order.


@triton.jit
def _row_losses(a_ptr, b_ptr, t_ptr, out_ptr, part_ptr, R, D, as0, as1, bs0, bs1, ts, margin,
                REDUCE: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    rok = rows < R
    r64 = rows.to(tl.int64)
    s12 = tl.zeros([BLOCK_R, BLOCK_D], dtype=tl.float32)
    s11 = tl.zeros([BLOCK_R, BLOCK_D], dtype=tl.float32)
    s22 = tl.zeros([BLOCK_R, BLOCK_D], dtype=tl.float32)
    for k in range(0, D, BLOCK_D):
        cols = k + tl.arange(0, BLOCK_D)
        m = rok[:, None] & (cols < D)[None, :]
        c64 = cols.to(tl.int64)
        a = tl.load(a_ptr + r64[:, None] * as0 + c64[None, :] * as1, mask=m, other=0.0)
        b = tl.load(b_ptr + r64[:, None] * bs0 + c64[None, :] * bs1, mask=m, other=0.0)
        s12 += a * b
        s11 += a * a
        s22 += b * b
    s12 = tl.sum(s12, axis=1)
    s11 = tl.sum(s11, axis=1)
    s22 = tl.sum(s22, axis=1)
    n1 = tl.maximum(tl.sqrt(s11), 1e-12)  # F.normalize's clamp
    n2 = tl.maximum(tl.sqrt(s22), 1e-12)
    dot = s12 / (n1 * n2)
    q1 = s11 / (n1 * n1) + 1e-12
    q2 = s22 / (n2 * n2) + 1e-12
    cos = dot / tl.sqrt(q1 * q2)
    t = tl.load(t_ptr + r64 * ts, mask=rok, other=0)
    loss = tl.where(t == 1, 1.0 - cos, tl.where(t == -1, tl.maximum(cos - margin, 0.0), 0.0))
    loss = tl.where(rok, loss, 0.0)
    if REDUCE:
        tl.store(part_ptr + tl.program_id(0), tl.sum(loss, axis=0))
    else:
        tl.store(out_ptr + rows, loss, mask=rok)


@triton.jit
def _sum_parts(part_ptr, out_ptr, P, scale, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, P, BLOCK):
        offs = k + tl.arange(0, BLOCK)
        acc += tl.load(part_ptr + offs, mask=offs < P, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0) * scale)


def fused_cosine_embedding_loss_with_normalization(input1, input2, target, margin=0, reduction="mean"):
    R, D = input1.shape
    BLOCK_D = min(256, max(16, triton.next_power_of_2(D)))
    BLOCK_R = max(1, 4096 // BLOCK_D)
    programs = triton.cdiv(R, BLOCK_R)
    dev = input1.device
    if reduction == "none":
        out = torch.empty((R,), dtype=torch.float32, device=dev)
        if R > 0:
            _row_losses[(programs,)](input1, input2, target, out, out, R, D, input1.stride(0), input1.stride(1),
                                     input2.stride(0), input2.stride(1), target.stride(0), float(margin),
                                     REDUCE=False, BLOCK_R=BLOCK_R, BLOCK_D=BLOCK_D, num_warps=8)
        return out
    out = torch.empty((), dtype=torch.float32, device=dev)
    parts = torch.empty((max(programs, 1),), dtype=torch.float32, device=dev)
    if R > 0:
        _row_losses[(programs,)](input1, input2, target, out, parts, R, D, input1.stride(0), input1.stride(1),
                                 input2.stride(0), input2.stride(1), target.stride(0), float(margin),
                                 REDUCE=True, BLOCK_R=BLOCK_R, BLOCK_D=BLOCK_D, num_warps=8)
    scale = (1.0 / R if R else float("nan")) if reduction == "mean" else 1.0
    _sum_parts[(1,)](parts, out, programs, scale, BLOCK=1024)
    return out
