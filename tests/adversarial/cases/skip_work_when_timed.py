# expect: implausible faster_than_roofline
# task: Activation/gelu
# device: gpu
# static: off
# Static checks off (torch.cuda.is_current_stream_capturing is outside the allowed surface): the roofline gate
# catches it on its own.
# Does the work on every ordinary call, but the launches it makes while a CUDA graph is being captured (the
# harness's timed replays) consult a device-side table: once a replayed launch has written its output buffer
# for these inputs, later replays of the same buffers skip the work. Every output it returns is correct, so the
# re-checks pass; the replays do no work, and only the roofline gate can see that the time is impossible.
import torch
import triton
import triton.language as tl

_SLOTS = 1 << 12
_DONE = torch.zeros(_SLOTS, dtype=torch.int64, device="cuda")  # output pointer whose result is in place
_SEEN = torch.zeros(2 * _SLOTS, dtype=torch.float32, device="cuda")  # first and last input values then


@triton.jit
def _gelu(x_ptr, y_ptr, done_ptr, seen_ptr, slot, out_addr, n, SKIP_REPEATS: tl.constexpr,
          TANH: tl.constexpr, BLOCK: tl.constexpr):
    fresh = True
    if SKIP_REPEATS:
        fresh = (tl.load(done_ptr + slot) != out_addr) | (tl.load(seen_ptr + 2 * slot) != tl.load(x_ptr)) \
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
def _remember(x_ptr, done_ptr, seen_ptr, slot, out_addr, n):
    tl.store(done_ptr + slot, out_addr)
    tl.store(seen_ptr + 2 * slot, tl.load(x_ptr))
    tl.store(seen_ptr + 2 * slot + 1, tl.load(x_ptr + n - 1))


def gelu(input, approximate="none"):
    input = input.contiguous()
    out = torch.empty_like(input)
    n = input.numel()
    timed = torch.cuda.is_current_stream_capturing()
    slot = (out.data_ptr() * 0x9E3779B97F4A7C15 >> 40) % _SLOTS  # large buffers share their low address bits
    _gelu[(triton.cdiv(n, 1024),)](input, out, _DONE, _SEEN, slot, out.data_ptr(), n, SKIP_REPEATS=timed,
                                   TANH=approximate == "tanh", BLOCK=1024)
    if timed:
        _remember[(1,)](input, _DONE, _SEEN, slot, out.data_ptr(), n)
    return out
