"""The GPU's clocks, power and clock-event reasons while each timing held its GPU alone.

benchmarks/side_by_side.sh samples nvidia-smi every 200 ms (gpu_clocks.csv, and clock_anchor.txt pairing the
device's local time with perf_counter); the guards' timeline (guard<k>.jsonl) says when each timing held its GPU.
Per run: how many timings met a clock-event reason other than idle, and the SM clocks and power seen. With two runs,
the tasks whose eager speedup moved by more than --moved between them, with what each run's timing met: do timings
that differ between runs of the same seed meet a lower clock or a power cap?

    python benchmarks/gpu_clocks.py RUN [RUN_B] [--moved 0.03]

RUN: an unpacked q<k>.tgz (run<k>/results.jsonl, guard<k>.jsonl, gpu_clocks.csv, clock_anchor.txt), or a kept run
of benchmarks/runs (results.jsonl.gz, guard.jsonl.gz, gpu_clocks.csv.gz, clock_anchor.txt).
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

SMI_TIME = "%Y/%m/%d %H:%M:%S.%f"
REASONS = {0x1: "idle", 0x2: "app_clocks", 0x4: "sw_power_cap", 0x8: "hw_slowdown", 0x10: "sync_boost",
           0x20: "sw_thermal", 0x40: "hw_thermal", 0x80: "hw_power_brake", 0x100: "display_clocks"}


@dataclass(frozen=True)
class Sample:
    t: float  # perf_counter seconds of the run's processes
    sm_mhz: float
    mem_mhz: float
    power_w: float
    reasons: int


@dataclass(frozen=True)
class Window:
    """What one task's timing met while it held its GPU."""
    samples: int
    sm_min: float
    sm_median: float
    power_max: float
    reasons: tuple[str, ...]

    def brief(self) -> str:
        why = ",".join(self.reasons) or "-"
        return f"sm {self.sm_min:.0f}/{self.sm_median:.0f} MHz, {self.power_max:.0f} W, {why} ({self.samples})"


def reason_names(mask: int) -> tuple[str, ...]:
    return tuple(name for bit, name in REASONS.items() if mask & bit and name != "idle")


def text(run: Path, *patterns: str) -> str:
    """The first file of `run` matching one of `patterns`, gunzipped if kept gzipped."""
    path = next(p for pattern in patterns for p in sorted(run.glob(pattern)))
    return gzip.decompress(path.read_bytes()).decode() if path.suffix == ".gz" else path.read_text()


def number(value: str) -> float:
    try:
        return float(value)
    except ValueError:  # "[N/A]"
        return float("nan")


def samples(run: Path) -> dict[str, list[Sample]]:
    """Samples by GPU uuid, on the processes' perf_counter clock."""
    local, perf = (run / "clock_anchor.txt").read_text().strip().rsplit(" ", 1)
    anchor = datetime.strptime(local, SMI_TIME)
    by_gpu: dict[str, list[Sample]] = {}
    for line in text(run, "gpu_clocks.csv", "gpu_clocks.csv.gz").splitlines():
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != 7:
            continue
        stamp, uuid, sm, mem, power, _temp, mask = fields
        t = float(perf) + (datetime.strptime(stamp, SMI_TIME) - anchor).total_seconds()
        by_gpu.setdefault(uuid.removeprefix("GPU-"), []).append(
            Sample(t, number(sm), number(mem), number(power), int(mask, 16) if mask.startswith("0x") else 0))
    return by_gpu


def records(run: Path) -> dict[str, dict]:
    lines = text(run, "run*/results.jsonl", "results.jsonl.gz").splitlines()
    return {r["candidate"]["task_id"]: r for r in map(json.loads, lines)}


def timing_spans(run: Path) -> dict[str, list[tuple[float, float]]]:
    """Each task's exclusive holds (granted, released)."""
    spans: dict[str, list[tuple[float, float]]] = {}
    for line in text(run, "guard*.jsonl", "guard.jsonl.gz").splitlines():
        _gpu, side, _doing, task, *times = json.loads(line)
        if side != "shared" and len(times) == 3:
            spans.setdefault(task, []).append((times[1], times[2]))
    return spans


def windows(run: Path) -> tuple[dict[str, Window], dict[str, float]]:
    """Per task: what its timing met, and its eager speedup."""
    by_gpu, spans, out, speedups = samples(run), timing_spans(run), {}, {}
    for task, record in records(run).items():
        perf = record["stages"].get("perf") or {}
        speedup = (perf.get("speedup_geomean") or {}).get("eager")
        uuid = (perf.get("gpu") or {}).get("uuid")
        if speedup:
            speedups[task] = speedup
        seen = [s for s in by_gpu.get(uuid, []) for a, b in spans.get(task, []) if a <= s.t <= b]
        if seen:
            clocks = [s.sm_mhz for s in seen]
            mask = 0
            for s in seen:
                mask |= s.reasons
            out[task] = Window(len(seen), min(clocks), statistics.median(clocks), max(s.power_w for s in seen),
                               reason_names(mask))
    return out, speedups


def summary(met: dict[str, Window]) -> dict:
    reasons: dict[str, int] = {}
    for w in met.values():
        for r in w.reasons:
            reasons[r] = reasons.get(r, 0) + 1
    lows = sorted(w.sm_min for w in met.values())
    return {"timings_with_samples": len(met), "reasons_met": reasons,
            "sm_min_mhz": {"lowest": lows[0], "p10": lows[len(lows) // 10], "median": statistics.median(lows)}
            if lows else {}, "power_max_w": max((w.power_max for w in met.values()), default=None)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--moved", type=float, default=0.03, help="relative speedup change that lists a task")
    args = parser.parse_args()
    met = [windows(run) for run in args.runs[:2]]
    for run, (seen, _) in zip(args.runs, met):
        print(json.dumps({"run": str(run), **summary(seen)}))
    if len(met) == 2:
        (a, speed_a), (b, speed_b) = met
        for task in sorted(set(speed_a) & set(speed_b), key=lambda t: speed_b[t] / speed_a[t]):
            moved = speed_b[task] / speed_a[task] - 1
            if abs(moved) > args.moved:
                left = a[task].brief() if task in a else "no samples"
                right = b[task].brief() if task in b else "no samples"
                print(f"{moved:+7.1%} {task}\n        A: {left}\n        B: {right}")


if __name__ == "__main__":
    main()
