"""Cross-seed independence: streams of the same inputs under other seeds must be independent. Holds the
per-thread memo of recent streams (`remember`) and the seed families the tasks' cases are built from."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Any, Callable

import torch

from kernelbenchx.dataset.stochastic.bounds import Test
from kernelbenchx.dataset.stochastic.streams import Stream
from kernelbenchx.dataset.stochastic.structure import PairCounts, coded

MEMO_ELEMENTS = 1 << 18  # streams larger than this are not remembered for cross-seed tests
MEMO_KEYS = 8  # input fingerprints remembered per thread


# ---------------------------------------------------------------------------------------------
# Cross-seed independence


CROSS_SHIFTS = (0, 1, -1, 2, -2, 3, -3, 4, -4, 8, -8)


def cross_test(old: Stream, new: Stream, what: str, test: Test) -> None:
    """Draws of two independent streams at flat offsets CROSS_SHIFTS are independent: joint categories are
    binomial, differences of uniforms are uniform, equal values are rare."""
    counts = PairCounts(new)
    a_all, b_all = coded(old).reshape(-1), coded(new).reshape(-1)
    n_all = a_all.numel()
    va_all = old.values.reshape(-1) if new.values is not None and old.values is not None else None
    vb_all = new.values.reshape(-1) if va_all is not None else None
    for s in CROSS_SHIFTS:
        if abs(s) >= n_all:
            continue
        first, second = slice(max(0, -s), n_all - max(0, s)), slice(max(0, s), n_all - max(0, -s))
        counts.add(f"{what}, offset {s}", a_all[first], b_all[second],
                   va_all[first] if va_all is not None else None, vb_all[second] if vb_all is not None else None)
    counts.tests(test, test if va_all is not None else None, test if va_all is not None else None)


def cross_reason(streams: dict[Any, Stream], new: Stream, label: str, path: str) -> str | None:
    """None when `new` is independent of every stream in `streams` (same inputs, other seeds or calls)."""
    test = Test("cross-seed independence (calls with different seeds must give independent draws)")
    same = []
    for other, old in streams.items():
        if old.shape != new.shape:
            continue
        if torch.equal(coded(old), coded(new)) and (new.values is None or torch.equal(old.values, new.values)):
            same.append(other)
        cross_test(old, new, f"{label} vs {describe_tag(other)}", test)
    reason = test.reason(path)
    if reason and same:
        return (f"{path}: {label} gave the same draws as {describe_tag(same[0])}: the generator ignores the seed, "
                f"or keys on only some of its bits (every bit of the 64-bit seed must change the stream); {reason}")
    return reason


class Memo(threading.local):
    """Recent streams per thread: fingerprint of the inputs → {seed or call tag: Stream}."""

    def __init__(self) -> None:
        self.entries: OrderedDict[str, dict[Any, Stream]] = OrderedDict()


MEMO = Memo()


def fingerprint(call: Any, skip: str | None, path: str) -> str:
    """Hash of a call's arguments (tensor values, shapes, dtypes; not their layout), without kwarg `skip`."""
    h = hashlib.blake2b(digest_size=16)

    def feed(value: Any) -> None:
        if isinstance(value, torch.Tensor):
            t = value.detach().cpu().contiguous()
            h.update(f"T{t.dtype}{list(t.shape)}".encode())
            if t.numel():
                h.update(t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.dtype != torch.bool
                         else t.to(torch.uint8).numpy().tobytes())
        elif isinstance(value, (list, tuple)):
            h.update(b"(" if isinstance(value, tuple) else b"[")
            for v in value:
                feed(v)
            h.update(b")")
        else:
            h.update(repr(value).encode())
        h.update(b";")

    for a in call.args:
        feed(a)
    for k in sorted(call.kwargs):
        if k != skip:
            h.update(k.encode())
            feed(call.kwargs[k])
    h.update(path.encode())
    return h.hexdigest()


def remember(key: str, tag: Any, stream: Stream, path: str, fresh: bool | None = None) -> str | None:
    """Compares `stream` with the remembered streams of the same inputs (`key`), then remembers it under `tag`.

    A tag already remembered for `key` (or fresh=True) starts a new group: the same candidate judged again, or
    the next candidate; within a group every stream must be independent of the others."""
    if not remembered(stream):
        return None
    group = MEMO.entries.get(key)
    if group is None or tag in group or fresh:
        group = {}
    reason = cross_reason(group, stream, describe_tag(tag), path) if group else None
    group[tag] = stream
    MEMO.entries[key] = group
    MEMO.entries.move_to_end(key)
    while len(MEMO.entries) > MEMO_KEYS:
        MEMO.entries.popitem(last=False)
    return reason


def remembered(stream: Stream) -> bool:
    return 0 < stream.cat.numel() <= MEMO_ELEMENTS


def describe_tag(tag: Any) -> str:
    return f"seed {tag}" if isinstance(tag, int) else str(tag)


def seed_of(call: Any, kwarg: str) -> int:
    value = call.kwargs[kwarg]
    return int(value.item() if isinstance(value, torch.Tensor) else value)


def seeded_reason(call: Any, kwarg: str | None, stream: Stream, path: str) -> str | None:
    """The cross-seed test for a seeded call (nothing when the call has no seed keyword)."""
    return tagged_reason(seed_tag(call, kwarg, path, stream.cat.numel()), stream, path)


def seed_tag(call: Any, kwarg: str | None, path: str, elements: int) -> tuple[str, int] | None:
    """What the cross-seed test needs of a seeded call whose stream has `elements` values: its inputs'
    fingerprint and its seed; None when there is no seed keyword or the stream is not to be remembered (then
    the fingerprint, a hash of every input, gigabytes at perf size, is not computed)."""
    if call is None or not kwarg or kwarg not in call.kwargs or not 0 < elements <= MEMO_ELEMENTS:
        return None
    return fingerprint(call, kwarg, path), seed_of(call, kwarg)


def tagged_reason(tag: tuple[str, int] | None, stream: Stream, path: str) -> str | None:
    return None if tag is None else remember(tag[0], tag[1], stream, path)


def family_seeds(seed: int, gen: torch.Generator) -> list[int]:
    """Seeds of one seed family: the seed, its neighbour, seeds differing only in bit 40 or above bit 32, and an
    unrelated 62-bit seed. A generator keyed on the low 32 (or 40) bits, on the high bits only, or on the
    seed as a counter offset gives dependent streams for some pair."""
    other = int(torch.randint(0, 2 ** 62, (), generator=gen))
    return [seed, seed + 1, seed ^ (1 << 40), seed + (1 << 33), other]


def family(name: str, build: Callable[[Any], Any], seed: int, gen: torch.Generator) -> list[tuple[str, Any]]:
    """The cases of one seed family: `build(seed)` for each of family_seeds(seed), same inputs otherwise."""
    names = ("base", "seed+1", "seed^2^40", "seed+2^33", "other_seed")
    return [(f"{name}/{tag}", build(s)) for tag, s in zip(names, family_seeds(seed, gen))]


def draw_seed(gen: torch.Generator) -> int:
    """A 62-bit seed (every bit used): stage-2 seeds are full width so that kernels must take an int64 seed."""
    return int(torch.randint(0, 2 ** 62, (), generator=gen))
