"""Gives the GPU back to the other candidates while Triton compiles.

The parent holds a side of the GPU's guard for each request it sends (parent/gpu_guard.py): a correctness case
shares the GPU, a timing holds it alone. A kernel's first launch in a fresh process spends seconds compiling it
and building its launcher, CPU work during which other candidates could be timed. So when the parent allows it
(the request's `lease`), every Triton compile is bracketed by GpuRelease and GpuAcquire, and the process
waits for GpuGranted before it launches anything. The launcher is built inside the bracket too (Triton
would build it at the first launch); the module is loaded onto the GPU at the first launch, under the guard.

A candidate that sends these messages itself gains nothing: its own work runs no faster for it, and its
timings are taken only while it holds the guard.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kernelbenchx.evaluator import messages as m
from kernelbenchx.evaluator.process import Channel


class CompileLease:
    def __init__(self, channel: Channel | None) -> None:
        self.channel = channel
        self.active = False  # set for the duration of a request that allows the lease
        self.released = False
        self.compile_s = 0.0  # seconds spent compiling (and waiting to get the GPU back), all requests
        self.compiles = 0  # cache misses compiled, all requests

    def install(self) -> None:
        """Bracket JITFunction._do_compile (every cache miss of a launch, autotuned ones included)."""
        from triton.runtime import jit

        original = jit.JITFunction._do_compile
        lease = self

        def do_compile(fn_self: Any, *args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            lease.compiles += 1
            try:
                with lease.compiling():
                    kernel = original(fn_self, *args, **kwargs)
                    build_launcher(kernel)
            finally:
                lease.compile_s += time.perf_counter() - started
            return kernel

        do_compile.__wrapped__ = original
        jit.JITFunction._do_compile = do_compile

    @contextmanager
    def compiling(self) -> Iterator[None]:
        if not self.active or self.released or self.channel is None:
            yield
            return
        self.channel.reply(m.GpuRelease())
        self.released = True
        try:
            yield
        finally:
            self.released = False
            if not isinstance(self.channel.ask(m.GpuAcquire()), m.GpuGranted):
                os._exit(70)  # the parent is gone or confused: nothing may touch the GPU now


def build_launcher(kernel: Any) -> None:
    """Build the kernel's launcher now (a C module gcc compiles into the process's Triton cache: CPU work, done
    off the GPU's guard like the compile); the module itself is loaded onto the GPU at the first launch, under
    the guard like all GPU work (loading it here ran beside other candidates' timings). A failure is left for
    the launch to raise, as Triton would."""
    if getattr(kernel, "_init_handles", None) is None or hasattr(kernel, "result"):  # async compile: not built yet
        return
    if getattr(kernel, "module", None) is not None:
        return
    try:
        from triton.runtime import driver

        driver.active.launcher_cls(kernel.src, kernel.metadata)
    except Exception:
        pass
