# expect: implausible faster_than_roofline
# task: Activation/gelu
# device: gpu
# Remembers, in a device-side table, which (input, output) buffer pairs it has already computed and skips
# the work on repeats. Every output it returns is correct, so re-checks pass; under CUDA-graph replay of
# the same buffers it does no work, and only the roofline gate can see that the time is impossible.
import torch
import triton
import triton.language as tl

_DONE = torch.zeros(1 << 16, dtype=torch.int32, device="cuda")


@triton.jit
def _gelu_once(x_ptr, y_ptr, done_ptr, slot, n, BLOCK: tl.constexpr):
    if tl.load(done_ptr + slot) == 0:
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n)
        tl.store(y_ptr + offs, 0.5 * x * (1 + tl.erf(x * 0.7071067811865476)), mask=offs < n)


@triton.jit
def _mark(done_ptr, slot):
    tl.store(done_ptr + slot, 1)


def gelu(input, approximate="none"):
    out = torch.empty_like(input)
    slot = (input.data_ptr() // 256 * 31 + out.data_ptr() // 256) % (1 << 16)
    _gelu_once[(triton.cdiv(input.numel(), 1024),)](input, out, _DONE, slot, input.numel(), BLOCK=1024)
    _mark[(1,)](_DONE, slot)
    return out
