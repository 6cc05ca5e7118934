"""Tensors moved or copied with their layout: the same sizes, strides and storage offset (Tensor.to and
Tensor.clone make non-dense views contiguous, which would hide a kernel's layout bugs)."""

from __future__ import annotations

import torch


def transfer(t: torch.Tensor, device: str | torch.device) -> torch.Tensor:
    """`t` on `device` with the same sizes, strides and storage offset (Tensor.to would make it contiguous)."""
    device = torch.device(device)
    if t.device == device or (device.index is None and t.device.type == device.type):
        return t
    storage = t.untyped_storage()
    if t.is_contiguous() and t.storage_offset() == 0 and storage.nbytes() == t.numel() * t.element_size():
        return t.to(device)
    whole = torch.empty(0, dtype=t.dtype, device=t.device)
    whole.set_(storage, 0, (storage.nbytes() // t.element_size(),), (1,))
    return whole.to(device).as_strided(t.size(), t.stride(), t.storage_offset())


def copy_view(t: torch.Tensor) -> torch.Tensor:
    """A copy of `t` with the same sizes, strides and storage offset (Tensor.clone makes non-dense views
    contiguous): the candidate must receive the layout the case was built with."""
    storage = t.untyped_storage()
    whole = torch.empty(0, dtype=t.dtype, device=t.device)
    whole.set_(storage, 0, (storage.nbytes() // t.element_size(),), (1,))
    return whole.clone().as_strided(t.size(), t.stride(), t.storage_offset())
