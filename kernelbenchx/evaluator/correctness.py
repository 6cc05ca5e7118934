"""Judging the candidate's reports for one correctness stage, in the trusted parent.

Order of rules for each case: the call raised → runtime_error; no Triton launch → no_triton_kernel;
PyTorch compute outside Triton → forbidden; inputs changed, outputs aliasing inputs, writes after return,
extra threads → forbidden; different result on a second identical call → incorrect; finally the task's
numerical contract → incorrect with the case and the error statistics.
"""

from __future__ import annotations

from typing import Any

import torch

from kernelbenchx.dataset.task import Call, Task, iter_tensors
from kernelbenchx.evaluator.verdict import Rejected, Verdict

INTERPRETER_LIMITS = ("libdevice", "inline_asm", "inline asm", "not supported in interpreter mode", "active drivers",
                      "interpreter does not support")


def judge_stage(task: Task, stage: str, expected: list[dict], reports: list[dict], on_cpu: bool) -> dict:
    """Raise Rejected for the first failing case; return the stage log when every case passes."""
    by_name = {row["name"]: row for row in expected}
    for report in reports:
        row = by_name[report["name"]]
        where = f"{stage} case {report['name']}"
        judge_behaviour(report, where, on_cpu, task)
        call = Call.from_payload(row["call"])
        reason = task.judge(call, report["output"], row["expected"])
        if reason:
            raise Rejected(Verdict.INCORRECT, stage, f"{where}: {reason}", case=report["name"])
    if len(reports) < len(expected):
        missing = [r["name"] for r in expected[len(reports):]]
        raise Rejected(Verdict.CRASH, "missing_reports", f"{stage}: no report for cases {missing}")
    return {"cases": len(expected), "passed": len(expected),
            "launches": [r["launches"] for r in reports]}


def judge_behaviour(report: dict, where: str, on_cpu: bool, task: Task) -> None:
    if not report.get("ok"):
        error = report.get("error", {})
        message = f"{where}: {error.get('type', 'Error')}: {error.get('message', '')}"
        if on_cpu and any(s in error.get("message", "") for s in INTERPRETER_LIMITS):
            raise Rejected(Verdict.UNSUPPORTED_ON_CPU, "interpreter_limit", message)
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
    if report.get("reseed_equal"):
        raise Rejected(Verdict.INCORRECT, "seed_ignored",
                       f"{where}: a different `{task.contract.seed_kwarg}` gave the same output")
    if report.get("repeat_equal") is False and task.contract.deterministic:
        raise Rejected(Verdict.INCORRECT, "nondeterministic",
                       f"{where}: two calls on the same inputs gave different results")


def empty_output(value: Any) -> bool:
    """True when every output tensor has no elements: there is no work to launch a kernel for."""
    tensors = list(iter_tensors(value))
    return bool(tensors) and all(t.numel() == 0 for t in tensors)


def has_dtype(value: Any, dtype_name: str) -> bool:
    dtype = getattr(torch, dtype_name)
    return any(t.dtype == dtype for t in iter_tensors(value))
