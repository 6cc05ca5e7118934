"""Keeps a GPU quiet while it is timed.

Processes of one GPU share it by time-slicing: a correctness check of another candidate (or a reference
computation) running while a kernel is timed can double that kernel's time. So every piece of work the run
sends to a GPU takes the GPU's guard: checks share it, timing holds it alone.

The guard is phase-fair: once a timing waits, new checks wait too (so timing is not starved by a steady
stream of checks), and when a timing ends, the checks that queued behind it go before the next timing (so
a queue of timings does not starve the checks either). Checks are sent one case at a time, so a timing
waits at most for the case in flight in each worker, and a candidate process gives its side of the guard back
while Triton compiles (a Lease), so nobody waits for a compiler.

Waiting timings go by priority, then by arrival (the Condition alone woke them in any order: one candidate
waited 47 s for the lane in run 44). A candidate whose outputs are judged after its timing has the priority
of their size (candidate.lane_priority), so long judgements start early instead of ending the run. A timing
that OVERTAKEN later arrivals went before goes next, whatever its priority.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any, Callable, ContextManager

from kernelbenchx.evaluator import messages as m
from kernelbenchx.evaluator.parent import watch


OVERTAKEN = 20  # a timing that this many later arrivals went before goes first, whatever its priority


class GpuGuard:
    def __init__(self, timeline: bool = False) -> None:
        self.cond = threading.Condition()
        # with `timeline`: every hold as [side, what the holder was doing and for which task (parent/watch.py),
        # asked, granted, released] in perf_counter seconds, for benchmarks/guard_timeline.py
        self.spans: list[list] | None = [] if timeline else None
        self.exclusive_span: list | None = None
        self.sharers = 0  # checks running now
        self.timing = False  # a timing holds the GPU now
        self.timings_waiting = 0
        self.sharers_waiting = 0
        self.sharers_turn = False  # checks that queued behind a finished timing go first
        self.reserved = False  # a timing paused while its candidate compiles: checks may run, no other timing
        self.queue: list[list] = []  # waiting timings: [-priority, arrival, times overtaken by a later arrival]
        self.arrivals = 0

    @contextmanager
    def shared(self) -> Iterator[None]:
        span = self.span("shared")
        with self.cond:
            self.sharers_waiting += 1
            self.cond.wait_for(lambda: not self.timing and (self.sharers_turn or not self.timings_waiting))
            self.sharers_waiting -= 1
            if self.sharers_waiting == 0:
                self.sharers_turn = False
            self.sharers += 1
        self.stamp(span)
        try:
            yield
        finally:
            with self.cond:
                self.sharers -= 1
                self.cond.notify_all()
            self.stamp(span)

    @contextmanager
    def exclusive(self, priority: float = 0.0) -> Iterator[None]:
        """The GPU alone; among waiting timings the highest `priority` goes first, then the earliest."""
        span = self.span("exclusive")
        with self.cond:
            self.timings_waiting += 1
            mine = [-priority, self.arrivals, 0]
            self.arrivals += 1
            self.queue.append(mine)
            self.cond.wait_for(lambda: not self.timing and not self.reserved and not self.sharers
                               and not self.sharers_turn and self.next_timing() is mine)
            self.queue.remove(mine)
            for waiting in self.queue:
                waiting[2] += waiting[1] < mine[1]
            self.timings_waiting -= 1
            self.timing = True
            self.exclusive_span = span  # the holder's: ended by its pause or its release
        self.stamp(span)
        try:
            yield
        finally:
            with self.cond:
                self.stamp(self.exclusive_span)  # inside the lock: the next holder's span is not ours to end
                self.timing = self.reserved = False
                self.sharers_turn = self.sharers_waiting > 0
                self.cond.notify_all()

    def next_timing(self) -> list:
        """The waiting timing that goes next: by priority, then arrival; but one that later arrivals overtook
        OVERTAKEN times goes first (a stream of high-priority timings, as a reward loop can send, must not hold a
        small one back for ever). Decided from state changed under the lock only, so every waiter agrees."""
        return min(self.queue, key=lambda t: (t[2] < OVERTAKEN, t[0], t[1]))

    def contended(self) -> bool:
        """Whether a timing waits for the GPU now (a check holding the shared side should give it back soon)."""
        return self.timings_waiting > 0

    def pause(self) -> None:
        """The timing holder lets checks use the GPU meanwhile, keeping its turn: no other timing starts."""
        self.stamp(self.exclusive_span)
        with self.cond:
            self.timing, self.reserved = False, True
            self.sharers_turn = self.sharers_waiting > 0
            self.cond.notify_all()

    def resume(self) -> None:
        """The paused timing holder takes the GPU alone again, once the checks in flight are done."""
        span = self.span("resume")
        with self.cond:
            self.timings_waiting += 1  # new checks wait, as for any timing
            self.cond.wait_for(lambda: not self.sharers and not self.sharers_turn)
            self.timings_waiting -= 1
            self.timing, self.reserved = True, False
            self.exclusive_span = span
        self.stamp(span)

    # -- the timeline -----------------------------------------------------------------------------------------
    def span(self, side: str) -> list | None:
        if self.spans is None:
            return None
        span = [side, *watch.doing(), time.perf_counter()]
        self.spans.append(span)  # list.append is atomic: holders on many threads record without the lock
        return span

    def stamp(self, span: list | None) -> None:
        if span is not None and len(span) < 6:  # a paused timing's span ends at the pause
            span.append(time.perf_counter())


def write_timeline(guards: list[GpuGuard], path: Path) -> None:
    """The guards' holds as JSON lines: gpu, side, what the holder was doing, its task, asked, granted,
    released."""
    with path.open("w") as out:
        for gpu, guard in enumerate(guards):
            for span in guard.spans or ():
                out.write(json.dumps([gpu, *span]) + "\n")


def shared(guards: list[GpuGuard], gpu: int | None) -> ContextManager:
    """The shared side of a GPU's guard; nothing to take on the CPU."""
    return guards[gpu].shared() if guards and gpu is not None else nullcontext()


def contended(guards: list[GpuGuard], gpu: int | None) -> bool:
    """Whether a timing waits for the GPU; never on the CPU."""
    return bool(guards) and gpu is not None and guards[gpu].contended()


class Lease:
    """One side of a GPU's guard (`side()`: shared or exclusive), held for one candidate request and given
    back while the candidate process compiles: it says GpuRelease before Triton compiles and GpuAcquire after,
    and waits for GpuGranted before it touches the GPU again. Held at most once, whatever the process sends
    (a second GpuAcquire is granted at once; a GpuRelease when nothing is held does nothing)."""

    def __init__(self, side: Callable[[], ContextManager]) -> None:
        self.side = side
        self.held: ContextManager | None = None
        self.waited = 0.0  # seconds spent queueing for the guard
        self.released = 0  # times the process gave the guard back

    def __enter__(self) -> "Lease":
        self.take()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.give_back()

    def take(self) -> None:
        if self.held is not None:
            return
        queued = time.perf_counter()
        side = self.side()
        side.__enter__()
        self.held = side
        self.waited += time.perf_counter() - queued

    def give_back(self) -> None:
        side, self.held = self.held, None
        if side is not None:
            side.__exit__(None, None, None)

    def answer(self, message: Any) -> Any:
        """The reply to an interim message of the process (None: no reply)."""
        if isinstance(message, m.GpuRelease):
            self.released += 1
            self.give_back()
            return None
        self.take()
        return m.GpuGranted()


class TimingLease(Lease):
    """The exclusive side, held for a candidate's perf stage and paused while it compiles: checks use the GPU
    meanwhile, but no other timing starts, so one candidate's perf-size inputs are on the GPU at a time
    (letting timings interleave ran a 139 GiB H200 out of memory)."""

    def __init__(self, guard: GpuGuard, priority: float = 0.0) -> None:
        super().__init__(lambda: guard.exclusive(priority))
        self.guard = guard
        self.paused = False

    def take(self) -> None:
        if not self.paused:
            super().take()
            return
        queued = time.perf_counter()
        self.guard.resume()
        self.paused = False
        self.waited += time.perf_counter() - queued

    def give_back(self) -> None:
        if self.held is not None and not self.paused:
            self.guard.pause()
            self.paused = True

    def __exit__(self, *exc: Any) -> None:
        self.paused = False
        super().give_back()
