"""One perf case, measured inside a timing process (the candidate's, or the trusted lane) on the GPU.

Both processes build the same input sets from the same seeds on the same device, so the parent can compare
their fingerprints, time both on identical data, and re-check the candidate's timed outputs (and the output
of one more call on inputs drawn after timing from a seed it never saw before) against the baseline's. In the
candidate process the first call, the calls a CUDA graph captures and the post-timing call run observed
(launches and PyTorch operators are reported); the lane passes no observer.
"""

from __future__ import annotations

import itertools
import math
import time
from typing import Any, Callable, Protocol as TypingProtocol

import torch

from kernelbenchx.dataset.task import Call, Task, iter_tensors
from kernelbenchx.evaluator import messages as m
from kernelbenchx.evaluator.measure import protocol as timing

# A candidate this much slower than the baseline (and slower than SLOW_FLOOR_S per call) is timed with one
# call instead of the full protocol: its speedup is below 1/SLOW_FACTOR either way, and the full protocol (a
# first call, a warm-up, a call per input set, the post-timing call) held the GPU's timing lane for 24 s for
# one 4-second case (run 20: matrix_power_eig at 0.036x). Its output on input set 0 is still re-checked. A
# first call longer than FIRST_CALL_HOST_S is the timing itself (compilation is negligible against it).
SLOW_FACTOR = 10.0
SLOW_FLOOR_S = 0.25
FIRST_CALL_HOST_S = 10.0
SLOW_METHODS = ("single_call", "first_call_host")
# A slow candidate whose first call took under SLOW_REPEAT_BELOW_S is timed SLOW_CALLS times (the median counts):
# one warm call of pseudoinverse_svd read 275 ms in one run and 3339 ms in the other, its first call 0.3 s in both
# (run 60, same host and seed). Longer calls stay single: three 4-second calls would hold the lane for 12 s.
SLOW_CALLS = 3
SLOW_REPEAT_BELOW_S = 1.5
INPUT_SETS_BYTES = 4 << 30  # a perf case's input sets together stay under this, down to one set


class Observer(TypingProtocol):
    def observe(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[m.Observation, Any]:
        """One observed call, synchronized, raising what the call raised."""

    def observe_quiet(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[m.Observation, Any]:
        """One observed call that neither synchronizes nor allocates (legal inside a CUDA graph capture)."""

    def compile_seconds(self) -> float:
        """Seconds spent compiling Triton kernels so far (and waiting for the GPU after compiling)."""


def load_task(task_id: str) -> Task:
    """The one task module a timing process needs (not the whole registry)."""
    import importlib

    category, stem = task_id.split("/")
    return importlib.import_module(f"kernelbenchx.dataset.tasks.{category}.{stem}").TASK


def perf_case_count(task: Task) -> int:
    """The task's perf cases, counted on fake tensors (nothing is allocated)."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode(allow_non_fake_inputs=True):
        return sum(1 for _ in task.perf_cases(torch.Generator().manual_seed(0)))


def input_sets(task: Task, index: int, most: int) -> int:
    """How many input sets perf case `index` is timed over: up to `most`, fewer where that many would not fit
    in INPUT_SETS_BYTES (counted on fake tensors). Rotating buffers matters for inputs that fit in L2; a case
    of several GiB per set gains nothing from it, and three sets of 8 GiB (with the output) ran an 80 GB H100
    out of memory beside the run's other processes."""
    return max(1, min(most, INPUT_SETS_BYTES // max(1, case_bytes(task, index))))


def case_bytes(task: Task, index: int) -> int:
    """The bytes of one input set of perf case `index` (counted on fake tensors: nothing is allocated)."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode(allow_non_fake_inputs=True):
        return sum(t.numel() * t.element_size() for t in build_case(task, index, 0, "cpu")[1].tensors())


def output_layouts(task: Task, index: int) -> tuple[tuple[tuple[int, ...], str], ...]:
    """(shape, dtype name) of each tensor a timed call of perf case `index` returns: the reference's output on fake
    tensors, with the mutated arguments as `copying` adds them. Empty where the reference cannot run on fakes."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    fn = copying(task.reference, task.contract.mutates) if task.contract.mutates else task.reference
    try:
        with FakeTensorMode(allow_non_fake_inputs=True):
            call = build_case(task, index, 0, "cpu")[1]
            out = fn(*call.args, **call.kwargs)
            return tuple((tuple(t.shape), str(t.dtype).removeprefix("torch.")) for t in iter_tensors(out))
    except Exception:  # data-dependent shapes (nonzero, masked_select): the held copy allocates as before
        return ()


def build_case(task: Task, index: int, seed: int, device: str) -> tuple[str, Call]:
    gen = torch.Generator(device=device).manual_seed(seed)
    return next(itertools.islice(task.perf_cases(gen), index, None))


def merge(observations: list[m.Observation]) -> m.Observation:
    ops: dict[str, int] = {}
    for o in observations:
        for k, v in o.ops.items():
            ops[k] = ops.get(k, 0) + v

    def union(field: str) -> tuple:
        return tuple(sorted({item for o in observations for item in getattr(o, field)}))

    return m.Observation(sum(o.launches for o in observations), ops, min(o.threads_before for o in observations),
                         max(o.threads_after for o in observations), all(o.observer_intact for o in observations),
                         sum(o.thread_attempts for o in observations), union("refused"),
                         calls=sum(o.calls for o in observations), new_threads=union("new_threads"),
                         armed=union("armed"), processes=union("processes"))


def measure_case(req: m.TimeCase, task: Task, fn: Callable[..., Any], device: str,
                 observer: Observer | None = None, held: dict[int, Any] | None = None,
                 quiet_host: Callable[[bool], None] | None = None,
                 staged: list[torch.Tensor] = ()) -> m.PerfReport | m.Failed:
    """Build the case's input sets, check one untimed call, time, and sample outputs for the re-check. With
    `req.full_output`, input set 0's output is copied to the host into `held[req.case]` (into the `staged`
    buffers where they fit) and only its digest is reported: the parent fetches it after the lane is given back
    (FetchOutput)."""
    if req.cpus:
        import os

        os.sched_setaffinity(0, set(req.cpus))
    try:
        return Measurement(req, task, fn, device, observer, held, quiet_host, staged).run()
    except torch.cuda.OutOfMemoryError as exc:
        torch.cuda.empty_cache()
        return m.Failed(m.ErrorInfo("OutOfMemoryError", str(exc)[:500]))
    except Exception as exc:
        return m.Failed(m.error_info(exc))


class Measurement:
    def __init__(self, req: m.TimeCase, task: Task, fn: Callable[..., Any], device: str,
                 observer: Observer | None, held: dict[int, Any] | None = None,
                 quiet_host: Callable[[bool], None] | None = None, staged: list[torch.Tensor] = ()) -> None:
        self.req, self.task, self.device, self.observer = req, task, device, observer
        self.quiet_host, self.staged = quiet_host, staged
        self.held = held if held is not None else {}
        self.fn = copying(fn, task.contract.mutates) if task.contract.mutates else fn
        self.observations: list[m.Observation] = []
        self.phases: dict[str, float] = {}
        self.clock = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.phases[name], self.clock = now - self.clock, now

    def call(self, call: Call) -> Any:
        if self.observer is None:
            return self.fn(*call.args, **call.kwargs)
        obs, out = self.observer.observe(self.fn, *call.args, **call.kwargs)
        self.observations.append(obs)
        return out

    def compile_seconds(self) -> float:
        return self.observer.compile_seconds() if self.observer is not None else 0.0

    def quietly(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            obs, out = self.observer.observe_quiet(fn, *args, **kwargs)
            self.observations.append(obs)
            return out

        return call

    def run(self) -> m.PerfReport:
        req = self.req
        built = [build_case(self.task, req.case, seed, self.device) for seed in req.seeds]
        calls = [call for _, call in built]
        fingerprints = tuple(timing.fingerprint(c.tensors()) for c in calls)
        self.lap("build_s")
        compiled = self.compile_seconds()
        first_out = self.call(calls[0])
        torch.cuda.synchronize()
        self.lap("first_call_s")
        # compiling (with the wait for the GPU after it) is not the call's time: it would make a quick kernel
        # look slow enough to be timed by its first call
        self.phases["compile_s"] = self.compile_seconds() - compiled
        self.phases["first_call_s"] = max(0.0, self.phases["first_call_s"] - self.phases["compile_s"])
        protocol = timing.Protocol(**req.protocol)
        slow_s = max(SLOW_FLOOR_S, SLOW_FACTOR * (req.baseline_ms or math.inf) / 1e3)
        timed = time_slow(self.fn, calls[0], self.phases["first_call_s"], first_out, slow_s) \
            if self.observer is not None and self.phases["first_call_s"] > slow_s else None
        slow, first_out = timed is not None, None  # the first output is not kept alive through the timing
        free = free_memory_gib(self.device)
        stats, outputs = timed or timing.time_case(self.fn, [(c.args, c.kwargs) for c in calls], protocol,
                                                   wrap=self.quietly if self.observer is not None else None,
                                                   quiet_host=self.quiet_host, laps=self.phases)
        stats = stats if free is None else {**stats, "free_gib": free}
        samples = tuple(timing.sample_values(out, req.positions_seed) for out in outputs)
        digest = self.hold(outputs[0]) if req.full_output else None  # before any more candidate code runs
        self.lap("timing_s")
        recheck = None
        if not slow and req.recheck:
            fresh = build_case(self.task, req.case, req.recheck_seed, self.device)[1]
            out = self.call(fresh)
            torch.cuda.synchronize()
            recheck = timing.sample_values(out, req.positions_seed)
        cost = self.cost(calls[0]) if self.observer is None else None
        self.lap("recheck_s")
        report = m.PerfReport(built[0][0], fingerprints, stats, samples, dict(self.phases),
                              merge(self.observations) if self.observations else None, recheck, cost, digest)
        del calls, built, outputs
        torch.cuda.empty_cache()  # long-lived lane processes must not hoard the previous case's memory
        return report

    def hold(self, output: Any) -> str:
        """Keep a host copy of `output` for FetchOutput and return its digest; the seconds go to phase hold_s
        (inside timing_s)."""
        started = time.perf_counter()
        self.held[self.req.case] = copy = timing.host_copy(output, self.staged)
        digest = timing.output_digest(copy)
        self.phases["hold_s"] = time.perf_counter() - started
        return digest

    def cost(self, call: Call) -> dict | None:
        out = self.task.reference(*call.clone().args, **call.kwargs)
        cost = self.task.cost(call, out)
        return {"flops": cost.flops, "bytes": cost.bytes, "unit": cost.unit}


def free_memory_gib(device: str) -> float | None:
    """GPU memory free now, every process counted (a driver query, no kernel). cuDNN and cuBLAS pick algorithms
    by the workspace they can get, so an eager baseline can depend on what other processes hold: a conv2d +
    max-pool baseline read 75.6 ms in run 27 and 328 ms in run 29 on the same H100 and inputs."""
    if not device.startswith("cuda"):
        return None
    free, _ = torch.cuda.mem_get_info(torch.device(device))
    return round(free / 2 ** 30, 2)


def time_slow(fn: Callable[..., Any], call: Call, first_s: float, first_out: Any,
              slow_s: float) -> tuple[dict, list[Any]] | None:
    """The measurement of a very slow candidate: the first call's host time when it took over ten seconds
    (compilation is negligible then), else warm calls timed with device events (SLOW_CALLS of them when the first
    call was short enough). None when the first warm call is not slow after all (the first call was mostly
    compilation): the full protocol applies then."""
    if first_s > FIRST_CALL_HOST_S:
        return {**timing.summarize([first_s * 1e3], "first_call_host", True, first_s), "why": "slow_candidate"}, \
            [first_out]
    clock = timing.CLOCK
    started = clock.now()
    samples, out = [], None
    for _ in range(SLOW_CALLS if first_s < SLOW_REPEAT_BELOW_S else 1):
        out = None  # the previous call's output is not kept alive through the next call
        begin, end = clock.new_event(), clock.new_event()
        clock.record(begin)
        out = fn(*call.args, **call.kwargs)
        clock.record(end)
        clock.synchronize()
        samples.append(clock.elapsed_ms(begin, end))
        if samples[0] < slow_s * 1e3:
            return None
    stats = timing.summarize(samples, "single_call", True, clock.now() - started)
    if stats["median_ms"] < slow_s * 1e3:  # the parent would take a fast one-call timing for a forged one
        return None
    return {**stats, "why": "slow_candidate"}, [out]


def copying(fn: Callable[..., Any], mutates: tuple[int, ...]) -> Callable[..., Any]:
    """Wrap an in-place function so each call updates fresh copies of the mutated arguments."""

    def call(*args: Any, **kwargs: Any) -> Any:
        args = tuple(a.clone() if i in mutates and isinstance(a, torch.Tensor) else a for i, a in enumerate(args))
        out = fn(*args, **kwargs)
        return (out, *(args[i] for i in mutates))

    return call
