"""Threads that compile a candidate's kernels side by side during its correctness warm-up (child/warm.py).

A warm-up compiles about 20 kernels one after another: 21 s per candidate on a loaded H100 host (run 27), the
largest item of a candidate's time. Triton's async compile mode hands each compile to an Executor; LLVM and
ptxas release the GIL, so four threads halved one process's warm-up and took a third off sixteen processes'
on sixteen cores (benchmarks/compile_threads_probe.py, run 28).

The threads are a hole in the sandbox unless they are confined too: the process's seccomp filter forbids new
threads, so they must exist before it confines itself, and Landlock and seccomp bind only the thread that
applies them. So each thread applies the same confinement to itself, before any candidate code is imported,
and the pool is used only when every thread reports the layers the main thread has. Candidate code can reach
the pool (it shares the process); whatever it runs there is as confined as the main thread. The pool is shut
down and its threads joined after the correctness warm-up, before the first judged call: a thread kept alive
shows as an extra thread in the warm-up's observation (THREADS).
"""

from __future__ import annotations

import queue
import threading
from concurrent.futures import Executor, Future
from functools import partial
from typing import Any, Callable

COMPILE_THREADS = 4


class ConfinedThreads(Executor):
    def __init__(self, count: int) -> None:
        self.jobs: queue.SimpleQueue = queue.SimpleQueue()
        self.outcomes: queue.SimpleQueue = queue.SimpleQueue()
        self.go = threading.Event()
        self.confinement: Callable[[], list[str]] | None = None
        self.usable = False
        self.threads = [threading.Thread(target=self.work, name=f"kbx-compile-{k}", daemon=True) for k in range(count)]
        for thread in self.threads:
            thread.start()

    def work(self) -> None:
        self.go.wait()
        if self.confinement is None:  # abandoned before the process confined itself
            return
        try:
            self.outcomes.put(self.confinement())
        except BaseException as exc:  # noqa: BLE001 - reported: the pool is then not used
            self.outcomes.put(exc)
            return
        while (job := self.jobs.get()) is not None:
            call, future = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(call())
            except BaseException as exc:  # noqa: BLE001 - the caller's to see, through the future
                future.set_exception(exc)

    def confine(self, apply: Callable[[], list[str]], expected: list[str]) -> bool:
        """Each thread runs `apply` (the process's confinement) on itself; the pool is usable only when every
        one now has the `expected` layers. Otherwise it is shut down."""
        self.confinement = apply
        self.go.set()
        outcomes = [self.outcomes.get() for _ in self.threads]
        self.usable = all(isinstance(o, list) and o == expected for o in outcomes)
        if not self.usable:
            self.shutdown()
        return self.usable

    def native_ids(self) -> list[int]:
        """The kernel's ids of the threads (/proc/self/task), known once each has started."""
        return [thread.native_id for thread in self.threads if thread.native_id is not None]

    def abandon(self) -> None:
        """The process did not confine itself: the threads end without running anything."""
        self.go.set()
        self.shutdown()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        if not self.usable:
            raise RuntimeError("the compile threads are not confined or were shut down")
        future: Future = Future()
        self.jobs.put((partial(fn, *args, **kwargs), future))
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.usable = False
        for _ in self.threads:
            self.jobs.put(None)
        if wait:
            for thread in self.threads:
                thread.join()
