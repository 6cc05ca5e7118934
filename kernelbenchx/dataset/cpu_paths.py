"""Expected outputs must not depend on which vector unit the CPU that computes them has.

`python -m kernelbenchx.dataset.cpu_paths cases CASES.pt` writes every task's stage-1 inputs (built once: torch's
own random draws differ in the last bit between code paths); `python -m kernelbenchx.dataset.cpu_paths expected
CASES.pt OUT.pt` computes their expected outputs; run the second once with the machine's default ATen CPU
capability and once with ``ATEN_CPU_CAPABILITY=default`` (scalar code paths) and compare with `differences`. NaN and ±inf must sit at the same positions (special values are part of
the contract: dataset/refs.py pins them where torch's paths disagree), integers must be identical, and the
finite floating values of one path must meet the task's own contract against the other (vectorized and
scalar reductions sum in different orders; the contract already admits any such order).
"""

from __future__ import annotations

import sys
from typing import Any

import torch

from kernelbenchx.dataset.cases import build_cases, run_reference
from kernelbenchx.dataset.task import iter_tensors


def stage1_inputs(task_ids: list[str] | None = None) -> dict[str, list[tuple[str, dict]]]:
    from kernelbenchx.dataset.registry import all_tasks

    tasks = [all_tasks()[t] for t in task_ids] if task_ids else list(all_tasks().values())
    out = {}
    for task in tasks:
        if task.check is not None and task.contract.seed_kwarg:  # random outputs: judged by law, not values
            continue
        out[task.id] = [(name, call.to_payload()) for name, call in build_cases(task, None)]
    return out


def expected_outputs(inputs: dict[str, list[tuple[str, dict]]]) -> dict[str, list[Any]]:
    from kernelbenchx.dataset.registry import all_tasks
    from kernelbenchx.dataset.task import Call

    out = {}
    for task_id, rows in inputs.items():
        task = all_tasks()[task_id]
        try:
            out[task_id] = [(name, run_reference(task, Call.from_payload(payload))) for name, payload in rows]
        except Exception as exc:  # a broken reference is the selfcheck's business; note it and go on
            out[task_id] = [("error", f"{type(exc).__name__}: {exc}")]
    return out


def differences(a: dict[str, list[Any]], b: dict[str, list[Any]], inputs: dict[str, list[tuple[str, dict]]]
                ) -> list[str]:
    from kernelbenchx.dataset.registry import all_tasks
    from kernelbenchx.dataset.task import Call

    problems = []
    for task_id, rows in a.items():
        other = dict(b.get(task_id, []))
        calls = {name: Call.from_payload(payload) for name, payload in inputs.get(task_id, [])}
        for name, x in rows:
            y = other.get(name, "computed on one path only")
            if isinstance(x, str) or isinstance(y, str):
                if x != y:
                    problems.append(f"{task_id} {name}: {x if isinstance(x, str) else y}")
                continue
            for i, (s, t) in enumerate(zip(iter_tensors(x), iter_tensors(y))):
                if s.dtype != t.dtype or s.shape != t.shape:
                    problems.append(f"{task_id} {name}[{i}]: {s.dtype}{list(s.shape)} vs {t.dtype}{list(t.shape)}")
                elif not same_specials(s, t):
                    problems.append(f"{task_id} {name}[{i}]: {describe(s, t)}")
            if name in calls and not problems_for(problems, task_id, name):
                reason = all_tasks()[task_id].judge(calls[name], y, x)
                if reason:
                    problems.append(f"{task_id} {name}: the paths disagree beyond the contract: {reason}")
    return problems


def problems_for(problems: list[str], task_id: str, name: str) -> bool:
    return any(p.startswith(f"{task_id} {name}") for p in problems)


def same_specials(s: torch.Tensor, t: torch.Tensor) -> bool:
    """NaN and ±inf at the same positions (and of the same sign); integers and booleans identical."""
    if s.is_complex():
        s, t = torch.view_as_real(s), torch.view_as_real(t)
    if not s.is_floating_point():
        return bool(torch.equal(s, t))
    inf = torch.isinf(s) | torch.isinf(t)
    return bool(torch.equal(torch.isnan(s), torch.isnan(t)) and torch.equal(s[inf], t[inf]))


def describe(s: torch.Tensor, t: torch.Tensor) -> str:
    if s.is_complex():
        s, t = torch.view_as_real(s), torch.view_as_real(t)
    nan = (torch.isnan(s) != torch.isnan(t)).sum().item() if s.is_floating_point() else 0
    inf = (torch.isinf(s) != torch.isinf(t)).sum().item() if s.is_floating_point() else 0
    finite = torch.isfinite(s) & torch.isfinite(t) if s.is_floating_point() else torch.ones_like(s, dtype=torch.bool)
    diff = (s[finite].double() - t[finite].double()).abs().max().item() if finite.any() else 0.0
    return f"{nan} NaN and {inf} inf positions differ; max finite difference {diff:.3g}"


if __name__ == "__main__":
    if sys.argv[1] == "cases":
        torch.save(stage1_inputs(sys.argv[3:] or None), sys.argv[2])
    else:
        torch.save(expected_outputs(torch.load(sys.argv[2], weights_only=False)), sys.argv[3])
