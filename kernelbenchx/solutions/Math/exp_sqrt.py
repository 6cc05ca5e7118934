import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def _exp_sqrt_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    # exp first, as the task says: it overflows to +inf past ~88.72 and underflows to 0, and sqrt keeps both
    tl.store(y_ptr + offs, tl.sqrt_rn(tl.exp(x)), mask=mask)


def exp_sqrt(input: torch.Tensor) -> torch.Tensor:
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        _exp_sqrt_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=4)
    return y
