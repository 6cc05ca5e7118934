import torch
import triton
import triton.language as tl


@triton.jit
def relu_sqrt_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(y_ptr.dtype.element_ty)
    r = tl.where(x < 0, tl.zeros_like(x), x)  # keeps NaN, unlike max(x, 0)
    tl.store(y_ptr + offs, tl.sqrt(r), mask=mask)


def fused_relu_sqrt(input: torch.Tensor, inplace: bool = False) -> torch.Tensor:
    is_float = input.dtype in (torch.float32, torch.float64)
    out_dtype = input.dtype if is_float else torch.float32
    x = input.contiguous()
    write_input = inplace and is_float and x.data_ptr() == input.data_ptr()
    y = x if write_input else torch.empty(input.shape, dtype=out_dtype, device=input.device)
    n = x.numel()
    if n:
        BLOCK = 2048
        relu_sqrt_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=8)
    if inplace and is_float and not write_input:  # a non-contiguous input: write back through its own view
        input.copy_(y)
        return input
    return y
