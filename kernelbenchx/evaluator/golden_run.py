"""`kbx golden`: baseline timings of every task on the current GPU, written as the target's golden file."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Callable

import torch

from kernelbenchx.dataset.registry import all_tasks
from kernelbenchx.evaluator import environment, timing
from kernelbenchx.evaluator.golden import golden_path
from kernelbenchx.evaluator.measure import perf_case_count
from kernelbenchx.evaluator.run import TrustedServer, derive_seed


def measure_golden(target: str, out: Path | None, baselines: tuple[str, ...], task_ids: list[str] | None,
                   progress: Callable[[str], None] = print) -> Path:
    if not torch.cuda.is_available():
        raise RuntimeError("kbx golden needs a CUDA GPU")
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
    request = {"task_id": task.id, "case": index, "cost": True, "positions_seed": 0, "recheck_seed": None,
               "seeds": [derive_seed("golden", task.id, index, k) for k in range(protocol.input_sets)],
               "protocol": asdict(protocol)}
    row: dict = {"case": index, "name": "", "eager_ms": None, "compile_ms": None}
    for name in baselines:
        reply = server.call({**request, "op": "baseline", "baseline": name}, timeout=900)
        if not reply.get("ok"):
            row["error"] = f"{name}: {reply.get('error', {}).get('message', '?')}"[:300]
            continue
        row[f"{name}_ms"] = reply["timing"]["median_ms"]
        if name == "eager":
            row["rel_ci95"] = reply["timing"]["rel_ci95"]
            row["name"] = reply.get("name", "")
            if reply.get("cost"):
                row["flops"], row["bytes"] = reply["cost"]["flops"], reply["cost"]["bytes"]
    return row
