"""A quiet host for the timings that measure host time.

Work that cannot be captured in a CUDA graph is timed eagerly (measure/protocol.py): torch's linear algebra that
reads `info` back, LAPACK on the CPU behind torch.linalg.eig. Such a sample loop measures the host as much as the
device, and with twenty candidate processes compiling beside it, its baselines moved by up to 40% between two
runs of the same submission (run 30, two H200s: eig 32 vs 45 ms). Reserving cores for the timing (CpuPlan) does
not help where the host ignores CPU affinity (gVisor schedules every thread itself) or where the noise is in the
shared caches.

So while such a loop runs, every other candidate process is stopped (SIGSTOP to its process group, compiler
subprocesses included) and continued after it; the time each was stopped is given back to its clocks
(Child.continued), so no candidate's verdict depends on another's timing. Trusted servers, and candidates
being timed on other GPUs, run on. The timing process asks with HostQuiet messages; a candidate that asks
needlessly only slows the run: each quiet is capped at QUIET_MAX_S, and a candidate's together at
CANDIDATE_QUIET_S.

Off by default (RunConfig.quiet_host): on two H200s under gVisor (run 31) it kept each candidate stopped 7 s on
average, the run wrote 125 records where run 30 wrote 162 in the same time, and the eager baselines moved as much
between the two GPUs as before (eig 42 vs 34 ms). Measured again on Firecracker hosts with forked candidates (run 66,
two one-GPU runs side by side, both quiet): 91 and 90 records at 330 s against 101 for a run without it, and the
host-timed tasks' p90 difference between the pair 13.2%, where pairs without it had 12.8-17.9%.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Callable

from kernelbenchx.evaluator import messages as m
from kernelbenchx.evaluator.process import LIVE, LIVE_LOCK, Child

QUIET_MAX_S = 15.0  # one timing's quiet, at most (an eager sample loop spends 0.5 s, or ten calls of a slow case)
CANDIDATE_QUIET_S = 30.0  # all of one candidate process's quiet: past it, its asks stop no one


class HostQuiet:
    def __init__(self, enabled: bool = True, max_s: float = QUIET_MAX_S,
                 candidate_s: float = CANDIDATE_QUIET_S) -> None:
        self.enabled, self.max_s, self.candidate_s = enabled, max_s, candidate_s
        self.lock = threading.Lock()
        self.holders: dict[Any, tuple[threading.Timer, float]] = {}
        self.spent: dict[int, float] = {}  # id of a candidate process → seconds of quiet it has had
        self.timed: set[int] = set()  # ids of the candidate processes being timed (never stopped)
        self.stopped: dict[int, Child] = {}
        self.quiet_s = 0.0  # seconds the host was kept quiet, all timings
        self.since = 0.0

    def hold(self, owner: Any) -> None:
        """Stop the other candidate processes until `owner` releases (or QUIET_MAX_S passes)."""
        if not self.enabled:
            return
        with self.lock:
            if owner in self.holders or self.spent.get(id(owner), 0.0) >= self.candidate_s:
                return
            timer = threading.Timer(self.max_s, self.release, (owner,))
            timer.daemon = True
            self.holders[owner] = timer, time.monotonic()
            if len(self.holders) == 1:
                self.since = time.monotonic()
            self.stop_others(owner)
        timer.start()

    def release(self, owner: Any) -> None:
        with self.lock:
            held = self.holders.pop(owner, None)
            if held is None:
                return
            timer, since = held
            timer.cancel()
            if isinstance(owner, Child) and owner.candidate:  # a lane (trusted) has no allowance
                self.spent[id(owner)] = self.spent.get(id(owner), 0.0) + time.monotonic() - since
            if not self.holders:
                self.quiet_s += time.monotonic() - self.since
                for child_id in list(self.stopped):
                    self.resume(child_id)

    @contextmanager
    def timing(self, child: Child) -> Iterator[None]:
        """`child` is timed now: it is never stopped (continued at once if it was), and whatever quiet it asked
        for ends with its timing."""
        with self.lock:
            self.timed.add(id(child))
            if id(child) in self.stopped:
                self.resume(id(child))
        try:
            yield
        finally:
            self.release(child)
            with self.lock:
                self.timed.discard(id(child))

    def interim(self, owner: Any, other: Callable[[Any], Any] | None = None) -> Callable[[Any], Any]:
        """An interim-message handler (Child.call) for `owner`'s request: HostQuiet here, the rest to `other`."""
        def answer(message: Any) -> Any:
            if isinstance(message, m.HostQuiet):
                if not message.on:
                    self.release(owner)
                    return None
                self.hold(owner)
                return m.Quieted()
            return other(message) if other is not None else None

        return answer

    def stop_others(self, owner: Any) -> None:
        with LIVE_LOCK:
            children = [c for c in LIVE if c.candidate and c.proc is not None and c is not owner]
        for child in children:
            if id(child) in self.timed or id(child) in self.stopped:
                continue
            if signal_group(child, signal.SIGSTOP):
                child.stopped()
                self.stopped[id(child)] = child

    def resume(self, child_id: int) -> None:
        child = self.stopped.pop(child_id)
        signal_group(child, signal.SIGCONT)
        child.continued()


def signal_group(child: Child, sig: int) -> bool:
    proc = child.proc
    if proc is None or proc.returncode is not None:
        return False
    try:
        os.killpg(proc.pid, sig)
        return True
    except (ProcessLookupError, PermissionError):
        return False
