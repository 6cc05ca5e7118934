"""A correctness warm-up's compiles one by one vs side by side on threads (child/warm.py side_by_side), in one
process on the GPU, for kept solutions: warm-up seconds, kernels compiled, and compiles left for the real calls
afterwards (0: the warm-up covered them). Prints one JSON line.

    python benchmarks/compile_threads_probe.py seq|threads:N TASK[,TASK...]

Run 28 (benchmarks/runs/2026-11-28-h100/28-compile-threads-probe) ran it once with every 8th of the first 60
solutions, then in 16 processes at once (3 tasks each, the 16 cores busy), for `seq` and `threads:4`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

SOLUTIONS = Path(__file__).resolve().parents[1] / "kernelbenchx" / "solutions"


def entry_of(task: Any) -> Callable[..., Any]:
    spec = importlib.util.spec_from_file_location("solution_" + task.stem, SOLUTIONS / f"{task.id}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, task.entry)


def compiles_during(run: Callable[[], None]) -> int:
    from triton.runtime import jit

    original, count = jit.JITFunction._do_compile, [0]

    def counted(*args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        return original(*args, **kwargs)

    jit.JITFunction._do_compile = counted
    try:
        run()
    finally:
        jit.JITFunction._do_compile = original
    return count[0]


def probe(task_id: str, pool: ThreadPoolExecutor | None) -> dict:
    import torch

    from kernelbenchx.dataset.registry import get_task
    from kernelbenchx.evaluator.child import warm
    from kernelbenchx.evaluator.parent.warm_up import layouts
    from kernelbenchx.evaluator.trusted.server import build_cases

    task = get_task(task_id)
    entry = entry_of(task)
    calls = [call for seed in (None, 12345) for _, call in build_cases(task, seed)]
    distinct = {repr(p): p for p in (layouts(call.to_payload()) for call in calls)}
    started = time.perf_counter()
    report = warm.correctness_calls(tuple(distinct.values()), entry, "cuda", pool)
    warm_s = time.perf_counter() - started

    def real_calls() -> None:
        for call in calls:
            on_gpu = call.to("cuda")
            entry(*on_gpu.args, **on_gpu.kwargs)
        torch.cuda.synchronize()

    return {"task": task_id, "warm_s": round(warm_s, 2), "compiled": report.compiled,
            "skipped": len(report.skipped), "compiles_after": compiles_during(real_calls)}


def main() -> None:
    mode, tasks = sys.argv[1], sys.argv[2].split(",")
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()  # nothing compiled before counts
    import torch

    torch.empty(1, device="cuda")
    pool = ThreadPoolExecutor(int(mode.split(":")[1])) if mode.startswith("threads:") else None
    started = time.perf_counter()
    rows = [probe(task_id, pool) for task_id in tasks]
    print(json.dumps({"mode": mode, "total_warm_s": round(sum(r["warm_s"] for r in rows), 2),
                      "wall_s": round(time.perf_counter() - started, 1), "rows": rows}))


if __name__ == "__main__":
    main()
