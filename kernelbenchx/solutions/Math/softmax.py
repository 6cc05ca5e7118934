import math

import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_kernel(x_ptr, y_ptr, inner, D: tl.constexpr, BLOCK_D: tl.constexpr, BLOCK_I: tl.constexpr):
    # the tensor is viewed as (outer, D, inner); one program normalizes BLOCK_I slices of length D.
    # D is a constexpr because the Triton interpreter (numpy 2.4) cannot loop to a runtime bound.
    base = tl.program_id(0).to(tl.int64) * D * inner
    cols = tl.program_id(1) * BLOCK_I + tl.arange(0, BLOCK_I)
    col_ok = cols < inner
    dtype = y_ptr.dtype.element_ty
    m = tl.full([BLOCK_I], float("-inf"), dtype)
    s = tl.zeros([BLOCK_I], dtype)
    for d0 in range(0, D, BLOCK_D):  # pass 1: running maximum and rescaled sum (online softmax)
        d = d0 + tl.arange(0, BLOCK_D)
        ok = (d < D)[:, None] & col_ok[None, :]
        offs = base + d[:, None] * inner + cols[None, :]
        x = tl.load(x_ptr + offs, mask=ok, other=float("-inf")).to(dtype)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)  # all -inf so far: contribute nothing
        s = s * tl.exp(m - m_safe) + tl.sum(tl.exp(x - m_safe[None, :]), axis=0)
        m = m_new
    for d0 in range(0, D, BLOCK_D):  # pass 2: normalize (an all -inf slice gives NaN, as in torch)
        d = d0 + tl.arange(0, BLOCK_D)
        ok = (d < D)[:, None] & col_ok[None, :]
        offs = base + d[:, None] * inner + cols[None, :]
        x = tl.load(x_ptr + offs, mask=ok, other=float("-inf")).to(dtype)
        y = tl.exp(x - m[None, :]) / s[None, :]
        tl.store(y_ptr + offs, y, mask=ok)


def softmax(input: torch.Tensor, dim: int, dtype: torch.dtype | None = None) -> torch.Tensor:
    x = input.contiguous()
    y = torch.empty(x.shape, dtype=dtype or x.dtype, device=x.device)
    if x.numel() == 0:
        return y
    dim = dim % max(x.dim(), 1)
    D = x.shape[dim] if x.dim() else 1
    outer = math.prod(x.shape[:dim])
    inner = math.prod(x.shape[dim + 1:])
    BLOCK_I = 1 if inner == 1 else min(triton.next_power_of_2(inner), 64)
    BLOCK_D = max(min(triton.next_power_of_2(D), 4096 // BLOCK_I), 1)
    grid = (outer, triton.cdiv(inner, BLOCK_I))
    _softmax_kernel[grid](x, y, inner, D=D, BLOCK_D=BLOCK_D, BLOCK_I=BLOCK_I)
    return y
