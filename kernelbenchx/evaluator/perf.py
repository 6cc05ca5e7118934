"""One perf case, measured inside a timing process (candidate or trusted baseline) on the GPU.

Both processes build the same input sets from the same seeds on the same device, so the parent can compare
their fingerprints, time both on identical data, and re-check the candidate's timed outputs (and the output
of one more call on inputs drawn after timing from a seed it never saw before) against the baseline's.
"""

from __future__ import annotations

import itertools
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


def measure(req: dict, task: Task, fn: Callable[..., Any], device: str,
            launches: monitor.LaunchCounter | None = None, allowed_ops: frozenset[str] = frozenset()) -> dict:
    """Build the case's input sets, check one untimed call, time, and sample outputs for the re-check."""
    try:
        built = [build_case(task, req["case"], seed, device) for seed in req["seeds"]]
        calls = [call for _, call in built]
        mutates = task.contract.mutates
        if mutates:  # in-place work: time on private copies so every call starts from the same state
            fn = copying(fn, mutates)
        report: dict[str, Any] = {"ok": True, "name": built[0][0], "fingerprints": [timing.fingerprint(c.tensors()) for c in calls]}
        if launches is not None:
            launches.count = 0
            recorder = monitor.OpRecorder()
            with recorder:
                fn(*calls[0].args, **calls[0].kwargs)
            torch.cuda.synchronize()
            report["launches"] = launches.count
            report["compute_ops"] = recorder.compute_ops(allowed_ops | task.contract.torch_ops)
        protocol = timing.Protocol(**req.get("protocol", {}))
        if not task.contract.deterministic:
            # RNG work cannot be replayed from a graph (torch's Philox offsets), and a failed capture leaves
            # the generator unusable: both sides are timed eagerly instead.
            protocol = timing.Protocol(**{**req.get("protocol", {}), "use_graphs": False})
        stats, outputs = timing.time_case(fn, [as_inputs(c) for c in calls], protocol)
        report["timing"] = stats
        report["samples"] = [timing.sample_values(out, req["positions_seed"]) for out in outputs]
        if req.get("recheck_seed") is not None:
            fresh = build_case(task, req["case"], req["recheck_seed"], device)[1]
            out = fn(*fresh.args, **fresh.kwargs)
            torch.cuda.synchronize()
            report["recheck"] = timing.sample_values(out, req["positions_seed"])
        if req.get("cost"):
            out = task.reference(*calls[0].clone().args, **calls[0].kwargs) if launches is None else None
            cost = task.cost(calls[0], out) if out is not None else None
            report["cost"] = None if cost is None else {"flops": cost.flops, "bytes": cost.bytes, "unit": cost.unit}
        del calls, built
        torch.cuda.empty_cache()  # long-lived baseline processes must not hoard the previous case's memory
        return report
    except torch.cuda.OutOfMemoryError as exc:
        torch.cuda.empty_cache()
        return {"ok": False, "error": {"type": "OutOfMemoryError", "message": str(exc)[:500]}}
    except Exception as exc:
        return {"ok": False, "error": {"type": type(exc).__name__, "message": str(exc)[:2000]}}


def copying(fn: Callable[..., Any], mutates: tuple[int, ...]) -> Callable[..., Any]:
    """Wrap an in-place function so each call updates fresh copies of the mutated arguments."""

    def call(*args: Any, **kwargs: Any) -> Any:
        args = tuple(a.clone() if i in mutates and isinstance(a, torch.Tensor) else a for i, a in enumerate(args))
        out = fn(*args, **kwargs)
        return (out, *(args[i] for i in mutates))

    return call
