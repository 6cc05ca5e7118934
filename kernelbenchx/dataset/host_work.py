"""Stretches of a check that run on the host only, marked so that a process judging under the GPU's shared guard
can give the guard back meanwhile.

The trusted server judges perf-size outputs under that guard (evaluator/trusted/server.py, gpu_turn), so that
no GPU work runs beside a timing. A stochastic task's statistical battery then runs single-threaded on the CPU
for up to half a minute (run 24: dropout judges held the guard 40-60 s per candidate while timings queued).
The server installs a hook for the length of its turn; checks mark their host-only stretches with `section()`.
Nothing here imports the evaluator: without a hook, a section is an empty context.
"""

from __future__ import annotations

import contextlib
from typing import Callable, ContextManager, Iterator

_hook: Callable[[], ContextManager[None]] | None = None


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
