# expect: incorrect stage1
# task: Activation/relu
# static: off
# Indexes its input as if it were contiguous and row-major: right on every contiguous case, wrong on the
# transposed, sliced and strided views the cases pass. Rejected on the CPU path and on the GPU only because
# those views reach the kernel as views (a harness that copied inputs with .to(device) would pass it).
import torch
import triton
import triton.language as tl


@triton.jit
def _relu_flat(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=mask)


def relu(input):
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    n = input.numel()
    if n:
        _relu_flat[(triton.cdiv(n, 1024),)](input, out, n, BLOCK=1024)
    return out
