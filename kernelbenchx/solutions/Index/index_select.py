import torch
import triton
import triton.language as tl


@triton.jit
def _index_select_kernel(x_ptr, idx_ptr, out_ptr, total, n_idx, inner, dim_size, BLOCK: tl.constexpr):
    # out viewed as (outer, n_idx, inner); x viewed as (outer, dim_size, inner), both contiguous.
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    i = offs % inner
    rest = offs // inner
    k = rest % n_idx
    o = rest // n_idx
    src_row = tl.load(idx_ptr + k, mask=mask, other=0).to(tl.int64)
    vals = tl.load(x_ptr + (o * dim_size + src_row) * inner + i, mask=mask)
    tl.store(out_ptr + offs, vals, mask=mask)


def index_select(input: torch.Tensor, dim: int, index: torch.Tensor) -> torch.Tensor:
    x = input.contiguous()
    dim = dim % max(x.dim(), 1)
    shape = list(x.shape)
    n_idx = index.numel()
    out_shape = shape[:dim] + [n_idx] + shape[dim + 1:] if x.dim() else [n_idx]
    out = torch.empty(out_shape, dtype=x.dtype, device=x.device)
    total = out.numel()
    if total == 0:
        return out
    inner = 1
    for s in shape[dim + 1:]:
        inner *= s
    dim_size = shape[dim] if x.dim() else 1
    BLOCK = 1024
    _index_select_kernel[(triton.cdiv(total, BLOCK),)](x, index.contiguous(), out, total, n_idx, inner, dim_size,
                                                       BLOCK=BLOCK)
    return out
