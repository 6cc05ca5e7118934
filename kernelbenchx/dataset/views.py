"""Tensors moved or copied with their layout: the same sizes, strides and storage offset (Tensor.to and
Tensor.clone make non-dense views contiguous, which would hide a kernel's layout bugs).

Every copy also gets a guard band: its storage runs GUARD_BYTES past the original's end, filled with a poison
value (a NaN, or an out-of-range integer). A kernel that reads past a tensor's end (a load without its mask, a
bound off by one) picks up poison and produces a wrong output on every device, instead of reading whatever
memory happened to follow; `guard_intact` tells whether a kernel wrote past the end.

The poison is each tensor's own. A floating band holds a signalling NaN whose payload comes from the storage
address, compared bit for bit: arithmetic quiets a signalling NaN (GPUs return their canonical NaN), and a
value copied from another tensor's band carries that tensor's payload, so a store past the end is seen even
when it stores f(NaN) = NaN. An integer band holds an out-of-range value chosen the same way. With one poison
for all tensors, an off-by-one store of rsqrt(NaN), an in-place optimizer step one element too far, or
x[n] & y[n] stored at out[n] left the band "intact". Tensors the code under
test allocates itself (outputs, scratch buffers) get the same band when allocated under `GuardedAllocations`.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

GUARD_BYTES = 16384  # more than the widest block of loads a kernel issues past a tensor's end
# For processes that run code under test on the CPU (kbx eval's children, the mutation tool's): glibc fills
# every allocation with 0x5a bytes (and freed memory with 0xa5), so an output a kernel never writes holds
# garbage instead of a previous result; allocations up to 32 MiB use the heap. Set as GLIBC_TUNABLES.
MALLOC_POISON = "glibc.malloc.perturb=165:glibc.malloc.mmap_threshold=33554432"


def poison_value(dtype: torch.dtype) -> Any:
    """A value no test case holds: NaN for floating tensors, an out-of-range index for integers."""
    if dtype.is_floating_point or dtype.is_complex:
        return float("nan")
    if dtype == torch.bool:
        return True
    return torch.iinfo(dtype).max // 2 + 7


# dtype → (integer view, exponent bits, payload mask below the quiet bit)
SIGNALLING = {torch.float16: (torch.int16, 0x7C00, 0x1FF), torch.bfloat16: (torch.int16, 0x7F80, 0x3F),
              torch.float32: (torch.int32, 0x7F800000, 0x3FFFFF),
              torch.float64: (torch.int64, 0x7FF0000000000000, 0x7FFFFFFFFFFFF)}


def integer_poison(dtype: torch.dtype, key: int) -> int:
    """An out-of-range index of this tensor's own (from its storage address): a value a kernel carries over
    from another band (x[n] & y[n] stored one past the end, say) differs from the band it lands in."""
    low = poison_value(dtype)
    return low + (key >> 6) % (torch.iinfo(dtype).max - low + 1)


def band_bits(band: torch.Tensor, key: int) -> tuple[torch.Tensor, int] | None:
    """The band as integers and the pattern it must hold: a signalling NaN with this tensor's payload for
    floating dtypes, this tensor's poison for integers (None: bool, whose band holds True)."""
    if band.is_complex():
        band = band.view(band.real.dtype)
    if band.dtype == torch.bool:
        return None
    if band.dtype not in SIGNALLING:
        return band, integer_poison(band.dtype, key)
    int_dtype, exponent, mask = SIGNALLING[band.dtype]
    return band.view(int_dtype), exponent | (1 + (key >> 6) % mask)


def fill_band(band: torch.Tensor, key: int) -> None:
    bits = band_bits(band, key)
    if bits is None:
        band.fill_(poison_value(band.dtype))
    else:
        bits[0].fill_(bits[1])


def guard_elements(dtype: torch.dtype) -> int:
    return -(-GUARD_BYTES // torch.empty(0, dtype=dtype).element_size())


def flat_storage(t: torch.Tensor) -> torch.Tensor:
    """The tensor's whole storage as a 1-D tensor of its dtype."""
    storage = t.untyped_storage()
    whole = torch.empty(0, dtype=t.dtype, device=t.device)
    return whole.set_(storage, 0, (storage.nbytes() // t.element_size(),), (1,))


def guarded_copy(t: torch.Tensor, device: str | torch.device) -> torch.Tensor:
    """A copy of `t` on `device` with its sizes, strides and storage offset, followed by the guard band."""
    whole = flat_storage(t)
    guard = guard_elements(t.dtype)
    big = torch.empty(whole.numel() + guard, dtype=t.dtype, device=device)
    big[:whole.numel()].copy_(whole)
    fill_band(big[whole.numel():], big.data_ptr())
    return big.as_strided(t.size(), t.stride(), t.storage_offset())


def guard_intact(t: torch.Tensor) -> bool:
    """Whether the guard band of a `guarded_copy` still holds poison everywhere."""
    whole = flat_storage(t)
    tail = whole[whole.numel() - guard_elements(t.dtype):]
    bits = band_bits(tail, whole.data_ptr())
    if bits is not None:
        return bool((bits[0] == bits[1]).all())
    if tail.is_floating_point() or tail.is_complex():
        return bool(torch.isnan(tail).all())
    return bool((tail == poison_value(t.dtype)).all())


def transfer(t: torch.Tensor, device: str | torch.device) -> torch.Tensor:
    """`t` on `device` with the same sizes, strides and storage offset (Tensor.to would make it contiguous)."""
    device = torch.device(device)
    if t.device == device or (device.index is None and t.device.type == device.type):
        return t
    return guarded_copy(t, device)


def copy_view(t: torch.Tensor) -> torch.Tensor:
    """A copy of `t` with the same sizes, strides and storage offset (Tensor.clone makes non-dense views
    contiguous): the candidate must receive the layout the case was built with."""
    return guarded_copy(t, t.device)


FACTORIES = frozenset({"clone", "_to_copy", "empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones",
                       "ones_like", "full", "full_like", "new_empty", "new_empty_strided", "new_zeros", "new_ones",
                       "new_full"})


# Correctness cases allocate megabytes; an allocation beyond this is left unguarded rather than copied (a lazy
# terabyte from torch.empty would be touched page by page): the harness refuses such an output anyway.
GUARDED_BYTES_MAX = 1 << 32


def guard_allocation(func: Any, out: Any, made: list[torch.Tensor]) -> Any:
    """`out` with a guard band when `func` is a tensor factory (appended to `made`), else `out` unchanged."""
    if func.overloadpacket.__name__ not in FACTORIES or not isinstance(out, torch.Tensor) \
            or out.device.type == "meta" or out.numel() * out.element_size() > GUARDED_BYTES_MAX:
        return out
    out = guarded_copy(out, out.device)
    made.append(out)
    return out


TRITON_DIR = os.path.dirname(importlib.util.find_spec("triton").origin) + os.sep


def inside_triton() -> bool:
    """Whether Triton's own code is on the stack (the CPU interpreter copies whole storages to and from
    buffers it allocates; those are not the kernel's tensors). The evaluator's harness pauses its recorder
    inside Triton's launches instead."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename.startswith(TRITON_DIR):
            return True
        frame = frame.f_back
    return False


class GuardedAllocations(TorchDispatchMode):
    """Every tensor allocated while active gets a guard band; `overrun()` counts those written past their end."""

    def __init__(self) -> None:
        super().__init__()
        self.made: list[torch.Tensor] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        return out if inside_triton() else guard_allocation(func, out, self.made)

    def overrun(self) -> int:
        return sum(not guard_intact(t) for t in self.made)


def call_guarded(call: Any, entry: Any) -> tuple[Any, Any, str | None]:
    """For in-process checks (selfcheck, mutate): `entry` called on guarded copies of `call`'s inputs with its
    allocations guarded. Returns the inputs it saw, its output, and what it wrote past (None when nothing)."""
    mine = call.map(copy_view)  # the layout the case was built with, as the evaluator delivers it
    with GuardedAllocations() as mode:
        out = mine.invoke(entry)
    inputs = [i for i, t in enumerate(mine.tensors()) if not guard_intact(t)]
    return mine, out, overrun_text(inputs, mode.overrun())


def overrun_text(inputs: list[int] | tuple[int, ...], allocated: int) -> str | None:
    """What a call wrote past: the indices of its tensor inputs and the number of its own allocations."""
    parts = [f"tensor inputs {list(inputs)}"] * bool(inputs) + [f"{allocated} tensor(s) it allocated"] * bool(allocated)
    return "wrote past the end of " + " and ".join(parts) if parts else None
