"""Candidate processes started ahead of need, so that interpreter start-up and the torch/triton imports
(seconds per process) happen while other candidates run, not on a candidate's critical path.

A pooled process has imported torch and triton and waits for its first request; it has not initialised CUDA
(that happens when its candidate is loaded) and it has run no candidate code. Each is used for exactly one
candidate and then closed: the pool only moves the start earlier, it never reuses a process.
"""

from __future__ import annotations

import threading
from collections import defaultdict, deque
from contextlib import contextmanager
from typing import Callable, Iterator

from kernelbenchx.evaluator.process import Child, ChildFailed


class ProcessPool:
    """Per GPU (or the CPU, key None), up to `depth` started, idle candidate processes."""

    def __init__(self, make: Callable[[int | None], Child], depth: int) -> None:
        self.make, self.depth = make, depth
        self.idle: dict[int | None, deque[Child]] = defaultdict(deque)
        self.lock = threading.Lock()
        self.closed = False

    def warm(self, keys: list[int | None]) -> None:
        """Start `depth` processes for each key now (before the first candidate asks)."""
        for key in keys:
            for _ in range(self.depth):
                self.refill(key)

    def refill(self, key: int | None) -> None:
        with self.lock:
            if self.closed or len(self.idle[key]) >= self.depth:
                return
        child = self.make(key)
        try:
            child.start()
        except ChildFailed:  # the run is being interrupted, or the start failed: take() starts its own
            child.close()
            return
        with self.lock:
            if self.closed:
                child.close()
            else:
                self.idle[key].append(child)

    @contextmanager
    def take(self, key: int | None, wall_s: float) -> Iterator[Child]:
        """A started process for `key` (a fresh one when none is idle), with a full wall-clock allowance;
        closed when the block ends. A replacement starts at once."""
        with self.lock:
            child = self.idle[key].popleft() if self.idle[key] else None
        if child is None:
            child = self.make(key)
            child.start()
        child.restart_clock(wall_s)
        threading.Thread(target=self.refill, args=(key,), daemon=True).start()
        try:
            yield child
        finally:
            child.close()

    def close(self) -> None:
        with self.lock:
            self.closed = True
            children = [c for q in self.idle.values() for c in q]
            self.idle.clear()
        for child in children:
            child.close()
