"""Memory layouts of tensor inputs: the same logical tensor as a transposed, sliced, strided, offset or
expanded (stride-0) view, so that kernels assuming contiguous row-major inputs are caught.

Every task whose contract allows arbitrary layouts (``Contract.layouts``, all kinds by default) gets, in stage 1,
one case per layout kind derived from one of its fixed cases, and in stage 2 one case per sampling mode with
a layout chosen by the run's secret seed. Except for ``expanded``, a relaid tensor holds exactly the values
of the original (so value constraints such as unique indices or SPD matrices still hold); the memory it does
not cover is filled with a poison value (NaN, or an out-of-range integer) that a kernel reading through the
wrong strides picks up. ``expanded`` repeats one slice along a dimension (stride 0) and applies to
non-mutated floating inputs only. Views survive the trip to the candidate: ``views.transfer`` moves a tensor's
whole storage to the device and rebuilds the same view there.
"""

from __future__ import annotations

from typing import Any, Callable

import torch

from kernelbenchx.dataset.contract import LAYOUT_KINDS
from kernelbenchx.dataset.task import Call, iter_tensors
from kernelbenchx.dataset.views import copy_view, poison_value, transfer  # noqa: F401  (re-exported)

MAX_BASE_ELEMENTS = 1 << 16  # stage-1 layout cases stay small: the CPU interpreter runs them too


def transposed(t: torch.Tensor) -> torch.Tensor | None:
    """Every dimension's order reversed in memory (column-major for matrices)."""
    if t.dim() < 2:
        return None
    order = list(range(t.dim()))[::-1]
    inverse = [order.index(i) for i in range(t.dim())]
    return t.permute(order).contiguous().permute(inverse)


def sliced(t: torch.Tensor) -> torch.Tensor | None:
    """Rows of a wider buffer: the last dimension is contiguous, the leading strides are padded."""
    if t.dim() < 2:
        return None
    big = torch.full((*t.shape[:-1], t.shape[-1] + 3), poison_value(t.dtype), dtype=t.dtype, device=t.device)
    view = big[..., 1:1 + t.shape[-1]]
    view.copy_(t)
    return view


def strided(t: torch.Tensor) -> torch.Tensor | None:
    """Every other element of a buffer twice as long in the last dimension (innermost stride 2)."""
    big = torch.full((*t.shape[:-1], 2 * t.shape[-1]), poison_value(t.dtype), dtype=t.dtype, device=t.device)
    view = big[..., ::2]
    view.copy_(t)
    return view


def offset(t: torch.Tensor) -> torch.Tensor | None:
    """Contiguous, but starting 5 elements into its storage."""
    flat = torch.full((t.numel() + 5,), poison_value(t.dtype), dtype=t.dtype, device=t.device)
    view = flat[5:].view(t.shape)
    view.copy_(t)
    return view


def expanded(t: torch.Tensor) -> torch.Tensor | None:
    """The first slice along the largest dimension repeated with stride 0 (values change: the reference is
    recomputed for the relaid call)."""
    if not t.is_floating_point():
        return None
    dim = max(range(t.dim()), key=lambda d: t.shape[d])
    if t.shape[dim] < 2:
        return None
    return t.narrow(dim, 0, 1).clone().expand(t.shape)


TRANSFORMS: dict[str, Callable[[torch.Tensor], torch.Tensor | None]] = {
    "transposed": transposed, "sliced": sliced, "strided": strided, "offset": offset, "expanded": expanded,
}
assert tuple(TRANSFORMS) == LAYOUT_KINDS


def relayout(call: Call, kind: str, keep: tuple[int, ...] = ()) -> Call | None:
    """`call` with every tensor argument of two or more elements in layout `kind`, or None when the kind
    applies to none of them. Positional arguments in `keep` (in-place outputs) are never expanded."""
    transform = TRANSFORMS[kind]
    changed = False

    def convert(value: Any, index: int | None) -> Any:
        nonlocal changed
        if not isinstance(value, torch.Tensor) or value.numel() < 2:
            return value
        if kind == "expanded" and index in keep:
            return value
        view = transform(value)
        if view is None:
            return value
        changed = True
        return view

    args = tuple(convert(a, i) for i, a in enumerate(call.args))
    kwargs = {k: convert(v, None) for k, v in call.kwargs.items()}
    return Call(*args, **kwargs) if changed else None


def pick_base(cases: list[tuple[str, Call]], preferred: str | None = None) -> tuple[str, Call] | None:
    """The fixed case the stage-1 layout cases are derived from: the named one, else the case whose largest
    tensor has the most dimensions and then the most elements (up to MAX_BASE_ELEMENTS)."""
    if preferred is not None:
        for name, call in cases:
            if name == preferred:
                return name, call
        raise KeyError(f"layout base case {preferred!r} is not a fixed case")

    def score(item: tuple[str, Call]) -> tuple[int, int]:
        tensors = [t for t in iter_tensors((item[1].args, item[1].kwargs)) if t.numel() >= 2]
        if not tensors:
            return (-1, -1)
        total = sum(t.numel() for t in tensors)
        return (max(t.dim() for t in tensors), total if total <= MAX_BASE_ELEMENTS else -total)

    best = max(cases, key=score, default=None)
    return best if best is not None and score(best)[0] >= 0 else None


def stage1_layout_cases(cases: list[tuple[str, Call]], kinds: tuple[str, ...], keep: tuple[int, ...],
                        preferred: str | None = None) -> list[tuple[str, Call]]:
    base = pick_base(cases, preferred)
    if base is None:
        return []
    out = []
    for kind in kinds:
        call = relayout(base[1], kind, keep)
        if call is not None:
            out.append((f"{base[0]}@{kind}", call))
    return out


def stage2_layout_case(cases: list[tuple[str, Call]], kinds: tuple[str, ...], keep: tuple[int, ...],
                       choice: int) -> list[tuple[str, Call]]:
    """One random case relaid in the kind `choice` selects (the run's seed decides which)."""
    if not kinds:
        return []
    for offset_ in range(len(kinds)):
        kind = kinds[(choice + offset_) % len(kinds)]
        for name, call in cases:
            relaid = relayout(call, kind, keep)
            if relaid is not None:
                return [(f"{name}@{kind}", relaid)]
    return []


def describe_layout(t: torch.Tensor) -> str:
    if t.is_contiguous() and t.storage_offset() == 0:
        return "contiguous"
    return f"stride={list(t.stride())} offset={t.storage_offset()}"
