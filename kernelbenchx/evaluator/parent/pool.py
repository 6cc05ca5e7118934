"""Candidate processes started ahead of need, so that interpreter start-up and the torch/triton imports
(seconds per process) happen while other candidates run, not on a candidate's critical path.

A pooled process has imported torch and triton and waits for its first request; it has not initialised CUDA
(that happens when its candidate is loaded) and it has run no candidate code. Each is used for exactly one
candidate and then closed: the pool only moves the start earlier, it never reuses a process.

A run that knows how many candidates it will start gives the pool that budget: it never holds more started
processes than candidates are left to take them. Without one, a 5-candidate `kbx eval` on 20 workers started 20
processes at once (15 of them only to be closed unused, beside the 5 it needed), and every run ended with a full
pool of processes booted for nobody (20 per GPU: run 56 booted 217 processes for 177 candidates).
"""

from __future__ import annotations

import threading
from collections import Counter, defaultdict, deque
from contextlib import contextmanager
from typing import Callable, Iterator

from kernelbenchx.evaluator.process import Child, ChildFailed


class ProcessPool:
    """Per GPU (or the CPU, key None), up to `depth` started, idle candidate processes."""

    def __init__(self, make: Callable[[int | None], Child], depth: int, budget: int | None = None) -> None:
        self.make, self.depth = make, depth
        self.unclaimed = budget  # takes still to come (None: no end known, e.g. a long-lived evaluator)
        self.starting: Counter[int | None] = Counter()  # per key: refills decided, their process not yet idle
        self.idle: dict[int | None, deque[Child]] = defaultdict(deque)
        self.lock = threading.Lock()
        self.closed = False

    def warm(self, keys: list[int | None]) -> None:
        """Start up to `depth` processes for each key now (before the first candidate asks), key by key in turn,
        so that a budget smaller than the pool spreads over the keys."""
        for _ in range(self.depth):
            for key in keys:
                self.refill(key)

    def wanted(self, key: int | None) -> bool:
        """Whether another process started for `key` could still be taken (called under the lock): fewer are
        started than takes are to come, or none is ready or starting for this key (candidates go to the GPU with
        the fewest in flight, not to where processes wait: the last ones must not start theirs on demand)."""
        if self.unclaimed is None:
            return True
        ready = sum(map(len, self.idle.values())) + sum(self.starting.values())
        return self.unclaimed > 0 and (ready < self.unclaimed or not (self.idle[key] or self.starting[key]))

    def refill(self, key: int | None) -> None:
        with self.lock:
            if self.closed or len(self.idle[key]) >= self.depth or not self.wanted(key):
                return
            self.starting[key] += 1
        child = self.make(key)
        try:
            child.start()
        except ChildFailed:  # the run is being interrupted, or the start failed: take() starts its own
            child.close()
            child = None
        with self.lock:
            self.starting[key] -= 1
            if child is None:
                return
            if self.closed:
                child.close()
            else:
                self.idle[key].append(child)

    @contextmanager
    def take(self, key: int | None, wall_s: float) -> Iterator[Child]:
        """A started process for `key` (a fresh one when none is idle), with a full wall-clock allowance;
        closed when the block ends. A replacement starts at once, if the budget (wanted()) still wants one."""
        with self.lock:
            child = self.idle[key].popleft() if self.idle[key] else None
            if self.unclaimed is not None:
                self.unclaimed = max(0, self.unclaimed - 1)
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
