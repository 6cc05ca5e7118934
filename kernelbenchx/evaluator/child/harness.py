"""The candidate process: confines itself, imports untrusted code and runs it on inputs the parent sends.

It holds no reference implementation, no seed and no expected output. For each call it reports the raw
outputs and what it observed (child/observe.py): launches, every PyTorch operator, threads, whether the
observation layer stayed in place, input changes, aliasing, writes after return. The parent judges.
Started by process.Child as ``python -m kernelbenchx.evaluator.child FD`` (child/__main__.py sets the limits), or
forked from a zygote that imported it already (child/zygote.py).
"""

from __future__ import annotations

import faulthandler
import importlib.util
import os
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any, Callable

import torch

from kernelbenchx.dataset.views import copy_view, guard_intact, transfer
from kernelbenchx.dataset.task import iter_tensors, map_tensors
from kernelbenchx.evaluator import messages as m
from kernelbenchx.evaluator.child import confine, observe, warm
from kernelbenchx.evaluator.child.boot import become_subreaper
from kernelbenchx.evaluator.child.compile_threads import ConfinedThreads
from kernelbenchx.evaluator.child.gpu_lease import CompileLease
from kernelbenchx.evaluator.measure import perf_case, protocol
from kernelbenchx.evaluator.process import Channel

OUTPUT_SCALARS = (bool, int, float, complex, type(None))
MAX_OUTPUT_BYTES = 8 << 30  # no task's output comes near this; a larger one is refused before it is copied
STAGING_BYTES = 4 << 30  # page-locked host memory a candidate process stages for its held outputs, at most
_equal, _clone = torch.equal, torch.Tensor.clone  # taken before candidate code can replace the public ones


class Harness:
    def __init__(self, channel: Channel | None = None, boot: dict[str, float] | None = None) -> None:
        self.boot = boot or {}  # the process's start before its first request (main), sent with DeviceOpened
        self.lease = CompileLease(channel)
        self.channel = channel
        self.entry: Callable[..., Any] | None = None
        self.device, self.opened = "cpu", False
        self.launches = observe.LaunchCounter()
        self.snapshot: dict[str, int] = {}
        # before candidate code: Python signal handlers, armed timers (observe.armed) and the processes there
        # (observe.processes_left); None until a candidate is loaded
        self.handlers: dict[int, Any] | None = None
        self.timers: frozenset[str] = frozenset()
        self.processes: frozenset[int] | None = None
        self.perf_task = None
        self.last_snapshot: Any = None
        self.last_allocations: list[torch.Tensor] = []
        self.held_outputs: dict[int, Any] = {}  # perf case → whole output held back for FetchOutput
        self.staged: dict[int, list[torch.Tensor]] = {}  # perf case → host buffers its held output is copied into
        self.compile_threads: ConfinedThreads | None = None  # for the correctness warm-up (compile_threads.py)
        self.threads_alone: frozenset[str] = frozenset()  # the process's threads before the compile threads started
        self.filtered = False  # the seccomp filter is in force: no confined thread can start a thread

    # -- requests ------------------------------------------------------------------------------------
    def open_device(self, req: m.OpenDevice) -> m.DeviceOpened:
        if self.opened:
            return m.DeviceOpened()
        self.device, self.opened = req.device, True
        phases, clock = boot_phases(self.boot), [time.perf_counter()]

        def lap(name: str) -> None:
            clock.append(time.perf_counter())
            phases[name] = round(clock[-1] - clock[-2], 4)

        import triton  # noqa: F401  (before the candidate, so the guards wrap the real classes)

        torch.set_num_threads(1)
        self.launches.install()
        observe.count_thread_starts()
        if self.device.startswith("cuda"):
            # The CUDA context (and the driver's helper threads) exist before candidate code runs. An allocation
            # and a synchronize create it without launching a kernel: this runs beside other candidates' timings.
            torch.empty(1, device=self.device)
            torch.cuda.synchronize()
            lap("cuda_s")
            warm_triton_driver()
            lap("triton_driver_s")
        return m.DeviceOpened(phases)

    def load(self, req: m.Load) -> Any:
        self.open_device(m.OpenDevice(req.device))  # when the parent did not ask for it first
        phases, started = {}, time.perf_counter()
        if self.device.startswith("cuda"):
            self.lease.install()
            self.perf_task = perf_case.load_task(req.task_id)  # perf inputs come from the task's builders
        self.snapshot = observe.symbol_snapshot(self.trusted())
        self.handlers, self.timers = observe.signal_handlers(), observe.timers_armed()
        become_subreaper()  # what a candidate's child starts and leaves comes back as this process's child
        self.processes = observe.processes()
        path = Path.cwd() / "candidate.py"
        path.write_text(req.code)
        isolation = self.confine(req.compile_threads)
        phases["confine_s"] = round(time.perf_counter() - started, 4)
        observe.install_audit_hook(str(path), str(Path.cwd()))
        observe.block_imports(str(path))
        spec = importlib.util.spec_from_file_location("candidate", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules["candidate"] = module
        started = time.perf_counter()
        observe.GUARDS.reset()
        try:
            spec.loader.exec_module(module)
        except BaseException as exc:  # SystemExit and friends are candidate faults too
            return m.LoadFailed("import", str(exc)[:2000], m.error_info(exc), tuple(observe.GUARDS.refused))
        entry = getattr(module, req.entry, None)
        if not callable(entry):
            return m.LoadFailed("entry", f"{req.entry!r} is not a callable after import")
        self.entry = entry
        return m.Loaded(time.perf_counter() - started, tuple(isolation), phases)

    def confine(self, compile_threads: int) -> list[str]:
        """Confine the process, and the compile threads (started first: new threads are refused after) each
        confine themselves the same way; they are dropped if any cannot."""
        apply = partial(confine.apply, Path.cwd(), self.device, exec_dirs())
        threads = None
        if compile_threads:
            self.threads_alone = observe.thread_ids()
            threads = ConfinedThreads(compile_threads)
        try:
            isolation = apply()
        except BaseException:
            if threads is not None:
                threads.abandon()
            raise
        self.filtered = "seccomp" in isolation
        if threads is not None and threads.confine(apply, isolation):
            self.compile_threads = threads
        return isolation

    def end_compile_threads(self) -> None:
        """Join the compile threads if the correctness warm-up did not; a thread that outlives them can only
        be candidate code's doing, and nothing judged may run beside it."""
        threads, self.compile_threads = self.compile_threads, None
        if threads is None:
            return
        self.join(threads)
        if observe.left_running(self.threads_alone, self.filtered):
            sys.stderr.write("kbx: a compile thread outlived its pool\n")
            os._exit(71)

    def join(self, threads: ConfinedThreads) -> None:
        threads.shutdown()
        # a joined thread leaves /proc/self/task a moment after join() returns; polls, not a clock, bound the wait
        # (the parent may stop this process for a while: parent/host_quiet.py). 400 polls were too few once on a
        # loaded gVisor host: a reference solution was rejected for "1 extra thread" (run 43); 2000 twice on H200
        # hosts (runs 65, 66: a joined compile thread still in /proc, slow or stuck on its way out: not known).
        # Each pool thread is also looked up by its own id: in run 70 the wait ended while a filtered thread was
        # still there ("thread 15", gone a moment later). Why the listing did not hold it is not known (a listing
        # that misses a thread while another ends was not reproduced: 240k listings here, none)
        ids = [str(tid) for tid in threads.native_ids()]
        for _ in range(JOIN_POLLS):
            if all(map(observe.exiting, ids)) and not observe.left_running(self.threads_alone, self.filtered):
                break
            time.sleep(0.005)

    def verify(self, req: m.Verify) -> m.Symbols:
        return m.Symbols(tuple(observe.changed_symbols(self.snapshot, self.trusted())))

    def time_case(self, req: m.TimeCase) -> Any:
        with self.leased(req.lease):
            try:
                channel = self.lease.channel if req.quiet_host else None
                return perf_case.measure_case(req, self.perf_task, self.entry, self.device, observer=self,
                                              held=self.held_outputs,
                                              quiet_host=channel.quiet_host if channel is not None else None,
                                              staged=self.staged.pop(req.case, []) if req.full_output else [])
            finally:
                # the process lives on through its judgement: cached blocks of a perf-size case would sit beside
                # the next timings (run 26, an 80 GB H100: five timings ran out of memory)
                if self.device.startswith("cuda"):
                    torch.cuda.empty_cache()

    def fetch_output(self, req: m.FetchOutput) -> Any:
        if req.case not in self.held_outputs:
            return m.Failed(m.ErrorInfo("KeyError", f"no output of perf case {req.case} is held"))
        return m.HeldOutput(req.case, self.held_outputs.pop(req.case))

    def warm_perf(self, req: m.WarmPerf) -> m.Warmed:
        """Compile what the perf cases will launch (child/warm.py)."""
        if self.perf_task is None:  # the CPU path: the interpreter compiles nothing
            return m.Warmed(0, 0, 0, 0.0)
        warmed = self.warmed(lambda: warm.perf_cases(self.perf_task, self.entry, self.device))
        self.stage_held_outputs(req.hold)
        return warmed

    def warm_build(self, req: m.WarmBuild) -> m.Warmed:
        """Build perf case 0's first input set on the GPU and drop it. A fresh process's first build loads the
        generator's kernels: 50 ms per candidate inside the lane, twice the lane's own build (run 33)."""
        started = time.perf_counter()
        if self.perf_task is None:
            return m.Warmed(1, 0, 0, 0.0)
        built = perf_case.build_case(self.perf_task, 0, 0, self.device)
        if self.device.startswith("cuda"):
            torch.cuda.synchronize()
        del built
        return m.Warmed(1, 1, 0, time.perf_counter() - started)

    def stage_held_outputs(self, layouts: tuple) -> None:
        """Page-locked host buffers for each perf case's held output (`layouts`: the parent's, per case), allocated
        now, off the timing lane: copied into while the lane is held, a fresh pageable buffer cost ~0.8 s per GB in
        page faults (run 33)."""
        budget = STAGING_BYTES
        for index, case in enumerate(layouts):
            self.staged[index], budget = protocol.host_buffers(case, budget)
        if self.channel is not None:  # the largest held output's pages in the reply region, faulted in now too
            self.channel.prefault(max((sum(t.nbytes for t in bufs) for bufs in self.staged.values()), default=0))

    def warm_cases(self, req: m.WarmCases) -> m.Warmed:
        """Compile what the correctness cases will launch (child/warm.py), side by side on the compile threads,
        which end with it: the observation counts threads against the process before they started."""
        threads, self.compile_threads = self.compile_threads, None
        if threads is None:
            return self.warmed(lambda: warm.correctness_calls(req.calls, self.entry, self.device))

        def run() -> warm.WarmReport:
            try:
                return warm.correctness_calls(req.calls, self.entry, self.device, threads)
            finally:
                self.join(threads)

        return self.warmed(run, threads_before=self.threads_alone)

    def warmed(self, run: Callable[[], warm.WarmReport], threads_before: frozenset[str] | None = None
               ) -> m.Warmed:
        """Run a warm-up (it launches nothing, so it compiles without the compile lease); the reply carries
        the tampering facts of its calls: threads, refusals, and whether the compile-only hooks stayed."""
        compiles = self.lease.compiles
        observe.GUARDS.reset()
        before = observe.thread_ids() if threads_before is None else threads_before
        report = run()
        left = observe.left_running(before, self.filtered)
        obs = m.Observation(0, {}, len(before), len(before) + len(left),
                            report.hooks_intact and self.launches.installed(), observe.GUARDS.thread_attempts,
                            tuple(observe.GUARDS.refused), calls=report.cases, new_threads=observe.thread_names(left),
                            armed=self.armed(), processes=self.processes_left())
        compiled = self.lease.compiles - compiles if report.compiled is None else report.compiled
        return m.Warmed(report.cases, report.warmed, compiled, report.seconds, tuple(report.skipped), obs,
                        report.launchers, report.phases)

    def run_case(self, req: m.RunCase) -> m.CaseReport:
        with self.leased(req.lease):
            return self.run_case_leased(req)

    @contextmanager
    def leased(self, allowed: bool) -> Iterator[None]:
        self.lease.active = allowed and self.device.startswith("cuda")
        try:
            yield
        finally:
            self.lease.active = False

    def run_case_leased(self, req: m.RunCase) -> m.CaseReport:
        args, kwargs = to_device(req.call, self.device)
        tensors_in = list(iter_tensors((args, kwargs)))
        pristine = [_clone(t) for t in tensors_in]
        obs, out, error = self.observed_call(args, kwargs, guard=True)
        if error is not None:
            return m.CaseReport(req.name, obs, error=error)
        bad = unsupported_output(out)
        if bad:
            return m.CaseReport(req.name, obs, bad_output=bad)
        compared = out if not req.mutates else (out, *(args[i] for i in req.mutates))
        report = dict(
            output=map_tensors(compared, lambda t: t.detach().cpu().clone()),
            changed_inputs=tuple(i for i, (now, before) in enumerate(zip(tensors_in, pristine))
                                 if not bitwise_equal(now, before)),
            aliased_inputs=tuple(aliased(out, tensors_in)),
            overrun_inputs=tuple(i for i, t in enumerate(tensors_in) if not guard_intact(t)),
            overrun_allocations=sum(not guard_intact(t) for t in self.last_allocations),
            deferred=not bitwise_equal(self.last_snapshot, out))
        extra = []
        if req.repeat:
            again_obs, report["repeat_output"] = self.call_again(req.call, req.mutates)
            report["repeat_failed"] = report["repeat_output"] is None
            extra.append(again_obs)
        if req.reseed:
            call = {**req.call, "kwargs": {**req.call["kwargs"], req.reseed: req.call["kwargs"][req.reseed] + 1}}
            again_obs, report["reseed_output"] = self.call_again(call, req.mutates)
            extra.append(again_obs)
        return m.CaseReport(req.name, obs, extra_observations=tuple(extra), **report)

    # -- observed calls ------------------------------------------------------------------------------
    def observed_call(self, args: tuple, kwargs: dict, fn: Callable[..., Any] | None = None,
                      guard: bool = False) -> tuple[m.Observation, Any, m.ErrorInfo | None]:
        """One call of the entry (or `fn`) under observation; returns what was seen, the output and the
        error (if it raised). With `guard`, what the call allocates gets a guard band (self.last_allocations)."""
        self.poison(args, kwargs)
        recorder = observe.OpRecorder(guard)
        self.last_allocations = recorder.allocations
        self.launches.count, self.launches.recorder = 0, recorder
        observe.GUARDS.reset()
        before, intact, out, error = observe.thread_ids(), False, None, None
        try:
            with recorder:
                try:
                    out = (fn or self.entry)(*args, **kwargs)
                finally:  # whether the call returned or raised: were the observers in place at its end?
                    intact = observe.recorder_innermost(recorder) and self.launches.installed()
            self.last_snapshot = None if unsupported_output(out) else map_tensors(out, lambda t: _clone(t))
            protocol.synchronize(self.device)
        except BaseException as exc:
            error = m.error_info(exc)
        finally:
            self.launches.recorder = None
        return self.observation(recorder, before, intact), out, error

    def observation(self, recorder: observe.OpRecorder, before: frozenset[str], intact: bool) -> m.Observation:
        left = observe.left_running(before, self.filtered)
        return m.Observation(self.launches.count, dict(recorder.ops), len(before), len(before) + len(left), intact,
                             observe.GUARDS.thread_attempts, tuple(observe.GUARDS.refused),
                             new_threads=observe.thread_names(left), armed=self.armed(),
                             processes=self.processes_left())

    def armed(self) -> tuple[str, ...]:
        return () if self.handlers is None else observe.armed(self.handlers, self.timers)

    def processes_left(self) -> tuple[str, ...]:
        return () if self.processes is None else observe.processes_left(self.processes)

    def observe(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[m.Observation, Any]:
        """For perf_case: one observed call of `fn` (the entry, possibly wrapped) that must succeed."""
        obs, out, error = self.observed_call(args, kwargs, fn)
        if error is not None:
            raise RuntimeError(f"{error.type}: {error.message}")
        return obs, out

    def observe_quiet(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[m.Observation, Any]:
        """For perf_case: an observed call that neither synchronizes nor allocates (graph capture allows
        neither); the observation is appended to the measurement's."""
        recorder = observe.OpRecorder()
        self.launches.count, self.launches.recorder = 0, recorder
        observe.GUARDS.reset()
        before = observe.thread_ids()
        try:
            with recorder:
                try:
                    out = fn(*args, **kwargs)
                finally:
                    intact = observe.recorder_innermost(recorder) and self.launches.installed()
        finally:
            self.launches.recorder = None
        return self.observation(recorder, before, intact), out

    def call_again(self, payload: dict, mutates: tuple) -> tuple[m.Observation, Any]:
        """One more observed call on fresh copies of the inputs: what was seen and its compared outputs (raw:
        the parent judges), the outputs None when the call raised or returned something unsupported."""
        args, kwargs = to_device(payload, self.device)
        obs, out, error = self.observed_call(args, kwargs)
        if error is not None or unsupported_output(out):
            return obs, None
        again = out if not mutates else (out, *(args[i] for i in mutates))
        return obs, map_tensors(again, lambda t: t.detach().cpu().clone())

    def poison(self, args: tuple, kwargs: dict) -> None:
        """Leave freed GPU memory full of NaN bytes, so outputs a kernel never writes are garbage, not stale
        results (the CPU path gets the same from glibc's malloc perturbation, set by the parent)."""
        if not self.device.startswith("cuda"):
            return
        sizes = [t.numel() * t.element_size() for t in iter_tensors((args, kwargs))]
        blocks = [torch.empty(max(s, 512), dtype=torch.uint8, device=self.device).fill_(0xFF)
                  for s in sizes + [2 * max(sizes, default=0)]]
        del blocks

    def compile_seconds(self) -> float:
        """For perf_case: seconds spent in Triton compiles so far (the GPU given back meanwhile)."""
        return self.lease.compile_s

    def trusted(self) -> dict[str, Any]:
        return {"kbx.protocol.time_case": protocol.time_case, "kbx.protocol.synchronize": protocol.synchronize,
                "kbx.harness.observed_call": Harness.observed_call,
                "kbx.observe.OpRecorder": observe.OpRecorder.__torch_dispatch__}


TOOLCHAIN = ("gcc", "cc", "clang", "as", "ld", "ld.bfd", "ld.gold", "ldconfig")


def exec_dirs() -> list[str]:
    """What the candidate process may execute, on the GPU path only: Triton compiles every kernel with its
    bundled ptxas and a C launcher per kernel signature with the host's C compiler (and finds libcuda with
    ldconfig). Executed programs inherit the process's Landlock and seccomp restrictions."""
    if not torch.cuda.is_available():
        return []
    import shutil

    import triton

    paths = {str(Path(triton.__file__).resolve().parent / "backends" / "nvidia" / "bin"), "/usr/lib/gcc",
             "/usr/libexec/gcc", "/sbin/ldconfig"}
    if os.environ.get("TRITON_PTXAS_PATH"):
        paths.add(str(Path(os.environ["TRITON_PTXAS_PATH"]).resolve().parent))
    for tool in TOOLCHAIN:
        found = shutil.which(tool)
        if found:
            paths |= {os.path.dirname(found), os.path.dirname(os.path.realpath(found))}
    return sorted(p for p in paths if os.path.exists(p))


def warm_triton_driver() -> None:
    """Initialise Triton's CUDA driver before confinement (it runs ldconfig and builds its utilities once)."""
    import triton

    triton.runtime.driver.active.get_current_device()
    triton.runtime.driver.active.utils  # noqa: B018  (building the utility module is the point)


def to_device(payload: dict, device: str) -> tuple[tuple, dict]:
    """Fresh copies of the case's inputs on the device, views kept as views (same strides and storage
    offsets). Always copies: a second call of an in-place task must start from the original inputs."""
    def fresh(t: torch.Tensor) -> torch.Tensor:
        return copy_view(t) if t.device == torch.device(device) else transfer(t, device)

    return map_tensors(tuple(payload["args"]), fresh), map_tensors(dict(payload["kwargs"]), fresh)


def unsupported_output(value: Any) -> str | None:
    total = sum(t.numel() * t.element_size() for t in iter_tensors(value))
    if total > MAX_OUTPUT_BYTES:
        return f"output of {total / 2 ** 30:.1f} GiB is larger than any task's output"
    return unsupported_type(value)


def unsupported_type(value: Any) -> str | None:
    if isinstance(value, torch.Tensor):
        if type(value) is not torch.Tensor:
            return f"output is a tensor subclass ({type(value).__name__}), not a plain torch.Tensor"
        return None
    if isinstance(value, (tuple, list)):
        for v in value:
            reason = unsupported_type(v)
            if reason:
                return reason
        return None
    if isinstance(value, OUTPUT_SCALARS):
        return None
    return f"unsupported output type {type(value).__name__}"


def bitwise_equal(a: Any, b: Any) -> bool:
    ta, tb = list(iter_tensors(a)), list(iter_tensors(b))
    if len(ta) != len(tb):
        return False
    for x, y in zip(ta, tb):
        if x.shape != y.shape or x.dtype != y.dtype:
            return False
        if x.numel() and not _equal(as_bytes(x), as_bytes(y)):
            return False
    return True


def as_bytes(t: torch.Tensor) -> torch.Tensor:
    return t.detach().contiguous().reshape(-1).view(torch.uint8).to("cpu")


def aliased(out: Any, inputs: list[torch.Tensor]) -> list[int]:
    """Indices of the inputs whose storage an output shares."""
    pointers = {t.untyped_storage().data_ptr() for t in iter_tensors(out) if t.numel()}
    return [i for i, t in enumerate(inputs) if t.numel() and t.untyped_storage().data_ptr() in pointers]


JOIN_POLLS = 6000  # of 5 ms each: up to 30 s of this process's running time, only ever spent by a stuck thread


def boot_phases(boot: dict[str, float]) -> dict[str, float]:
    """Where the process's start went, up to the first request: the interpreter and the imports, the warm-up's
    preparation, and the wait for a candidate (a pooled process); `started_at` lets the parent add the exec."""
    if not boot:
        return {}
    now = time.time()
    return {"started_at": boot["started"], "imports_s": round(boot["imported"] - boot["started"], 4),
            "prepare_s": round(boot["ready"] - boot["imported"], 4), "waited_s": round(now - boot["ready"], 4)}


def main(started: float | None = None, prepared: bool = False) -> None:
    """Serve the parent's requests until it closes the channel. `prepared`: forked from a zygote (child/zygote.py)
    that imported everything and ran warm.prepare() already."""
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # its stack into its stderr log, for the operator
    boot = {"started": started or time.time(), "imported": time.time()}
    if not prepared and os.environ.get("TRITON_INTERPRET") != "1":  # a GPU process will warm up (never on the CPU)
        try:
            warm.prepare()
        except Exception as exc:  # only a head start: the warm-up pays it instead
            sys.stderr.write(f"kbx: warm-up preparation failed: {type(exc).__name__}: {exc}\n")
    boot["ready"] = time.time()
    channel = Channel(int(sys.argv[1]))
    harness = Harness(channel, boot)
    handlers = {m.OpenDevice: harness.open_device, m.Load: harness.load, m.RunCase: harness.run_case,
                m.Verify: harness.verify, m.TimeCase: harness.time_case, m.WarmPerf: harness.warm_perf,
                m.WarmBuild: harness.warm_build, m.WarmCases: harness.warm_cases, m.FetchOutput: harness.fetch_output}
    for request in channel.requests():
        if not isinstance(request, (m.Load, m.Verify, m.WarmCases)):
            harness.end_compile_threads()  # never alive beside a judged call (Verify runs no candidate code)
        handler = handlers.get(type(request))
        if handler is None:
            channel.reply(m.Failed(m.ErrorInfo("ProtocolError", f"unexpected request {type(request).__name__}")))
            continue
        channel.reply(handler(request))
    os._exit(0)
