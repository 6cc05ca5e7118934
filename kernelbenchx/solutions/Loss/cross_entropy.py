import torch
import triton
import triton.language as tl


@triton.jit
def _ce_kernel(x_ptr, t_ptr, w_ptr, out_ptr, part_ptr, P, C, S, ignore_index,
               HAS_W: tl.constexpr, NONE: tl.constexpr, BLOCK_P: tl.constexpr, BLOCK_C: tl.constexpr):
    """Positions p = n·S + s of logits viewed as (N, C, S), BLOCK_P per program: an online logsumexp over the
    classes in BLOCK_C chunks, then ℓ = w[y]·((m − x_y) + log s) (0 where y == ignore_index). NONE: writes ℓ;
    else writes this program's (Σℓ, Σw[y]) to part[2·pid], part[2·pid + 1]."""
    pid = tl.program_id(0)
    p = pid.to(tl.int64) * BLOCK_P + tl.arange(0, BLOCK_P)
    ok = p < P
    n = p // S
    s_pos = p % S
    row = n * C * S + s_pos  # address of class 0 at each position
    m = tl.full((BLOCK_P,), float("-inf"), tl.float32)
    acc = tl.zeros((BLOCK_P,), dtype=tl.float32)
    c0 = 0
    while c0 < C:  # not `for`: a runtime-bound `for` breaks the interpreter under numpy >= 2.4
        cls = c0 + tl.arange(0, BLOCK_C)
        mask = ok[:, None] & (cls < C)[None, :]
        v = tl.load(x_ptr + row[:, None] + cls.to(tl.int64)[None, :] * S, mask=mask, other=float("-inf"))
        m_new = tl.maximum(m, tl.max(v, axis=1))
        safe = tl.where(m_new == float("-inf"), 0.0, m_new)
        acc = acc * tl.exp(m - safe) + tl.sum(tl.exp(v - safe[:, None]), axis=1)
        m = m_new
        c0 += BLOCK_C
    t = tl.load(t_ptr + p, mask=ok, other=ignore_index)
    keep = ok & (t != ignore_index)
    cls_t = tl.where(keep, t, 0)
    x_y = tl.load(x_ptr + row + cls_t * S, mask=keep, other=0.0)
    if HAS_W:
        w = tl.load(w_ptr + cls_t, mask=keep, other=0.0)
    else:
        w = tl.where(keep, 1.0, 0.0)
    loss = tl.where(keep, w * ((m - x_y) + tl.log(acc)), 0.0)
    if NONE:
        tl.store(out_ptr + p, loss, mask=ok)
    else:
        tl.store(part_ptr + 2 * pid, tl.sum(loss, axis=0))
        tl.store(part_ptr + 2 * pid + 1, tl.sum(w, axis=0))


@triton.jit
def _finish_kernel(part_ptr, out_ptr, n_parts, MEAN: tl.constexpr, BLOCK: tl.constexpr):
    loss = tl.zeros((BLOCK,), dtype=tl.float32)
    wsum = tl.zeros((BLOCK,), dtype=tl.float32)
    i = 0
    while i < n_parts:
        offs = i + tl.arange(0, BLOCK)
        msk = offs < n_parts
        loss += tl.load(part_ptr + 2 * offs, mask=msk, other=0.0)
        wsum += tl.load(part_ptr + 2 * offs + 1, mask=msk, other=0.0)
        i += BLOCK
    total = tl.sum(loss, axis=0)
    if MEAN:
        total = total / tl.sum(wsum, axis=0)  # every position ignored: 0/0 = NaN, as torch
    tl.store(out_ptr, total)


def cross_entropy(input: torch.Tensor, target: torch.Tensor, weight=None, ignore_index: int = -100,
                  reduction: str = "mean") -> torch.Tensor:
    x = input.contiguous()
    t = target.contiguous()
    if x.dim() == 1:  # one sample: (C,) with a 0-d target
        C, S = x.shape[0], 1
    else:
        C = x.shape[1]
        S = x.numel() // max(x.shape[0] * C, 1)
    P = t.numel()
    w = weight.contiguous() if weight is not None else x
    if S == 1:  # classes contiguous: a few rows per program, wide class tiles
        block_c = min(triton.next_power_of_2(max(C, 1)), 2048)
        block_p = max(1, min(16, 4096 // block_c))
    else:  # classes strided by S: many positions per program (contiguous along s)
        block_c = min(triton.next_power_of_2(max(C, 1)), 16)
        block_p = 128
    programs = max(1, triton.cdiv(P, block_p))
    if reduction == "none":
        out = torch.empty(target.shape, dtype=input.dtype, device=x.device)
        if P:
            _ce_kernel[(programs,)](x, t, w, out, out, P, C, S, ignore_index, HAS_W=weight is not None,
                                    NONE=True, BLOCK_P=block_p, BLOCK_C=block_c)
        return out
    part = torch.empty(2 * programs, dtype=torch.float32, device=x.device)
    _ce_kernel[(programs,)](x, t, w, part, part, P, C, S, ignore_index, HAS_W=weight is not None,
                            NONE=False, BLOCK_P=block_p, BLOCK_C=block_c)
    out = torch.empty((), dtype=input.dtype, device=x.device)
    _finish_kernel[(1,)](part, out, programs, MEAN=reduction == "mean", BLOCK=1024)
    return out
