"""Where a run's time went: seconds summed over its candidates, from the fields every record carries.

    python benchmarks/run_breakdown.py RUN_DIR [RUN_DIR ...]      # one JSON line per run

Lane = the GPU's timing lane (`perf.seconds` held, `lane_wait_s + lane_rewait_s` queued); guard = the GPU's
shared guard the correctness stages queue for behind timings; warm = the perf warm-up (off the lane);
correct_warm = the correctness warm-up (right after the import; `correct_warm_phases`: its time to the first case
called, to all called, to all compiled, and its CPU seconds); `judge_phases`: the judgements after the lane
(fetch, digest, the trusted judge's call; inside it, its guarded turn, guard waits, yields, host-only step).
`boot_phases`: the candidate processes' starts (exec, imports, the warm-up's preparation, then the wait of a pooled
process for its candidate); in a run's first wave `device_open` waits for the rest of the boot instead.
`lane_phases`: the lane's work inside the candidate's and the baseline's processes, per phase (`phases_s`: build,
first call, compile, timing and its warm-up, capture, sample loop and held-output steps, recheck).
`finished_by`: records done by each minute, counted from the first candidate's start (records say when they
finished to the second): how two runs that were drained at different times compare. `usage`: the run's
`KBX_USAGE_LOG` (wall, the parent's and its children's CPU seconds) when kept beside it as usage.json.
"""

from __future__ import annotations

import json
import statistics
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path

from kernelbenchx.evaluator.parent.rundir import read_results


def breakdown(run_dir: Path) -> dict:
    records = [r.to_json() for r in read_results(run_dir)]
    totals = dict.fromkeys(("device_open", "device_open_wait", "process_start", "reference_wait", "correct_slot_wait",
                            "correct_warm", "correct_warm_compiles", "case_work", "correctness_compiles", "guard_wait",
                            "warm", "warm_compiles", "perf_build", "lane_wait", "lane_held", "compile_in_lane",
                            "judge"), 0.0)
    for record in records:
        stages = record["stages"]
        correct, perf = stages.get("correct", {}), stages.get("perf", {})
        totals["device_open"] += stages.get("compile", {}).get("device_open_s") or 0
        totals["device_open_wait"] += stages.get("compile", {}).get("device_open_wait_s") or 0
        totals["process_start"] += stages.get("compile", {}).get("process_start_s") or 0
        totals["reference_wait"] += correct.get("reference_wait_s") or 0
        totals["correct_slot_wait"] += (correct.get("warm") or {}).get("slot_wait_s", 0)
        totals["correct_warm"] += (correct.get("warm") or {}).get("seconds", 0)
        totals["correct_warm_compiles"] += (correct.get("warm") or {}).get("compiles", 0)
        for stage in ("stage1", "stage2"):
            part = correct.get(stage, {})
            totals["case_work"] += sum(part.get("case_s", []))
            totals["correctness_compiles"] += part.get("compiles_off_guard", 0)
            totals["guard_wait"] += part.get("guard_wait_s") or 0
        warm = perf.get("warm") or {}
        totals["warm"] += warm.get("seconds", 0)
        totals["warm_compiles"] += warm.get("compiles", 0)
        totals["perf_build"] += warm.get("build_s", 0)
        totals["lane_wait"] += (perf.get("lane_wait_s") or 0) + (perf.get("lane_rewait_s") or 0)
        totals["lane_held"] += perf.get("seconds") or 0
        totals["compile_in_lane"] += sum(case.get("phases_s", {}).get("candidate", {}).get("compile_s", 0)
                                         for case in perf.get("cases", []))
        totals["judge"] += perf.get("judge_s") or 0
    elapsed = [r["elapsed_s"] for r in records]
    phases = lane_phases(records)
    warm_phases = summed(((r["stages"].get("correct", {}).get("warm") or {}).get("phases") for r in records))
    judge_phases = summed(r["stages"].get("perf", {}).get("judge_phases") for r in records)
    boot_phases = summed(r["stages"].get("compile", {}).get("boot") for r in records)
    processes = Counter(r["stages"].get("compile", {}).get("process", "unknown") for r in records)
    return {"run": str(run_dir), "records": len(records), "correct": sum(r["verdict"] == "correct" for r in records),
            "processes": dict(processes),
            "median_candidate_s": statistics.median(elapsed) if elapsed else None,
            "slowest_candidate_s": max(elapsed, default=None),
            **{k: round(v, 1) for k, v in totals.items()}, "correct_warm_phases": warm_phases,
            "judge_phases": judge_phases, "boot_phases": boot_phases, "lane_phases": phases,
            "finished_by": finished_by(records), "usage": usage(run_dir)}


def finished_by(records: list[dict], step_s: int = 60) -> dict[str, int]:
    """Records finished by each `step_s` mark, from the first candidate's start."""
    ends, starts = [], []
    for record in records:
        end = datetime.fromisoformat(record["finished_at"].replace("Z", "+00:00")).timestamp()
        ends.append(end)
        starts.append(end - record["elapsed_s"])
    if not ends:
        return {}
    first, last = min(starts), max(ends)
    marks = range(step_s, int(last - first) + step_s, step_s)
    return {f"{mark}s": sum(end - first <= mark for end in ends) for mark in marks}


def usage(run_dir: Path) -> dict | None:
    path = run_dir / "usage.json"
    return json.loads(path.read_text()) if path.is_file() else None


def summed(parts) -> dict[str, float]:
    """Each key's values summed over the dicts in `parts` (None where a record has none)."""
    total: dict[str, float] = {}
    for part in parts:
        for key, value in (part or {}).items():
            total[key] = round(total.get(key, 0.0) + value, 1)
    return total


def lane_phases(records: list[dict]) -> dict[str, dict[str, float]]:
    """Seconds per phase summed over every perf case, for the candidate's process and the baseline's."""
    sums: dict[str, dict[str, float]] = {"candidate": {}, "baseline": {}}
    for record in records:
        for case in record["stages"].get("perf", {}).get("cases", []):
            for side, phases in case.get("phases_s", {}).items():
                for name, seconds in phases.items():
                    sums[side][name] = sums[side].get(name, 0.0) + seconds
    return {side: {name: round(seconds, 1) for name, seconds in sorted(part.items())} for side, part in sums.items()}


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        print(json.dumps(breakdown(Path(arg))))
