"""The trusted reference process: builds a task's inputs from the run's secret seed and computes the expected
outputs on the evaluation device; on GPUs it also times the PyTorch baselines with the same protocol as the
candidate. It never runs candidate code. Started as ``python -m kernelbenchx.evaluator.reference FD``.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import torch

from kernelbenchx.dataset.registry import get_task
from kernelbenchx.dataset.cases import build_cases, reseeded, run_reference, same_value
from kernelbenchx.dataset.task import map_tensors
from kernelbenchx.evaluator import perf
from kernelbenchx.evaluator.sandbox import Channel


def expected_cases(req: dict) -> dict:
    """Stage-1 and stage-2 inputs with their expected outputs, as CPU tensors."""
    task = get_task(req["task_id"])
    device = req["device"]
    stages = {"stage1": build_cases(task, None), "stage2": build_cases(task, req["seed"])}
    out: dict[str, Any] = {"ok": True, "stages": {}}
    for stage, cases in stages.items():
        rows = []
        for name, call in cases:
            expected = run_reference(task, call.to(device))
            row = {"name": name, "call": call.to_payload(), "expected": map_tensors(expected, lambda t: t.detach().cpu())}
            kwarg = task.contract.seed_kwarg
            if kwarg and kwarg in call.kwargs:
                other = run_reference(task, reseeded(call, kwarg).to(device))
                row["reseed_sensitive"] = not same_value(map_tensors(other, lambda t: t.detach().cpu()),
                                                         row["expected"])
            rows.append(row)
        out["stages"][stage] = rows
    return out


def baseline(req: dict) -> dict:
    task = get_task(req["task_id"])
    fn = task.reference
    if req.get("baseline") == "compile":
        torch._dynamo.reset()
        fn = torch.compile(task.reference)
    with torch.no_grad():
        return perf.measure(req, task, fn, req["device"])


def main() -> None:
    channel = Channel(int(sys.argv[1]))
    handlers = {"cases": expected_cases, "baseline": baseline}
    for request in channel.requests():
        try:
            reply = handlers[request["op"]](request)
        except Exception as exc:  # reported to the parent, which marks the task's reference as broken
            reply = {"ok": False, "error": {"type": type(exc).__name__, "message": str(exc)[:2000]}}
        channel.reply(reply)
    os._exit(0)


if __name__ == "__main__":
    main()
