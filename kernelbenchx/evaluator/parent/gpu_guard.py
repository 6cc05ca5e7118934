"""Keeps a GPU quiet while it is timed.

Processes of one GPU share it by time-slicing: a correctness check of another candidate (or a reference
computation) running while a kernel is timed can double that kernel's time. So every piece of work the run
sends to a GPU takes the GPU's guard: checks share it, timing holds it alone.

The guard is phase-fair: once a timing waits, new checks wait too (so timing is not starved by a steady
stream of checks), and when a timing ends, the checks that queued behind it go before the next timing (so
a queue of timings does not starve the checks either). Checks are sent one case at a time, so a timing
waits at most for the case in flight in each worker.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import ContextManager


class GpuGuard:
    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.sharers = 0  # checks running now
        self.timing = False  # a timing holds the GPU now
        self.timings_waiting = 0
        self.sharers_waiting = 0
        self.sharers_turn = False  # checks that queued behind a finished timing go first

    @contextmanager
    def shared(self) -> Iterator[None]:
        with self.cond:
            self.sharers_waiting += 1
            self.cond.wait_for(lambda: not self.timing and (self.sharers_turn or not self.timings_waiting))
            self.sharers_waiting -= 1
            if self.sharers_waiting == 0:
                self.sharers_turn = False
            self.sharers += 1
        try:
            yield
        finally:
            with self.cond:
                self.sharers -= 1
                self.cond.notify_all()

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        with self.cond:
            self.timings_waiting += 1
            self.cond.wait_for(lambda: not self.timing and not self.sharers and not self.sharers_turn)
            self.timings_waiting -= 1
            self.timing = True
        try:
            yield
        finally:
            with self.cond:
                self.timing = False
                self.sharers_turn = self.sharers_waiting > 0
                self.cond.notify_all()


def shared(guards: list[GpuGuard], gpu: int | None) -> ContextManager:
    """The shared side of a GPU's guard; nothing to take on the CPU."""
    return guards[gpu].shared() if guards and gpu is not None else nullcontext()
