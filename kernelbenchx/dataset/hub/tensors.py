"""Case values as safetensors bytes plus a JSON structure: no pickle, readable without torch.

A value (a call's arguments, a reference's output) is a tree of tensors and plain data. ``encode`` splits it
into:
- ``structure``: the tree as JSON, each tensor replaced by ``{"tensor": KEY}``; tuples, lists and dicts are
  tagged (``{"tuple": [...]}``, ``{"list": [...]}``, ``{"dict": {...}}``), as are dtypes (``{"dtype": "float32"}``)
  and floats JSON cannot hold (``{"float": "nan"}``); ints, finite floats, strings, booleans and null are plain;
- ``tensors``: KEY → the tensor's values, contiguous (safetensors stores only contiguous tensors);
- ``layouts``: one entry per tensor: its key, dtype, shape, and for a view that is not plain contiguous memory
  its strides and storage offset (in elements) and the key of its whole underlying storage (``KEY#storage``, 1-D),
  from which ``as_strided`` rebuilds the exact view the evaluator passes, poison padding included; and
  ``shares_storage_with``, the key of an earlier tensor over the same memory (an argument passed twice).

complex128 has no safetensors dtype: such tensors are stored as ``torch.view_as_real`` (float64, one more
dimension of size 2) and their layout says ``"stored": "real_pairs"``.
"""

from __future__ import annotations

import json
import math
from typing import Any

import torch
from safetensors.torch import load as st_load, save as st_save

from kernelbenchx.errors import KbxError

STORAGE = "#storage"


class UnencodableValue(KbxError):
    """A case holds a value the dataset format has no encoding for."""


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def encode(value: Any, root: str, views: bool = True) -> tuple[dict, dict[str, torch.Tensor], list[dict]]:
    """(structure, tensors, layouts) for `value`; tensor keys start with `root`. With `views` False (outputs,
    which are compared by value) tensors are stored by value only: an output's storage beyond its elements can
    be uninitialized memory (torch returns some 0-d results as views into a scratch buffer)."""
    tensors: dict[str, torch.Tensor] = {}
    layouts: list[dict] = []
    storages: dict[int, str] = {}  # storage address → first key stored over it (aliased arguments)

    def walk(v: Any, path: str) -> Any:
        if isinstance(v, torch.Tensor):
            v = v.detach().cpu()
            layout = add_tensor(v, path, tensors, views)
            layout["shares_storage_with"] = storages.setdefault(v.untyped_storage().data_ptr(), path)
            if layout["shares_storage_with"] == path:
                layout["shares_storage_with"] = None
            layouts.append(layout)
            return {"tensor": path}
        if isinstance(v, (tuple, list)):
            return {type(v).__name__: [walk(x, f"{path}.{i}") for i, x in enumerate(v)]}
        if isinstance(v, dict):
            return {"dict": {str(k): walk(x, f"{path}.{k}") for k, x in v.items()}}
        if isinstance(v, torch.dtype):
            return {"dtype": dtype_name(v)}
        if isinstance(v, float) and not math.isfinite(v):
            return {"float": repr(v)}
        if v is None or isinstance(v, (bool, int, float, str)):
            return v
        if isinstance(v, complex):
            return {"complex": [walk(v.real, path), walk(v.imag, path)]}
        raise UnencodableValue(f"{path}: cannot encode a {type(v).__name__} in a dataset case")

    return walk(value, root), tensors, layouts


def add_tensor(t: torch.Tensor, key: str, tensors: dict[str, torch.Tensor], views: bool = True) -> dict:
    stored = "native"
    if t.dtype == torch.complex128:
        stored = "real_pairs"
    layout = {"key": key, "dtype": dtype_name(t.dtype), "shape": list(t.shape), "stored": stored,
              "strides": None, "storage_offset": None, "storage": None}
    tensors[key] = as_stored(t.contiguous().clone(), stored)  # own memory: safetensors refuses shared tensors
    storage = t.untyped_storage()
    plain = t.is_contiguous() and t.storage_offset() == 0 and storage.nbytes() == t.numel() * t.element_size()
    if views and not plain:
        whole = torch.empty(0, dtype=t.dtype).set_(storage, 0, (storage.nbytes() // t.element_size(),), (1,))
        tensors[key + STORAGE] = as_stored(whole.clone(), stored)
        layout.update(strides=list(t.stride()), storage_offset=t.storage_offset(), storage=key + STORAGE)
    return layout


def as_stored(t: torch.Tensor, stored: str) -> torch.Tensor:
    return torch.view_as_real(t).contiguous() if stored == "real_pairs" else t


def to_bytes(tensors: dict[str, torch.Tensor]) -> bytes:
    """safetensors bytes; the format sorts keys, so equal tensors give equal bytes."""
    return st_save(dict(sorted(tensors.items())))


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def decode(structure: Any, data: bytes, layouts: list[dict], views: bool = True) -> Any:
    """The value back as torch objects; with `views`, non-contiguous tensors are rebuilt as the same views
    (sizes, strides and storage offset) over their stored storage."""
    stored = st_load(data)
    by_key = {layout["key"]: layout for layout in layouts}

    def tensor(key: str) -> torch.Tensor:
        layout = by_key[key]
        real = layout["stored"] == "real_pairs"
        if views and layout["storage"] is not None:
            whole = stored[layout["storage"]]
            whole = torch.view_as_complex(whole) if real else whole
            return whole.as_strided(layout["shape"], layout["strides"], layout["storage_offset"])
        return torch.view_as_complex(stored[key]) if real else stored[key]

    def walk(node: Any) -> Any:
        if not isinstance(node, dict):
            return node
        (tag, inner), = node.items()
        if tag == "tensor":
            return tensor(inner)
        if tag in ("tuple", "list"):
            items = [walk(x) for x in inner]
            return tuple(items) if tag == "tuple" else items
        if tag == "dict":
            return {k: walk(v) for k, v in inner.items()}
        if tag == "dtype":
            return getattr(torch, inner)
        if tag == "float":
            return float(inner)
        if tag == "complex":
            return complex(walk(inner[0]), walk(inner[1]))
        raise ValueError(f"unknown structure tag {tag!r}")

    return walk(structure)
