import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def _selu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    scale = 1.0507009873554804934193349852946
    alpha = 1.6732632423543772848170429916717
    neg = (scale * alpha) * (tl.exp(tl.minimum(x, 0.0)) - 1.0)
    # x > 0 is false for NaN: NaN·… stays NaN through the second branch; −inf gives −scale·alpha
    tl.store(y_ptr + offs, tl.where(x > 0.0, scale * x, tl.where(x != x, x, neg)), mask=mask)


def selu(input: torch.Tensor) -> torch.Tensor:
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        _selu_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=4)
    return y
