"""The candidate process: imports untrusted code under guards and runs it on inputs the parent sends.

It holds no reference implementation, no seed and no expected output. It reports raw outputs and what it
observed (launches, torch operators, input mutation, aliasing, deferred writes, threads); the parent judges.
Started by sandbox.Child as ``python -m kernelbenchx.evaluator.worker FD``.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Callable

import torch

from kernelbenchx.dataset.layouts import transfer
from kernelbenchx.dataset.task import iter_tensors, map_tensors
from kernelbenchx.evaluator import monitor, perf, timing
from kernelbenchx.evaluator.sandbox import Channel

OUTPUT_SCALARS = (bool, int, float, complex, type(None))
MAX_OUTPUT_BYTES = 8 << 30  # no task's output comes near this; a larger one is refused before it is copied
# The harness's own references, taken before candidate code can replace the public ones.
_equal, _clone = torch.equal, torch.Tensor.clone


class Harness:
    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self.entry: Callable[..., Any] | None = None
        self.device = "cpu"
        self.launches = monitor.LaunchCounter()
        self.snapshot: dict[str, int] = {}

    # -- requests ------------------------------------------------------------------------------
    def load(self, req: dict) -> dict:
        self.device = req["device"]
        import triton  # noqa: F401  (imported before the candidate so the guards wrap the real classes)

        self.launches.install()
        if self.device.startswith("cuda"):
            # Create the CUDA context now: the driver's helper threads must not be counted against a candidate
            # whose first call is the first CUDA work of the process (a task without tensor inputs).
            torch.zeros(1, device=self.device)
            torch.cuda.synchronize()
        # Perf inputs are built here from the task's builders, before candidate code exists in this process.
        self.perf_task = perf.load_task(req["task_id"]) if self.device.startswith("cuda") else None
        self.snapshot = monitor.symbol_snapshot(self.trusted())
        path = Path.cwd() / "candidate.py"
        path.write_text(req["code"])
        monitor.install_audit_hook(str(path), str(Path.cwd()))
        monitor.block_imports(str(path))
        spec = importlib.util.spec_from_file_location("candidate", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules["candidate"] = module
        started = time.perf_counter()
        try:
            spec.loader.exec_module(module)
        except BaseException as exc:  # SystemExit and friends are candidate faults too
            return error_reply("import", exc)
        entry = getattr(module, req["entry"], None)
        if not callable(entry):
            return {"ok": False, "stage": "entry", "message": f"{req['entry']!r} is not a callable after import"}
        self.entry = entry
        return {"ok": True, "import_s": time.perf_counter() - started}

    def run(self, req: dict) -> dict:
        """One correctness case (the parent sends them one at a time, between timings on the GPU)."""
        case = req["case"]
        return {"ok": True, "case": self.run_case(case, req["mutates"], frozenset(req["allowed_ops"]),
                                                  repeat=case.get("repeat", False))}

    def verify(self, req: dict) -> dict:
        return {"ok": True, "changed": monitor.changed_symbols(self.snapshot, self.trusted())}

    def perf(self, req: dict) -> dict:
        return perf.measure(req, self.perf_task, self.entry, self.device, self.launches)

    # -- one case ------------------------------------------------------------------------------
    def run_case(self, case: dict, mutates: list[int], allowed: frozenset[str], repeat: bool) -> dict:
        args, kwargs = to_device(case["call"], self.device)
        pristine = [_clone(t) for t in iter_tensors((args, kwargs))]
        threads_before = monitor.thread_count()
        observed = self.observed_call(args, kwargs)
        if "error" in observed:
            return {"name": case["name"], "ok": False, "error": observed["error"]}
        out = observed["out"]
        report = {"name": case["name"], "ok": True, "launches": observed["launches"],
                  "compute_ops": observed["recorder"].compute_ops(allowed),
                  "threads_added": monitor.thread_count() - threads_before}
        bad_type = unsupported_output(out)
        if bad_type:
            return {**report, "ok": False, "error": {"type": "bad_output", "message": bad_type, "traceback": ""}}
        report["deferred"] = not bitwise_equal(observed["snapshot"], out)
        tensors_in = list(iter_tensors((args, kwargs)))
        mutated_positions = positional_tensor_indices(args)
        allowed_mutation = {mutated_positions[i] for i in mutates if i in mutated_positions}
        report["mutated_inputs"] = [i for i, (now, before) in enumerate(zip(tensors_in, pristine))
                                    if i not in allowed_mutation and not bitwise_equal(now, before)]
        report["aliased"] = aliases(out, [t for i, t in enumerate(tensors_in) if i not in allowed_mutation])
        compared = out if not mutates else (out, *(args[i] for i in mutates))
        report["output"] = map_tensors(compared, lambda t: t.detach().cpu().clone())
        if repeat:
            report["repeat_output"] = self.call_again(case, mutates)
        if case.get("reseed"):
            kwarg = case["reseed"]
            call = {**case["call"], "kwargs": {**case["call"]["kwargs"], kwarg: case["call"]["kwargs"][kwarg] + 1}}
            report["reseed_output"] = self.call_again({**case, "call": call}, mutates)
        return report

    def observed_call(self, args: tuple, kwargs: dict) -> dict:
        self.launches.count = 0
        recorder = monitor.OpRecorder()
        try:
            with recorder:
                out = self.entry(*args, **kwargs)
            snapshot = map_tensors(out, lambda t: t.clone() if isinstance(t, torch.Tensor) else t) \
                if not unsupported_output(out) else None
            timing.synchronize(self.device)
        except BaseException as exc:
            return {"error": error_reply("call", exc)["error"]}
        return {"out": out, "launches": self.launches.count, "recorder": recorder, "snapshot": snapshot}

    def call_again(self, case: dict, mutates: list[int]) -> Any:
        """The compared outputs of one more call on fresh copies of the case's inputs (raw: the parent judges),
        or None when that call raised or returned something unsupported."""
        args, kwargs = to_device(case["call"], self.device)
        try:
            out = self.entry(*args, **kwargs)
            timing.synchronize(self.device)
        except BaseException:
            return None
        if unsupported_output(out):
            return None
        again = out if not mutates else (out, *(args[i] for i in mutates))
        return map_tensors(again, lambda t: t.detach().cpu().clone())

    def trusted(self) -> dict[str, Any]:
        return {"kbx.timing.time_case": timing.time_case, "kbx.timing.synchronize": timing.synchronize,
                "kbx.worker.run_case": Harness.run_case, "kbx.monitor.OpRecorder": monitor.OpRecorder.__torch_dispatch__}


def to_device(payload: dict, device: str) -> tuple[tuple, dict]:
    """The case's inputs on the device, views kept as views (same strides and storage offsets)."""
    args = map_tensors(tuple(payload["args"]), lambda t: transfer(t, device))
    kwargs = map_tensors(dict(payload["kwargs"]), lambda t: transfer(t, device))
    return args, kwargs


def positional_tensor_indices(args: tuple) -> dict[int, int]:
    """Maps positional argument index → index among all input tensors (args come first)."""
    mapping, k = {}, 0
    for i, a in enumerate(args):
        if isinstance(a, torch.Tensor):
            mapping[i] = k
        k += sum(1 for _ in iter_tensors(a))
    return mapping


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


def aliases(out: Any, inputs: list[torch.Tensor]) -> bool:
    pointers = {t.untyped_storage().data_ptr() for t in inputs if t.numel()}
    return any(t.numel() and t.untyped_storage().data_ptr() in pointers for t in iter_tensors(out))


def error_reply(stage: str, exc: BaseException) -> dict:
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-3000:]
    frames = [(os.path.realpath(f.filename), f.lineno, f.name) for f in traceback.extract_tb(exc.__traceback__)]
    return {"ok": False, "stage": stage, "error": {"type": type(exc).__name__, "message": str(exc)[:2000],
                                                   "traceback": tb, "frames": frames[-20:]}}


def main() -> None:
    channel = Channel(int(sys.argv[1]))
    harness = Harness(channel)
    handlers = {"load": harness.load, "run": harness.run, "verify": harness.verify, "perf": harness.perf}
    for request in channel.requests():
        handler = handlers.get(request.get("op"))
        if handler is None:
            channel.reply({"ok": False, "message": f"unknown op {request.get('op')!r}"})
            continue
        channel.reply(handler(request))
    os._exit(0)


if __name__ == "__main__":
    main()
