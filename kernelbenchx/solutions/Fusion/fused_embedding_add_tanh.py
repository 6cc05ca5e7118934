import torch
import triton
import triton.language as tl


@triton.jit
def _mark_rows(idx_ptr, flag_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < n
    row = tl.load(idx_ptr + offs, mask=ok, other=0).to(tl.int64)
    tl.store(flag_ptr + row, tl.full([BLOCK], 1, tl.int32), mask=ok)


@triton.jit
def _renorm_rows(w_ptr, flag_ptr, D, ws0, ws1, max_norm, norm_type,
                 P: tl.constexpr, BLOCK_D: tl.constexpr):
    """Row v of weight, if referenced: scale it in place by max_norm / (norm + 1e-7) when its norm exceeds
    max_norm (each referenced row once, as torch.embedding_renorm_)."""
    v = tl.program_id(0).to(tl.int64)
    used = tl.load(flag_ptr + v) != 0  # unreferenced rows are neither read nor written
    acc = tl.zeros([BLOCK_D], dtype=tl.float32)
    for k in range(0, D, BLOCK_D):
        cols = k + tl.arange(0, BLOCK_D)
        w = tl.load(w_ptr + v * ws0 + cols * ws1, mask=(cols < D) & used, other=0.0)
        a = tl.abs(w)
        if P == 1:
            acc += a
        elif P == 2:
            acc += a * a
        else:
            acc += tl.where(a > 0, tl.exp(norm_type * tl.log(a)), 0.0)
    total = tl.sum(acc, axis=0)
    if P == 1:
        norm = total
    elif P == 2:
        norm = tl.sqrt(total)
    else:
        norm = tl.exp(tl.log(total) / norm_type)
    rescale = used & (norm > max_norm)
    scale = max_norm / (norm + 1e-7)
    for k in range(0, D, BLOCK_D):
        cols = k + tl.arange(0, BLOCK_D)
        ptrs = w_ptr + v * ws0 + cols * ws1
        w = tl.load(ptrs, mask=(cols < D) & rescale, other=0.0)
        tl.store(ptrs, w * scale, mask=(cols < D) & rescale)


@triton.jit
def _tanh(x):
    # tanh(|x|) = 1 − 2/(e^{2|x|} + 1): saturates cleanly to 1 (exp overflows to inf), NaN propagates.
    t = 1.0 - 2.0 / (tl.exp(2.0 * tl.abs(x)) + 1.0)
    return tl.where(x < 0, -t, t)


@triton.jit
def _embed_add_tanh(idx_ptr, w_ptr, o_ptr, out_ptr, total, D, ws0, ws1, os0, os1,
                    BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < total
    r = offs // D
    c = offs % D
    row = tl.load(idx_ptr + r, mask=ok, other=0).to(tl.int64)
    e = tl.load(w_ptr + row * ws0 + c * ws1, mask=ok, other=0.0)
    o = tl.load(o_ptr + r * os0 + c * os1, mask=ok, other=0.0)
    tl.store(out_ptr + offs, _tanh(e + o), mask=ok)


def fused_embedding_add_tanh(input_indices, weight, other, *, padding_idx=None, max_norm=None, norm_type=2.0):
    V, D = weight.shape
    e_shape = list(input_indices.shape) + [D]
    out_shape = list(torch.broadcast_shapes(e_shape, other.shape))
    if out_shape != e_shape:
        raise NotImplementedError("other may not enlarge the embedding's shape")
    out = torch.empty(out_shape, dtype=torch.float32, device=weight.device)
    rows = input_indices.numel()
    idx = input_indices.reshape(rows).contiguous()
    if max_norm is not None and rows > 0:
        flags = torch.zeros((V,), dtype=torch.int32, device=weight.device)
        _mark_rows[(triton.cdiv(rows, 1024),)](idx, flags, rows, BLOCK=1024)
        p = 1 if norm_type == 1 else (2 if norm_type == 2 else 0)
        BLOCK_D = min(1024, max(16, triton.next_power_of_2(D)))
        _renorm_rows[(V,)](weight, flags, D, weight.stride(0), weight.stride(1), float(max_norm), float(norm_type),
                           P=p, BLOCK_D=BLOCK_D)
    total = rows * D
    o2 = other.broadcast_to(e_shape).reshape(rows, D)
    BLOCK = 1024
    # Launched even when there is nothing to look up (one fully masked program): the call still has a
    # non-empty output, the weight, whose values it must leave as they are.
    _embed_add_tanh[(max(1, triton.cdiv(total, BLOCK)),)](idx, weight, o2, out, total, D, weight.stride(0),
                                                  weight.stride(1), o2.stride(0), o2.stride(1), BLOCK=BLOCK,
                                                  num_warps=4)
    return out
