"""Judging the candidate's reports for one correctness stage, in the trusted parent.

Order of rules for each case: the call raised → runtime_error; no Triton launch → no_triton_kernel;
PyTorch compute outside Triton → forbidden; inputs changed, outputs aliasing inputs, writes after return,
extra threads → forbidden; different result on a second identical call → incorrect; finally the task's
numerical contract → incorrect with the case and the error statistics.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import torch
import triton

from kernelbenchx.dataset.task import Call, Task, iter_tensors
from kernelbenchx.evaluator.verdict import Rejected, Verdict

TRITON_DIR = str(Path(triton.__file__).resolve().parent) + os.sep


def judge_stage(task: Task, stage: str, expected: list[dict], reports: list[dict],
                interpreter_limits: list[str]) -> dict:
    """Raise Rejected for the first failing case; return the stage log when every case passes."""
    by_name = {row["name"]: row for row in expected}
    for report in reports:
        row = by_name[report["name"]]
        where = f"{stage} case {report['name']}"
        judge_behaviour(report, where, interpreter_limits, task)
        call = Call.from_payload(row["call"])
        reason = task.judge(call, report["output"], row["expected"])
        if reason:
            raise Rejected(Verdict.INCORRECT, stage, f"{where}: {reason}", case=report["name"])
        judge_repeats(task, call, report, row, where)
    if len(reports) < len(expected):
        missing = [r["name"] for r in expected[len(reports):]]
        raise Rejected(Verdict.CRASH, "missing_reports", f"{stage}: no report for cases {missing}")
    return {"cases": len(expected), "passed": len(expected),
            "launches": [r["launches"] for r in reports]}


def judge_behaviour(report: dict, where: str, interpreter_limits: list[str], task: Task) -> None:
    if not report.get("ok"):
        error = report.get("error", {})
        message = f"{where}: {error.get('type', 'Error')}: {error.get('message', '')}"
        if interpreter_limits and raised_inside_triton(error):
            raise Rejected(Verdict.UNSUPPORTED_ON_CPU, "interpreter_limit",
                           f"{message} (the CPU interpreter cannot run {', '.join(interpreter_limits)}; "
                           "this candidate needs a GPU)")
        if error.get("type") == "bad_output":
            raise Rejected(Verdict.FORBIDDEN, "bad_output", message)
        if "kbx sandbox:" in error.get("message", ""):
            raise Rejected(Verdict.FORBIDDEN, "sandbox_violation", message)
        if "File too large" in error.get("message", ""):
            raise Rejected(Verdict.RUNTIME_ERROR, "output_limit", message)
        if error.get("type") in ("OutOfMemoryError", "MemoryError") or "allocate" in error.get("message", ""):
            raise Rejected(Verdict.RUNTIME_ERROR, "out_of_memory", message)
        raise Rejected(Verdict.RUNTIME_ERROR, "exception", message, traceback=error.get("traceback", ""))
    if report["launches"] == 0 and not empty_output(report.get("output")):
        raise Rejected(Verdict.NO_TRITON_KERNEL, "no_launch", f"{where}: the call launched no Triton kernel")
    if report["compute_ops"]:
        raise Rejected(Verdict.FORBIDDEN, "torch_compute",
                       f"{where}: PyTorch computed outside Triton: {', '.join(report['compute_ops'])}",
                       ops=report["compute_ops"])
    checks = (("mutated_inputs", "input_mutation", "inputs were modified (tensor inputs {value})"),
              ("aliased", "output_aliases_input", "an output shares memory with an input"),
              ("deferred", "deferred_work", "outputs changed after the call returned"),
              ("threads_added", "threads", "the call left {value} extra thread(s) running"))
    for key, code, text in checks:
        value = report.get(key)
        if value:
            raise Rejected(Verdict.FORBIDDEN, code, f"{where}: {text.format(value=value)}")


def judge_repeats(task: Task, call: Call, report: dict, row: dict, where: str) -> None:
    """A second call on the same inputs must meet the contract as well: bitwise equal where the task says so
    or the output is exact (integers, booleans), within the tolerance elsewhere. A call with another seed must
    change an RNG task's output."""
    if "reseed_output" in report and bitwise_equal(report["reseed_output"], report["output"]):
        raise Rejected(Verdict.INCORRECT, "seed_ignored",
                       f"{where}: a different `{task.contract.seed_kwarg}` gave the same output")
    if "repeat_output" not in report or task.contract.deterministic is False:
        return
    again = report["repeat_output"]
    if again is None:
        raise Rejected(Verdict.INCORRECT, "nondeterministic", f"{where}: a second call on the same inputs failed")
    exact_only = task.contract.deterministic is True
    if not bitwise_equal(again, report["output"], exact_only=not exact_only):
        raise Rejected(Verdict.INCORRECT, "nondeterministic", f"{where}: two calls on the same inputs gave "
                       + ("different bits" if exact_only else "different integer or boolean results"))
    reason = None if exact_only else task.judge(call, again, row["expected"])
    if reason:
        raise Rejected(Verdict.INCORRECT, "nondeterministic", f"{where}: a second call on the same inputs "
                       f"does not meet the contract: {reason}")


def bitwise_equal(a: Any, b: Any, exact_only: bool = False) -> bool:
    """Same structure and bits; with exact_only, floating and complex tensors are not compared."""
    ta, tb = list(iter_tensors(a)), list(iter_tensors(b))
    if len(ta) != len(tb):
        return False
    for x, y in zip(ta, tb):
        if x.shape != y.shape or x.dtype != y.dtype:
            return False
        if exact_only and (x.is_floating_point() or x.is_complex()):
            continue
        if x.numel() and not torch.equal(x.contiguous().view(-1).view(torch.uint8),
                                          y.contiguous().view(-1).view(torch.uint8)):
            return False
    return True


def raised_inside_triton(error: dict) -> bool:
    """Whether the innermost frame of the call's exception is Triton's own code (not the candidate's)."""
    frames = error.get("frames") or []
    return bool(frames) and str(frames[-1][0]).startswith(TRITON_DIR)


def empty_output(value: Any) -> bool:
    """True when every output tensor has no elements: there is no work to launch a kernel for."""
    tensors = list(iter_tensors(value))
    return bool(tensors) and all(t.numel() == 0 for t in tensors)


def has_dtype(value: Any, dtype_name: str) -> bool:
    dtype = getattr(torch, dtype_name)
    return any(t.dtype == dtype for t in iter_tensors(value))
