"""The trusted server processes the parent talks to: a small pool computing expected outputs, one timing lane
per GPU, and per GPU a few judges of perf-size outputs (all the same kind of process: trusted/server.py).

References and judges do their GPU work under the GPU's shared guard, never beside a timing: each asks for it
through its channel (GpuAcquire … GpuRelease) once the CPU part is done, the inputs built (references) or the
output received (judges), so that no timing waits for CPU work or a multi-GB pipe. A judgement runs on a
judge, never on the lane that other candidates' timings wait for, and on the GPU: on the CPU the
single-threaded float64 checks of a 2^28-element output took up to 266 s each on an H200 host, and with three
judges per GPU the whole run queued behind them. When the GPU judgement fails (out of memory, a check that
mixes devices), the same judgement runs on the CPU without the guard. Each is restarted once if it dies; a
reference that keeps failing ends the candidates of that task, never the run.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any, Callable, ContextManager

from kernelbenchx.evaluator import messages as m
from kernelbenchx.evaluator.isolation import TRUSTED
from kernelbenchx.evaluator.parent.gpu_guard import Lease
from kernelbenchx.evaluator.process import Child, ChildFailed, Limits
from kernelbenchx.evaluator.reasons import Reason, Rejected

SERVER = "kernelbenchx.evaluator.trusted.server"
JUDGES_PER_GPU = 3
SERVER_LIMITS = Limits(wall_s=24 * 3600, cpu_s=10 ** 6, file_bytes=1 << 30, open_files=4096)


def device_env(device: str, gpu: int | None) -> dict[str, str]:
    """The environment that shows a child exactly one GPU: the parent's GPU number `gpu` (an index into the
    parent's own CUDA_VISIBLE_DEVICES when it has one, as in a Ray actor), or none on the CPU path."""
    if not device.startswith("cuda"):
        return {"TRITON_INTERPRET": "1", "CUDA_VISIBLE_DEVICES": ""}
    index = gpu if gpu is not None else 0
    visible = [d for d in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if d.strip()]
    return {"CUDA_VISIBLE_DEVICES": visible[index] if index < len(visible) else str(index)}


class TrustedServer:
    """A long-lived trusted process (kbx code only), restarted if it dies."""

    def __init__(self, device: str, gpu: int | None = None, cpus: tuple[int, ...] = (),
                 bulk_region: tuple[str, int] | None = None, kernel_cache: Path | None = None) -> None:
        self.device, self.gpu, self.cpus, self.bulk_region = device, gpu, cpus, bulk_region
        self.kernel_cache = kernel_cache  # PyTorch's run-time compiled kernels, shared by the run's trusted servers
        self.child: Child | None = None
        self.lock = threading.Lock()

    def call(self, request: Any, timeout: float, interim: Callable[[Any], Any] | None = None) -> Any:
        with self.lock:
            for attempt in range(2):
                if self.child is None:
                    env = device_env(self.device, self.gpu)
                    if self.cpus:
                        env["KBX_CPUS"] = ",".join(map(str, self.cpus))
                    if self.kernel_cache is not None:
                        env["PYTORCH_KERNEL_CACHE_PATH"] = str(self.kernel_cache)
                    self.child = Child(SERVER, SERVER_LIMITS, TRUSTED, env=env, bulk_region=self.bulk_region)
                    self.child.start()
                try:
                    self.child.restart_clock(SERVER_LIMITS.wall_s)
                    return self.child.call(request, timeout=timeout, interim=interim)
                except ChildFailed:
                    self.child.close()
                    self.child = None
                    if attempt:
                        raise
        raise AssertionError("unreachable")

    def prepare(self, timing: bool = True) -> None:
        """Start the process and its CUDA now, in the background (a failure shows at the next call)."""
        def start() -> None:
            try:
                self.call(m.Prepare(timing), timeout=600)
            except ChildFailed:
                pass

        threading.Thread(target=start, daemon=True).start()

    def close(self) -> None:
        with self.lock:
            if self.child is not None:
                self.child.close()
                self.child = None


class ServerPool:
    """Trusted servers lent to one caller at a time: a caller waits for whichever comes free first. (Picking the
    first idle server, else the first, queued every caller behind one long judgement while the other judges
    stood idle: run 29, where judgements waited up to 130 s.)"""

    def __init__(self, servers: list[TrustedServer]) -> None:
        self.servers = servers
        self.idle = list(servers)
        self.draining = 0
        self.changed = threading.Condition()

    @contextmanager
    def lent(self) -> Iterator[TrustedServer]:
        with self.changed:
            self.changed.wait_for(lambda: self.idle and not self.draining)
            server = self.idle.pop(0)
        try:
            yield server
        finally:
            with self.changed:
                self.idle.append(server)
                self.changed.notify_all()

    @contextmanager
    def drained(self, timeout: float) -> Iterator[bool]:
        """Nothing new lent inside; entered once every lent server has come back (True) or after `timeout`
        (False). A timing out of GPU memory waits so for the judges, whose perf-size tensors stay allocated
        between the turns of a judgement (full set, run 48: two correct optimizers rejected for it)."""
        with self.changed:
            self.draining += 1
            done = self.changed.wait_for(lambda: len(self.idle) == len(self.servers), timeout)
        try:
            yield done
        finally:
            with self.changed:
                self.draining -= 1
                self.changed.notify_all()


def prefetch(get: Callable[[str], Any], task_ids: list[str], threads: int, stop: threading.Event) -> None:
    """Compute the expected outputs of `task_ids` ahead of the candidates, in their order, on `threads`
    background threads (one per reference server), until `stop`. A candidate asked for its task's outputs only
    when it started and waited for them: 5.4 s per candidate on one H100 (run 27), beside idle servers. A
    failure here is left for the candidate that needs the outputs, which gets it from the cache."""
    todo = iter(dict.fromkeys(task_ids))
    lock = threading.Lock()

    def work() -> None:
        while not stop.is_set():
            with lock:
                task_id = next(todo, None)
            if task_id is None:
                return
            try:
                get(task_id)
            except Exception:  # noqa: BLE001 - Rejected and friends are cached and raised to the candidate
                pass

    for _ in range(threads):
        threading.Thread(target=work, daemon=True, name="kbx-prefetch").start()


class ExpectedOutputs:
    """Expected outputs per task, computed once per run by whichever reference server comes free first."""

    def __init__(self, servers: list[TrustedServer], device: str,
                 shared: Callable[[int | None], Callable[[], ContextManager]] | None = None) -> None:
        self.servers, self.device, self.shared = servers, device, shared
        self.pool = ServerPool(servers)
        self.cache: dict[str, m.Expected | Rejected] = {}
        self.lock = threading.Lock()
        self.task_locks: dict[str, threading.Lock] = {}

    def get(self, task_id: str, seed: int) -> m.Expected:
        with self.lock:
            lock = self.task_locks.setdefault(task_id, threading.Lock())
        with lock:
            if task_id not in self.cache:
                with self.pool.lent() as server:
                    self.cache[task_id] = self.compute(server, task_id, seed)
            value = self.cache[task_id]
        if isinstance(value, Rejected):
            raise value
        return value

    def compute(self, server: TrustedServer, task_id: str, seed: int) -> m.Expected | Rejected:
        """The server takes the GPU's shared guard (`shared(gpu)`) only once it has built the inputs: most of
        the seconds this takes are CPU work, and holding the guard for them made every timing wait."""
        guarded = self.shared is not None and server.gpu is not None
        lease = Lease(self.shared(server.gpu) if guarded else nullcontext)
        try:
            reply = server.call(m.ExpectedRequest(task_id, seed, server.device, guarded=guarded), timeout=900,
                                interim=lease.answer)
        except ChildFailed as exc:
            return Rejected(Reason.REFERENCE_FAILED, f"the reference process failed: {exc}")
        finally:
            lease.give_back()
        if isinstance(reply, m.Failed):
            return Rejected(Reason.REFERENCE_FAILED, f"the reference failed: {reply.error.type}: "
                                                     f"{reply.error.message}")
        return reply
