import torch
import triton
import triton.language as tl

# bfloat16 is the upper half of a float32: the kernel reads and writes the raw 16 bits (int16 views of the
# tensors), widens them to float32 exactly, and rounds the float32 result back to nearest-even by integer
# arithmetic. Same result as a bf16 load/convert on the GPU, and it also runs under the CPU interpreter.
BLOCK = 2048


@triton.jit
def _gelu_bf16_kernel(x_ptr, y_ptr, n, TANH: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    bits = tl.load(x_ptr + offs, mask=mask, other=0)
    x = ((bits.to(tl.int32) & 0xFFFF) << 16).to(tl.float32, bitcast=True)
    if TANH:
        inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        t = 2.0 * tl.sigmoid(2.0 * inner) - 1.0  # finite where x³ overflows float32
        y = 0.5 * x * (1.0 + t)
    else:
        y = 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))
    u = y.to(tl.int32, bitcast=True)
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16  # round to nearest even on the dropped 16 bits
    out = tl.where(y != y, 0x7FC0, rounded)  # NaN stays a (quiet) NaN
    tl.store(y_ptr + offs, out.to(tl.int16), mask=mask)


def gelu_bf16(input: torch.Tensor, approximate: str = "none") -> torch.Tensor:
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        _gelu_bf16_kernel[(triton.cdiv(n, BLOCK),)](x.view(torch.int16), y.view(torch.int16), n,
                                                    TANH=approximate == "tanh", BLOCK=BLOCK, num_warps=4)
    return y
