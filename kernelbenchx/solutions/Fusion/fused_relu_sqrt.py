import torch
import triton
import triton.language as tl


@triton.jit
def _relu_sqrt_kernel(x_ptr, y_ptr, n, INPLACE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    r = tl.where(x < 0, tl.zeros_like(x), x)  # keeps NaN, unlike max(x, 0)
    if INPLACE:
        tl.store(x_ptr + offs, r, mask=mask)
    y = tl.sqrt(r.to(y_ptr.dtype.element_ty))
    tl.store(y_ptr + offs, y, mask=mask)


def fused_relu_sqrt(input: torch.Tensor, inplace: bool = False) -> torch.Tensor:
    x = input if input.is_contiguous() else input.contiguous()
    out_dtype = input.dtype if input.is_floating_point() else torch.float32
    y = torch.empty(x.shape, dtype=out_dtype, device=x.device)
    n = x.numel()
    BLOCK = 1024
    _relu_sqrt_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, INPLACE=inplace, BLOCK=BLOCK)
    if inplace and x is not input:
        input.copy_(x)
    return y
