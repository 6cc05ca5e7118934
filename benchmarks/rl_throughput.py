"""Evaluations per second through the reward API (kbx.Evaluator): one warm Evaluator, batches of the reference
solutions, correctness only and with perf. Prints one JSON line per mode.

    python benchmarks/rl_throughput.py [--seconds 60] [--tasks N] [--device cuda]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import kernelbenchx as kbx

SOLUTIONS = Path(__file__).resolve().parents[1] / "kernelbenchx" / "solutions"


def batch(n: int) -> list[tuple[str, str]]:
    paths = sorted(SOLUTIONS.glob("*/*.py"))[:n]
    return [(f"{p.parent.name}/{p.stem}", p.read_text()) for p in paths]


def measure(items: list[tuple[str, str]], perf: bool, seconds: float, device: str | None) -> dict:
    config = kbx.RunConfig(device=device, perf=perf, perf_timeout_s=30.0)
    done, correct, batches = 0, 0, 0
    with kbx.Evaluator(config) as ev:
        list(ev.submit(items[:2]))  # warm-up batch: servers and pool started, not counted
        started = time.perf_counter()
        while time.perf_counter() - started < seconds:
            for result in ev.submit(items):
                done += 1
                correct += result.correct
            batches += 1
        elapsed = time.perf_counter() - started
    return {"mode": "correctness+perf" if perf else "correctness", "evaluations": done, "correct": correct,
            "batches": batches, "seconds": round(elapsed, 1), "evals_per_s": round(done / elapsed, 3)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--tasks", type=int, default=24)
    parser.add_argument("--device", default=None)
    parser.add_argument("--modes", default="correctness,perf")
    args = parser.parse_args()
    items = batch(args.tasks)
    for mode in args.modes.split(","):
        print(json.dumps(measure(items, mode == "perf", args.seconds, args.device)), flush=True)


if __name__ == "__main__":
    main()
