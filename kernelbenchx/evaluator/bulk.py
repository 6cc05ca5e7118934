"""Large tensors between kbx's processes through shared memory instead of the message pipe.

A perf-size output held back for judging (gigabytes) crossed two pipes as `torch.save` frames: serialized,
written in 16 MB pieces, joined and loaded again on each side, every copy into fresh pages. Run 47 (one H200):
19.5 s to fetch one ~3 GB output from its candidate process, and about 13 s more to hand it to a judge.

A region is a memfd the parent creates for one child and passes at its start (ENV names its descriptor). Each
region carries one direction only, so its writer and its reader never take turns within a message:

- REPLIES (a candidate process): the child writes its replies' large tensors there; the parent copies each out
  with pread before anything looks at it, so the child cannot change what is judged afterwards, and a region
  the child shrank reads short (a protocol error, never a SIGBUS in the parent).
- REQUESTS (a trusted judge): the parent writes a request's large tensors there and the judge reads them in
  place while it serves that request; the parent writes again only with the next request. Its pages stay
  mapped for the server's life, so a judge's second multi-GB output costs no page faults.

In a frame a tensor in the region is a reference {KEY: (offset, dtype, shape)}. Only plain, contiguous CPU
tensors of at least MIN_BYTES go there, while the region has room; anything else stays in the frame.
"""

from __future__ import annotations

import bisect
import math
import mmap
import os
from dataclasses import dataclass
from typing import Any

import torch

ENV = "KBX_BULK"  # "fd:size:direction" in the child's environment
KEY = "__kbx_bulk__"
REPLIES, REQUESTS = "replies", "requests"
REGION_BYTES = 8 << 30  # the largest output a candidate may hold (child/harness.py MAX_OUTPUT_BYTES)
MIN_BYTES = 1 << 20  # smaller tensors cost less in the frame than a trip through the region
ALIGN = 64
DTYPES = {str(d): d for d in (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
                              torch.uint16, torch.uint32, torch.uint64, torch.float16, torch.bfloat16,
                              torch.float32, torch.float64, torch.complex64, torch.complex128,
                              torch.float8_e4m3fn, torch.float8_e5m2)}


class BulkError(Exception):
    """A reference in a frame that does not describe a tensor inside the region."""


@dataclass
class Region:
    """One side's view of a region: its descriptor (the parent's; the child closes its own once mapped), size,
    direction and, on the side that writes it or reads it in place, its mapping."""

    fd: int
    size: int
    direction: str
    mapping: mmap.mmap | None = None

    def close(self) -> None:
        if self.mapping is not None:
            try:
                self.mapping.close()
            except BufferError:  # a tensor still views it: the mapping goes with the process
                pass
            self.mapping = None
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def create(size: int, direction: str) -> Region:
    """A new region of `size` bytes (sparse: pages exist once written), for a child not started yet."""
    if direction not in (REPLIES, REQUESTS):
        raise ValueError(f"unknown direction {direction!r}")
    fd = os.memfd_create("kbx-bulk", os.MFD_CLOEXEC)
    try:
        os.ftruncate(fd, size)
    except OSError:
        os.close(fd)
        raise
    region = Region(fd, size, direction)
    if direction == REQUESTS:  # the parent writes it
        region.mapping = mmap.mmap(fd, size)
    return region


def child_env(region: Region) -> dict[str, str]:
    return {ENV: f"{region.fd}:{region.size}:{region.direction}"}


def from_env() -> Region | None:
    """The child's side of the region its parent passed, mapped (the descriptor closed: the mapping holds it, and
    nothing the process starts inherits it); None without one."""
    spec = os.environ.pop(ENV, "")
    if not spec:
        return None
    fd, size, direction = spec.split(":")
    try:
        mapping = mmap.mmap(int(fd), int(size))
    finally:
        os.close(int(fd))
    return Region(-1, int(size), direction, mapping)


class Writer:
    """Places one message's large tensors in the region, from its start."""

    def __init__(self, region: Region) -> None:
        assert region.mapping is not None
        self.region, self.used = region, 0
        self.bytes = torch.frombuffer(region.mapping, dtype=torch.uint8)

    def place(self, t: torch.Tensor) -> Any:
        """A reference to a copy of `t` in the region, or `t` itself when it stays in the frame."""
        if not eligible(t):
            return t
        size, start = t.numel() * t.element_size(), -(-self.used // ALIGN) * ALIGN
        if start + size > self.region.size:
            return t
        self.bytes[start:start + size].copy_(t.detach().reshape(-1).view(torch.uint8))
        self.used = start + size
        return {KEY: (start, str(t.dtype), tuple(t.shape))}

    def prefault(self, size: int) -> None:
        """Write the first `size` bytes once (off the critical path), so a later copy finds its pages in place."""
        self.bytes[:min(size, self.region.size)].zero_()


def eligible(t: torch.Tensor) -> bool:
    return (type(t) is torch.Tensor and t.device.type == "cpu" and str(t.dtype) in DTYPES
            and t.is_contiguous() and not t.requires_grad and t.numel() * t.element_size() >= MIN_BYTES)


class Reader:
    """Turns one message's references back into tensors: copies (pread) on the parent's side of a REPLIES
    region, views of the mapping on a trusted child's side of a REQUESTS region. No two references of a message
    may overlap, so a message can make its reader allocate at most the region's size (a forged reply naming
    the same gigabytes a thousand times would otherwise have the parent copy them a thousand times)."""

    def __init__(self, region: Region) -> None:
        self.region = region
        self.taken: list[tuple[int, int]] = []  # (start, end) of each reference so far, sorted

    def take(self, ref: Any) -> torch.Tensor:
        start, dtype, shape, size = checked(ref, self.region.size)
        self.claim(start, start + size)
        if self.region.mapping is not None:
            flat = torch.frombuffer(self.region.mapping, dtype=torch.uint8, count=size, offset=start)
            return flat.view(dtype).view(shape)
        out = torch.empty(shape, dtype=dtype)
        view = memoryview(out.reshape(-1).view(torch.uint8).numpy())
        done = 0
        while done < size:
            got = os.preadv(self.region.fd, [view[done:]], start + done)
            if got <= 0:
                raise BulkError(f"the region ends at {start + done} bytes, inside a tensor of {size} at {start}")
            done += got
        return out


    def claim(self, start: int, end: int) -> None:
        at = bisect.bisect_left(self.taken, (start, end))
        before = self.taken[at - 1] if at else None
        after = self.taken[at] if at < len(self.taken) else None
        if (before and before[1] > start) or (after and after[0] < max(end, start + 1)):
            raise BulkError(f"a tensor at {start} overlaps another of the same message")
        self.taken.insert(at, (start, end))


def checked(ref: Any, region_size: int) -> tuple[int, torch.dtype, tuple[int, ...], int]:
    """(offset, dtype, shape, bytes) of a well-formed reference that lies inside the region."""
    if not (isinstance(ref, (tuple, list)) and len(ref) == 3):
        raise BulkError(f"malformed reference {ref!r:.200}")
    start, name, shape = ref
    dtype = DTYPES.get(name) if isinstance(name, str) else None
    if dtype is None:
        raise BulkError(f"unknown dtype {name!r:.100}")
    if not (isinstance(shape, (tuple, list)) and len(shape) <= 64
            and all(type(n) is int and n >= 0 for n in shape)):
        raise BulkError(f"malformed shape {shape!r:.200}")
    size = math.prod(shape) * dtype.itemsize
    if type(start) is not int or start < 0 or start % ALIGN or start + size > region_size:
        raise BulkError(f"a tensor of {size} bytes at {start!r:.40} does not lie in a region of {region_size}")
    return start, dtype, tuple(shape), size
