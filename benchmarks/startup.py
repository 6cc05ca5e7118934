"""A run's start-up on one clock: from launch to the first timing on each GPU.

Seconds after launch (benchmarks/side_by_side.sh writes clock_anchor.txt just before it starts `kbx eval`) of: the
run's start (the parent's imports and set-up before it), each zygote ready (the usage log, 47cbe49 on), the first
wave's candidates (those started within WAVE_S of the first) with the end of their wait for a forked process and
of their device open, per GPU; and from the guard timeline the first reference, load and timing per GPU. Runs
74-77 (docs/performance.md): the first timing came 25-29 s after launch.

    python benchmarks/startup.py RUN

RUN: an unpacked q<k>.tgz or a kept run of benchmarks/runs (as for benchmarks/gpu_clocks.py). Record times are
UTC and the anchor is the device's local time: the lent machines run in UTC.
"""

from __future__ import annotations

import gzip
import json
import statistics
import sys
from datetime import datetime, timezone
from pathlib import Path

WAVE_S = 5.0
ANCHOR_TIME = "%Y/%m/%d %H:%M:%S.%f"


def text(run: Path, *patterns: str) -> str:
    path = next(p for pattern in patterns for p in sorted(run.glob(pattern)))
    return gzip.decompress(path.read_bytes()).decode() if path.suffix == ".gz" else path.read_text()


def anchor(run: Path) -> tuple[float, float]:
    """(wall seconds, perf_counter seconds) at launch."""
    local, perf = (run / "clock_anchor.txt").read_text().strip().rsplit(" ", 1)
    return datetime.strptime(local, ANCHOR_TIME).replace(tzinfo=timezone.utc).timestamp(), float(perf)


def spread(values: list[float]) -> dict[str, float]:
    return {"first": round(min(values), 1), "median": round(statistics.median(values), 1),
            "last": round(max(values), 1)}


def first_wave(records: list[dict], wall0: float) -> dict:
    """Per GPU: the first wave's starts, forks ready (boot exec end) and device opens ended, after launch."""
    rows = []
    for r in records:
        compile_ = r["stages"].get("compile") or {}
        end = datetime.fromisoformat(r["finished_at"]).timestamp() - wall0
        start = end - r["elapsed_s"]
        booted = start + ((compile_.get("boot") or {}).get("exec_s") or 0.0)
        gpu = ((r["stages"].get("perf") or {}).get("gpu") or {}).get("index")
        rows.append((start, booted, booted + (compile_.get("device_open_s") or 0.0), gpu))
    if not rows:
        return {}
    first = min(row[0] for row in rows)
    wave = [row for row in rows if row[0] < first + WAVE_S]
    return {str(gpu): {"candidates": len(mine), "started": spread([w[0] for w in mine]),
                       "process_ready": spread([w[1] for w in mine]), "device_opened": spread([w[2] for w in mine])}
            for gpu in sorted({w[3] for w in wave}, key=str) for mine in [[w for w in wave if w[3] == gpu]]}


def guard_firsts(lines: list[list], perf0: float) -> dict:
    """Per GPU: when the first reference, load and timing asked for or got the GPU, after launch."""
    out: dict[str, dict[str, float]] = {}
    for gpu, side, doing, _task, asked, granted, *_ in (line for line in lines if len(line) >= 6):
        kind = "timing" if side != "shared" else doing.split(" ")[0]
        if kind in ("timing", "reference", "load"):
            when = (granted if kind == "timing" else asked) - perf0
            seen = out.setdefault(str(gpu), {})
            seen[kind] = round(min(seen.get(kind, when), when), 1)
    return out


def startup(run: Path) -> dict:
    wall0, perf0 = anchor(run)
    usage = json.loads(text(run, "usage*.json"))
    records = [json.loads(line) for line in text(run, "run*/results.jsonl", "results.jsonl.gz").splitlines()]
    guard = [json.loads(line) for line in text(run, "guard*.jsonl", "guard.jsonl.gz").splitlines()]
    result: dict = {"run_started": round(usage["run_started_at"] - perf0, 1)} if "run_started_at" in usage else {}
    zygotes = {key: round(z["ready_at"] - perf0, 1) for key, z in (usage.get("zygotes") or {}).items()
               if "ready_at" in z}
    if zygotes:
        result["zygote_ready"] = zygotes
    return {**result, "first_wave": first_wave(records, wall0), "guard_first": guard_firsts(guard, perf0)}


if __name__ == "__main__":
    print(json.dumps(startup(Path(sys.argv[1])), indent=1))
