# expect: incorrect perf_recheck
# task: Activation/gelu
# device: gpu
# Honest at test sizes, skips the work at perf sizes: only the re-check of timed outputs can see it.
import torch
import triton
import triton.language as tl


@triton.jit
def _gelu(x_ptr, y_ptr, n, TANH: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    if TANH:
        y = x * tl.sigmoid(1.5957691216057308 * (x + 0.044715 * x * x * x))
    else:
        y = 0.5 * x * (1 + tl.erf(x * 0.7071067811865476))
    tl.store(y_ptr + offs, y, mask=offs < n)


def gelu(input, approximate="none"):
    input = input.contiguous()
    out = torch.empty_like(input)
    n = input.numel() if input.numel() < (1 << 20) else 1024
    _gelu[(triton.cdiv(n, 1024),)](input, out, n, TANH=approximate == "tanh", BLOCK=1024)
    return out
