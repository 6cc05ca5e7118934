import torch
import triton
import triton.language as tl


@triton.jit
def _rad2deg_sqrt_kernel(x_ptr, deg_ptr, root_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    # both outputs from one read: x·(180/π) in float32 (±inf and NaN kept, overflow to ±inf), correctly
    # rounded sqrt (NaN for x < 0)
    tl.store(deg_ptr + offs, x * 57.29577951308232, mask=mask)
    tl.store(root_ptr + offs, tl.sqrt_rn(x), mask=mask)


def rad2deg_sqrt(input: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    x = input.contiguous()
    deg = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    root = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = x.numel()
    if n == 0:
        return deg, root
    BLOCK = 1024 if n < (1 << 20) else 4096
    _rad2deg_sqrt_kernel[(triton.cdiv(n, BLOCK),)](x, deg, root, n, BLOCK=BLOCK,
                                                   num_warps=4 if BLOCK == 1024 else 8)
    return deg, root
