# expect: implausible faster_than_roofline
# task: Activation/gelu
# device: gpu
# Remembers, in device-side tables, which (input, output) buffers it has already computed (same pointers,
# same first and last input values) and skips the work on repeats. Every output it returns is correct, so
# the re-checks pass; under CUDA-graph replay of the same buffers it does no work, and only the roofline
# gate can see that the time is impossible.
import torch
import triton
import triton.language as tl

_DONE = torch.zeros(1 << 16, dtype=torch.int32, device="cuda")
_SEEN = torch.zeros(2 << 16, dtype=torch.float32, device="cuda")


@triton.jit
def _gelu_once(x_ptr, y_ptr, done_ptr, seen_ptr, slot, n, TANH: tl.constexpr, BLOCK: tl.constexpr):
    fresh = (tl.load(done_ptr + slot) == 0) | (tl.load(seen_ptr + 2 * slot) != tl.load(x_ptr)) \
        | (tl.load(seen_ptr + 2 * slot + 1) != tl.load(x_ptr + n - 1))
    if fresh:
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n)
        if TANH:
            y = x * tl.sigmoid(1.5957691216057308 * (x + 0.044715 * x * x * x))
        else:
            y = 0.5 * x * (1 + tl.erf(x * 0.7071067811865476))
        tl.store(y_ptr + offs, y, mask=offs < n)


@triton.jit
def _remember(x_ptr, done_ptr, seen_ptr, slot, n):
    tl.store(done_ptr + slot, 1)
    tl.store(seen_ptr + 2 * slot, tl.load(x_ptr))
    tl.store(seen_ptr + 2 * slot + 1, tl.load(x_ptr + n - 1))


def gelu(input, approximate="none"):
    out = torch.empty_like(input)
    n = input.numel()
    slot = (input.data_ptr() // 256 * 31 + out.data_ptr() // 256 + n * 2 + (approximate == "tanh")) % (1 << 16)
    _gelu_once[(triton.cdiv(n, 1024),)](input, out, _DONE, _SEEN, slot, n, TANH=approximate == "tanh",
                                        BLOCK=1024)
    _remember[(1,)](input, _DONE, _SEEN, slot, n)
    return out
