"""Read kbx's published test cases without torch: datasets + safetensors + numpy only.

    python examples/read_cases.py hf/ --task Reduce/sum              # a folder from `kbx dataset build/download`
    python examples/read_cases.py ORG/kernelbench-x --revision v0.2.0 --task Reduce/sum

For each case it prints the call (shapes, dtypes, views and their strides) and the expected outputs, and checks
that every view rebuilt from its stored storage holds the stored values. Exit status 1 if one does not.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import numpy as np
from safetensors.numpy import load as st_load

NUMPY = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4", "I16": "<i2", "I8": "i1",
         "U64": "<u8", "U32": "<u4", "U16": "<u2", "U8": "u1", "BOOL": "?", "C64": "<c8"}


def load_tensors(data: bytes) -> dict[str, np.ndarray]:
    """safetensors bytes → numpy arrays. numpy has no bfloat16: BF16 entries become float32 (exactly)."""
    try:
        return st_load(data)
    except (KeyError, TypeError, ValueError):  # a dtype numpy lacks: read the (simple) format directly
        pass
    size = int.from_bytes(data[:8], "little")
    header, body = json.loads(data[8:8 + size]), data[8 + size:]
    out = {}
    for key, info in header.items():
        if key == "__metadata__":
            continue
        start, end = info["data_offsets"]
        raw = body[start:end]
        if info["dtype"] == "BF16":
            words = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
            out[key] = words.view(np.float32).reshape(info["shape"])
        else:
            out[key] = np.frombuffer(raw, dtype=NUMPY[info["dtype"]]).reshape(info["shape"]).copy()
    return out


def tensor(arrays: dict[str, np.ndarray], layout: dict, view: bool) -> np.ndarray:
    """One tensor: its contiguous values, or (view=True) the exact strided view over its stored storage."""
    def value(key: str) -> np.ndarray:
        a = arrays[key]
        return a[..., 0] + 1j * a[..., 1] if layout["stored"] == "real_pairs" else a

    if not view or layout["storage"] is None:
        return value(layout["key"])
    storage = value(layout["storage"])
    strides = [s * storage.itemsize for s in layout["strides"]]
    return np.lib.stride_tricks.as_strided(storage[layout["storage_offset"]:], layout["shape"], strides,
                                           writeable=False)


def decode(structure: Any, data: bytes, layouts: list[dict], view: bool = True) -> Any:
    """The JSON structure with every {"tensor": KEY} replaced by its numpy array."""
    arrays, by_key = load_tensors(data), {x["key"]: x for x in layouts}

    def walk(node: Any) -> Any:
        if not isinstance(node, dict):
            return node
        (tag, inner), = node.items()
        if tag == "tensor":
            return tensor(arrays, by_key[inner], view)
        if tag in ("tuple", "list"):
            items = [walk(x) for x in inner]
            return tuple(items) if tag == "tuple" else items
        if tag == "dict":
            return {k: walk(v) for k, v in inner.items()}
        if tag == "float":
            return float(inner)
        if tag == "complex":
            return complex(walk(inner[0]), walk(inner[1]))
        return f"<{tag} {inner}>"  # dtypes: a name such as "float32"

    return walk(structure)


def describe(value: Any) -> str:
    if isinstance(value, np.ndarray):
        view = "" if value.flags.c_contiguous else f" view strides={[s // value.itemsize for s in value.strides]}"
        return f"{value.dtype}{list(value.shape)}{view}"
    if isinstance(value, (list, tuple)):
        return "(" + ", ".join(describe(v) for v in value) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}={describe(v)}" for k, v in value.items()) + "}"
    return repr(value)


def views_hold_values(row: dict) -> bool:
    """Every rebuilt view equals the stored contiguous values (NaN where NaN)."""
    layouts = json.loads(row["input_layouts"])
    arrays = load_tensors(row["inputs"])
    return all(np.array_equal(tensor(arrays, x, True), tensor(arrays, x, False), equal_nan=x["dtype"] != "bool"
                              and not x["dtype"].startswith(("int", "uint")))
               for x in layouts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", help="dataset folder or Hub repository id")
    parser.add_argument("--task", help="only this task id")
    parser.add_argument("--revision", help="Hub revision to pin (tag or commit)")
    args = parser.parse_args(argv)
    import datasets

    cases = datasets.load_dataset(args.source, "cases", split="test", revision=args.revision)
    if args.task:
        cases = cases.filter(lambda r: r["task_id"] == args.task)
    bad = 0
    for row in cases:
        call = decode(json.loads(row["inputs_structure"]), row["inputs"], json.loads(row["input_layouts"]))
        expected = decode(json.loads(row["expected_structure"]), row["expected"], json.loads(row["expected_layouts"]))
        ok = views_hold_values(row)
        bad += not ok
        flag = " stochastic" if row["stochastic"] else ""
        print(f"{row['task_id']} {row['case']}{flag}: args={describe(call['args'])} kwargs={describe(call['kwargs'])}"
              f" -> {describe(expected)}{'' if ok else '  VIEW MISMATCH'}")
    print(f"{len(cases)} cases, {bad} views not matching their values", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
