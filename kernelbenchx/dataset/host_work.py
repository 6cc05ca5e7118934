"""Stretches of a check that run on the host only, marked so that a process judging under the GPU's shared guard
can give the guard back meanwhile.

The trusted server judges perf-size outputs under that guard (evaluator/trusted/server.py, gpu_turn), so that
no GPU work runs beside a timing. A stochastic task's statistical battery then runs single-threaded on the CPU
for up to half a minute (run 24: dropout judges held the guard 40-60 s per candidate while timings queued).
The server installs a hook for the length of its turn; checks mark their host-only stretches with `section()`.
Better still, a check's last step can be handed back to run after the guarded turn, once the judge has dropped
its GPU tensors (`later()`, inside the server's `deferring()`; `settle()` runs it): a judge in a section keeps
its live tensors beside the timing that took the guard (tens of GB at perf size: out of memory on an H100).
Nothing here imports the evaluator: without a hook, a section is an empty context and `later` runs at once.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, ContextManager, Iterator

_hook: Callable[[], ContextManager[None]] | None = None
_deferring = False


@contextlib.contextmanager
def section() -> Iterator[None]:
    """Host-only work follows: the installed hook (if any) may give the GPU guard back until it ends."""
    if _hook is None:
        yield
        return
    with _hook():
        yield


@contextlib.contextmanager
def installed(hook: Callable[[], ContextManager[None]]) -> Iterator[None]:
    """`hook` serves every section() until the block ends; the previous hook is restored after it."""
    global _hook
    before, _hook = _hook, hook
    try:
        yield
    finally:
        _hook = before


class Deferred:
    """A check's host-only last step, handed back to run later; it must be returned as the check's result (a
    check that tests it as a reason would skip its own later steps: that raises)."""

    def __init__(self, step: Callable[[], Any]) -> None:
        self.step = step

    def __bool__(self) -> bool:
        raise TypeError("a deferred check step must be returned, not tested")


def later(step: Callable[[], Any]) -> Any:
    """`step()` (host-only work, the check's last), now in a section, or inside deferring() handed back."""
    if _deferring:
        return Deferred(step)
    with section():
        return step()


@contextlib.contextmanager
def deferring() -> Iterator[None]:
    """Checks called in this block hand their host-only last steps back (Deferred) for settle()."""
    global _deferring
    before, _deferring = _deferring, True
    try:
        yield
    finally:
        _deferring = before


def settle(result: Any) -> Any:
    """A check's result, its deferred last step run now."""
    return result.step() if isinstance(result, Deferred) else result
