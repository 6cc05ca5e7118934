"""Judging one correctness stage from the candidate's reports, in the trusted parent.

Order of rules for each case: the call raised → runtime_error (or unsupported_on_cpu when the exception came
from Triton's own code and the source uses what the interpreter cannot run); unsupported output → forbidden;
the observations (parent/observations.py); inputs changed, outputs aliasing inputs, writes after return →
forbidden; the task's contract → incorrect with the case and the error statistics; then the repeated call
(within the contract, exact outputs identical) and, for RNG tasks, the reseeded call (must differ).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any, Callable

import torch
import triton

from kernelbenchx.dataset.task import Call, Task, iter_tensors
from kernelbenchx.dataset.views import overrun_text
from kernelbenchx.evaluator import messages as m
from kernelbenchx.evaluator.parent import observations
from kernelbenchx.evaluator.parent.contract_judges import in_parent
from kernelbenchx.evaluator.reasons import Reason, Rejected

TRITON_DIR = str(Path(triton.__file__).resolve().parent) + os.sep
STAGE_REASON = {"stage1": Reason.STAGE1, "stage2": Reason.STAGE2}
ContractJudge = Callable[[Task, Call, dict, Any, Any], "str | None"]  # (task, call, its payload, output, expected)


def judge_case(task: Task, stage: str, row: m.ExpectedRow, report: m.CaseReport,
               interpreter_limits: list[str], contract: ContractJudge = in_parent) -> None:
    """Raise Rejected when the case fails; return quietly when it passes. `contract` computes the task contract's
    verdict on an output (parent/contract_judges.py: here or in a worker process)."""
    where = f"{stage} case {row.name}"
    if report.error is not None:
        raise failure(report.error, where, interpreter_limits, report.observation)
    if report.bad_output:
        raise Rejected(Reason.BAD_OUTPUT, f"{where}: {report.bad_output}")
    for obs in (report.observation, *report.extra_observations):
        observations.judge(obs, where, empty_output(report.output))
    judge_side_effects(task, row, report, where)
    call = Call.from_payload(row.call)
    reason = contract(task, call, row.call, report.output, row.expected)
    if reason:
        raise Rejected(STAGE_REASON[stage], f"{where}: {reason}", case=row.name)
    judge_repeats(task, call, report, row, where, contract)


def failure(error: m.ErrorInfo, where: str, interpreter_limits: list[str], obs: m.Observation | None = None
            ) -> Rejected:
    message = f"{where}: {error.type}: {error.message}"
    if obs is not None:
        observations.judge_tampering(obs, where)  # tampering or a refusal is the verdict, not the exception
    if error.errno in (errno.EPERM, errno.EACCES) or error.type == "PermissionError":
        return Rejected(Reason.SANDBOX_VIOLATION, f"{message} (refused by the sandbox)")
    if error.errno == errno.EFBIG:
        return Rejected(Reason.OUTPUT_LIMIT, f"{message} (the file size limit)")
    if interpreter_limits and raised_inside_triton(error):
        return Rejected(Reason.INTERPRETER_LIMIT, f"{message} (the CPU interpreter cannot run "
                        f"{', '.join(interpreter_limits)}; this candidate needs a GPU)")
    if error.type in ("OutOfMemoryError", "MemoryError"):
        return Rejected(Reason.OUT_OF_MEMORY, message)
    return Rejected(Reason.EXCEPTION, message, traceback=error.traceback)


def raised_inside_triton(error: m.ErrorInfo) -> bool:
    """Whether the innermost frame of the exception is Triton's own code (not the candidate's)."""
    return bool(error.frames) and str(error.frames[-1][0]).startswith(TRITON_DIR)


def judge_side_effects(task: Task, row: m.ExpectedRow, report: m.CaseReport, where: str) -> None:
    """Inputs other than the in-place arguments stay unchanged and are not aliased by outputs."""
    allowed = in_place_indices(row.call["args"], task.contract.mutates)
    changed = [i for i in report.changed_inputs if i not in allowed]
    if changed:
        raise Rejected(Reason.INPUT_MUTATION, f"{where}: inputs were modified (tensor inputs {changed})")
    if [i for i in report.aliased_inputs if i not in allowed]:
        raise Rejected(Reason.OUTPUT_ALIASES_INPUT, f"{where}: an output shares memory with an input")
    overrun = overrun_text(report.overrun_inputs, report.overrun_allocations)
    if overrun:
        raise Rejected(Reason.OUT_OF_BOUNDS_WRITE, f"{where}: {overrun}")
    if report.deferred:
        raise Rejected(Reason.DEFERRED_WORK, f"{where}: outputs changed after the call returned")


def in_place_indices(args: list, mutates: tuple[int, ...]) -> set[int]:
    """Indices (among all tensor inputs, positional first) of the positional arguments updated in place."""
    index, positions = 0, {}
    for i, a in enumerate(args):
        if isinstance(a, torch.Tensor):
            positions[i] = index
        index += sum(1 for _ in iter_tensors(a))
    return {positions[i] for i in mutates if i in positions}


def judge_repeats(task: Task, call: Call, report: m.CaseReport, row: m.ExpectedRow, where: str,
                  contract: ContractJudge = in_parent) -> None:
    """A second call on the same inputs must meet the contract as well: bitwise equal where the task says so
    or the output is exact (integers, booleans), within the tolerance elsewhere. A call with another seed must
    change an RNG task's output."""
    if report.reseed_output is not None and bitwise_equal(report.reseed_output, report.output):
        raise Rejected(Reason.SEED_IGNORED, f"{where}: a different `{task.contract.seed_kwarg}` gave the same "
                                            "output")
    if task.contract.deterministic is False or (report.repeat_output is None and not report.repeat_failed):
        return
    if report.repeat_failed:
        raise Rejected(Reason.NONDETERMINISTIC, f"{where}: a second call on the same inputs failed")
    exact_only = task.contract.deterministic is True
    if not bitwise_equal(report.repeat_output, report.output, exact_only=not exact_only):
        raise Rejected(Reason.NONDETERMINISTIC, f"{where}: two calls on the same inputs gave "
                       + ("different bits" if exact_only else "different integer or boolean results"))
    reason = None if exact_only else contract(task, call, row.call, report.repeat_output, row.expected)
    if reason:
        raise Rejected(Reason.NONDETERMINISTIC, f"{where}: a second call on the same inputs does not meet the "
                                                f"contract: {reason}")


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


def empty_output(value: Any) -> bool:
    """True when every output tensor has no elements: there is no work to launch a kernel for."""
    tensors = list(iter_tensors(value))
    return bool(tensors) and all(t.numel() == 0 for t in tensors)


def has_dtype(value: Any, dtype_name: str) -> bool:
    dtype = getattr(torch, dtype_name)
    return any(t.dtype == dtype for t in iter_tensors(value))
