import torch
import triton
import triton.language as tl


@triton.jit
def _signbit_and_kernel(x_ptr, o_ptr, sign_ptr, and_ptr, n, IS_BOOL: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    o = tl.load(o_ptr + offs, mask=mask)
    tl.store(sign_ptr + offs, x.to(tl.int32, bitcast=True) < 0, mask=mask)  # -0.0 and -NaN included
    if IS_BOOL:
        r = (x != 0.0) & (o != 0)  # nonzero → True (NaN too)
    else:
        r = x.to(o.dtype) & o  # truncation toward zero straight to other's dtype, then two's-complement AND
    tl.store(and_ptr + offs, r, mask=mask)


def signbit_bitwise_and(input: torch.Tensor, other: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    shape = torch.broadcast_shapes(input.shape, other.shape)
    x = input.expand(shape).contiguous()
    o = other.expand(shape).contiguous()
    sign = torch.empty(shape, dtype=torch.bool, device=x.device)
    res = torch.empty(shape, dtype=other.dtype, device=x.device)
    n = sign.numel()
    if n == 0:
        return sign, res
    BLOCK = 1024 if n < (1 << 20) else 4096
    _signbit_and_kernel[(triton.cdiv(n, BLOCK),)](x, o, sign, res, n, IS_BOOL=other.dtype == torch.bool,
                                                  BLOCK=BLOCK, num_warps=4 if BLOCK == 1024 else 8)
    return sign, res
