"""Writes the table the run loop starts candidates by (kernelbenchx/evaluator/parent/schedule.py): per task, the
seconds of work of a correct solution (correctness stages + timing held + judgements after the lane), the median
over the kept runs given. Waits (guard, lane, compile slots, references) are left out: they measure the run's
congestion, not the task.

    python benchmarks/expected_work.py benchmarks/runs/2026-11-29-h200/49-* benchmarks/runs/2026-11-29-h200/50-*
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

from kernelbenchx.evaluator.parent.rundir import read_results

from kernelbenchx.evaluator.parent.schedule import TABLE


def work_seconds(record: dict) -> float:
    correct, perf = record["stages"].get("correct", {}), record["stages"].get("perf", {}) or {}
    return (correct.get("seconds") or 0.0) + (perf.get("seconds") or 0.0) + (perf.get("judge_s") or 0.0)


def table(run_dirs: list[Path]) -> dict:
    seen: dict[str, list[float]] = {}
    sources = []
    for run_dir in run_dirs:
        records = [r.to_json() for r in read_results(run_dir)]
        records = [r for r in records if r.get("verdict") == "correct"]
        for record in records:
            seen.setdefault(record["candidate"]["task_id"], []).append(work_seconds(record))
        gpu = records[0]["environment"].get("gpu") if records else None
        sources.append({"run": run_dir.name, "run_id": records[0]["run_id"] if records else None, "gpu": gpu,
                        "correct_records": len(records)})
    return {"what": "seconds of work per task of a correct solution (correct.seconds + perf.seconds + "
                    "perf.judge_s), median over the runs; used only to order candidates' starts",
            "written_by": "benchmarks/expected_work.py", "sources": sources,
            "seconds": {task: round(statistics.median(s), 1) for task, s in sorted(seen.items())}}


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = table([Path(a) for a in sys.argv[1:]])
    TABLE.write_text(json.dumps(out, indent=1) + "\n")
    print(f"{len(out['seconds'])} tasks from {len(out['sources'])} runs -> {TABLE}")
