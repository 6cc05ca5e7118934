import torch
import triton
import triton.language as tl


@triton.jit
def _floor_kernel(x_ptr, y_ptr, n, IS_FLOAT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if IS_FLOAT:
        x = tl.floor(x)  # exact; keeps -0.0, ±inf and NaN
    tl.store(y_ptr + offs, x, mask=mask)


def floor(input: torch.Tensor) -> torch.Tensor:
    x = input.contiguous()
    y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = x.numel()
    if n == 0:
        return y
    BLOCK = 1024 if n < (1 << 20) else 4096
    _floor_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, IS_FLOAT=x.is_floating_point(), BLOCK=BLOCK,
                                           num_warps=4 if BLOCK == 1024 else 8)
    return y
