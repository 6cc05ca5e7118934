"""One perf case, measured inside a timing process (candidate or trusted baseline) on the GPU.

Both processes build the same input sets from the same seeds on the same device, so the parent can compare
their fingerprints, time both on identical data, and re-check the candidate's timed outputs (and the output
of one more call on inputs drawn after timing from a seed it never saw before) against the baseline's.
"""

from __future__ import annotations

import itertools
import math
import time
from typing import Any, Callable

import torch

from kernelbenchx.dataset.task import Call, Task
from kernelbenchx.evaluator import monitor, timing


def load_task(task_id: str) -> Task:
    from kernelbenchx.dataset.registry import get_task

    return get_task(task_id)


def build_case(task: Task, index: int, seed: int, device: str) -> tuple[str, Call]:
    gen = torch.Generator(device=device).manual_seed(seed)
    return next(itertools.islice(task.perf_cases(gen), index, None))


def as_inputs(call: Call) -> tuple[tuple, dict]:
    return call.args, call.kwargs


# A candidate this much slower than the baseline (and slower than SLOW_FLOOR_S per call) is timed with one
# call instead of the full protocol: its speedup is below 1/SLOW_FACTOR either way, and a full protocol would
# hold the GPU's timing lane for minutes. Its output on input set 0 is still re-checked.
SLOW_FACTOR = 100.0
SLOW_FLOOR_S = 1.0
SLOW_METHODS = ("single_call", "first_call_host")


def measure(req: dict, task: Task, fn: Callable[..., Any], device: str,
            launches: monitor.LaunchCounter | None = None, allowed_ops: frozenset[str] = frozenset()) -> dict:
    """Build the case's input sets, check one untimed call, time, and sample outputs for the re-check."""
    try:
        clock, phases = time.perf_counter(), {}
        built = [build_case(task, req["case"], seed, device) for seed in req["seeds"]]
        calls = [call for _, call in built]
        mutates = task.contract.mutates
        if mutates:  # in-place work: time on private copies so every call starts from the same state
            fn = copying(fn, mutates)
        report: dict[str, Any] = {"ok": True, "name": built[0][0], "phases": phases,
                                  "fingerprints": [timing.fingerprint(c.tensors()) for c in calls]}
        phases["build_s"], clock = time.perf_counter() - clock, time.perf_counter()
        first_out = None
        if launches is not None:
            launches.count = 0
            recorder = monitor.OpRecorder()
            with recorder:
                first_out = fn(*calls[0].args, **calls[0].kwargs)
            torch.cuda.synchronize()
            report["launches"] = launches.count
            report["compute_ops"] = recorder.compute_ops(allowed_ops)
        phases["first_call_s"], clock = time.perf_counter() - clock, time.perf_counter()
        protocol = timing.Protocol(**req.get("protocol", {}))
        if task.contract.seed_kwarg or task.contract.deterministic is False:
            # RNG work cannot be replayed from a graph (torch's Philox offsets), and a failed capture leaves
            # the generator unusable: both sides are timed eagerly instead.
            protocol = timing.Protocol(**{**req.get("protocol", {}), "use_graphs": False})
        slow_s = max(SLOW_FLOOR_S, SLOW_FACTOR * req.get("baseline_ms", math.inf) / 1e3)
        timed = time_slow(fn, calls[0], phases["first_call_s"], first_out, slow_s) \
            if launches is not None and phases["first_call_s"] > slow_s else None
        slow, first_out = timed is not None, None  # the first output is not kept alive through the timing
        stats, outputs = timed or timing.time_case(fn, [as_inputs(c) for c in calls], protocol)
        report["timing"] = stats
        report["samples"] = [timing.sample_values(out, req["positions_seed"]) for out in outputs]
        phases["timing_s"], clock = time.perf_counter() - clock, time.perf_counter()
        if req.get("recheck_seed") is not None and not slow:
            fresh = build_case(task, req["case"], req["recheck_seed"], device)[1]
            out = fn(*fresh.args, **fresh.kwargs)
            torch.cuda.synchronize()
            report["recheck"] = timing.sample_values(out, req["positions_seed"])
        if req.get("cost"):
            out = task.reference(*calls[0].clone().args, **calls[0].kwargs) if launches is None else None
            cost = task.cost(calls[0], out) if out is not None else None
            report["cost"] = None if cost is None else {"flops": cost.flops, "bytes": cost.bytes, "unit": cost.unit}
        phases["recheck_s"] = time.perf_counter() - clock
        del calls, built, outputs
        torch.cuda.empty_cache()  # long-lived baseline processes must not hoard the previous case's memory
        return report
    except torch.cuda.OutOfMemoryError as exc:
        torch.cuda.empty_cache()
        return {"ok": False, "error": {"type": "OutOfMemoryError", "message": str(exc)[:500]}}
    except Exception as exc:
        return {"ok": False, "error": {"type": type(exc).__name__, "message": str(exc)[:2000]}}


def time_slow(fn: Callable[..., Any], call: Call, first_s: float, first_out: Any,
              slow_s: float) -> tuple[dict, list[Any]] | None:
    """One measurement of a very slow candidate: the first call's host time when it took over ten seconds
    (compilation is negligible then), else one warm call timed with device events. None when the warm call
    is not slow after all (the first call was mostly compilation): the full protocol applies then."""
    if first_s > 10 * SLOW_FLOOR_S:
        return timing.summarize([first_s * 1e3], "first_call_host", True, first_s), [first_out]
    started = time.perf_counter()
    begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    begin.record()
    out = fn(*call.args, **call.kwargs)
    end.record()
    torch.cuda.synchronize()
    if begin.elapsed_time(end) < slow_s * 1e3:
        return None
    return timing.summarize([begin.elapsed_time(end)], "single_call", True, time.perf_counter() - started), [out]


def copying(fn: Callable[..., Any], mutates: tuple[int, ...]) -> Callable[..., Any]:
    """Wrap an in-place function so each call updates fresh copies of the mutated arguments."""

    def call(*args: Any, **kwargs: Any) -> Any:
        args = tuple(a.clone() if i in mutates and isinstance(a, torch.Tensor) else a for i, a in enumerate(args))
        out = fn(*args, **kwargs)
        return (out, *(args[i] for i in mutates))

    return call
