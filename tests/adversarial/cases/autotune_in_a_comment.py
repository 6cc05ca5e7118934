# expect: incorrect stage1
# task: Activation/gelu
# A wrong kernel whose source mentions autotune, libdevice and inline_asm in comments only: on the CPU it is
# judged (incorrect), never excused as unsupported_on_cpu.
import torch
import triton
import triton.language as tl


@triton.jit
def _gelu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, 0.5 * x * (1 + tl.erf(x * 0.7071067811865476)), mask=offs < n)


# autotune libdevice inline_asm_elementwise
def gelu(input, approximate="none"):
    out = torch.empty_like(input)
    _gelu[(triton.cdiv(input.numel(), 1024),)](input.contiguous(), out, input.numel() // 2, BLOCK=1024)
    return out
