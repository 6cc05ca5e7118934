"""`kbx golden`: baseline timings of every task on the current GPU, written as the target's golden file."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Callable

import torch

from kernelbenchx.dataset.registry import all_tasks
from kernelbenchx.errors import DeviceError
from kernelbenchx.evaluator import messages as m
from kernelbenchx.evaluator.measure import environment
from kernelbenchx.evaluator.measure import protocol as timing
from kernelbenchx.evaluator.measure.golden import golden_path
from kernelbenchx.evaluator.measure.perf_case import perf_case_count
from kernelbenchx.evaluator.parent.references import TrustedServer
from kernelbenchx.evaluator.parent.context import derive_seed


def measure_golden(target: str, out: Path | None, baselines: tuple[str, ...], task_ids: list[str] | None,
                   progress: Callable[[str], None] = print) -> Path:
    if not torch.cuda.is_available():
        raise DeviceError("kbx golden needs a CUDA GPU", hint="run it on the GPU machine of the target")
    protocol = timing.Protocol()
    server = TrustedServer("cuda", 0)
    tasks = [all_tasks()[t] for t in task_ids] if task_ids else list(all_tasks().values())
    data = {"kbx_golden": 1, "target": target, "environment": environment.fingerprint("cuda"),
            "protocol": asdict(protocol), "tasks": {}}
    path = out or golden_path(target)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        for n, task in enumerate(tasks, start=1):
            data["tasks"][task.id] = [measure_case(server, task, i, baselines, protocol)
                                      for i in range(perf_case_count(task))]
            progress(f"[{n}/{len(tasks)}] {task.id}: "
                     + ", ".join(f"{r.get('eager_ms') or float('nan'):.4f} ms" for r in data["tasks"][task.id]))
            path.write_text(json.dumps(data, indent=1) + "\n")  # after each task: a cut-off run keeps its work
    finally:
        server.close()
    return path


def measure_case(server: TrustedServer, task, index: int, baselines: tuple[str, ...],
                 protocol: timing.Protocol) -> dict:
    seeds = tuple(derive_seed("golden", task.id, index, k) for k in range(protocol.input_sets))
    row: dict = {"case": index, "name": "", "eager_ms": None, "compile_ms": None}
    for name in baselines:
        request = m.TimeCase(task.id, index, seeds, 0, derive_seed("golden-recheck", task.id, index),
                             asdict(protocol), baseline=name, tf32=task.contract.tf32)
        reply = server.call(request, timeout=900)
        if not isinstance(reply, m.PerfReport):
            message = reply.error.message if isinstance(reply, m.Failed) else type(reply).__name__
            row["error"] = f"{name}: {message}"[:300]
            continue
        row[f"{name}_ms"] = reply.timing["median_ms"]
        if name == "eager":
            row["rel_ci95"] = reply.timing["rel_ci95"]
            row["name"] = reply.name
            if reply.cost:
                row["flops"], row["bytes"] = reply.cost["flops"], reply.cost["bytes"]
    return row
