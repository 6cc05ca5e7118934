#!/usr/bin/env python3
"""Compare the verdicts of two kbx runs of one submission (e.g. on the host and in an image).

    python containers/compare_runs.py HOST_RUN IMAGE_RUN

Records are matched by key (the candidate's content); every key must be in both runs with the same verdict
and reason code. Prints the table and each run's isolation layers; exit 0 when they agree, 1 otherwise.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from kernelbenchx.evaluator.parent.rundir import read_results  # noqa: E402


def outcomes(run: Path) -> dict[str, tuple[str, str, str]]:
    return {r.key: (r.task_id or "?", r.verdict.value, r.reason.value) for r in read_results(run)}


def isolation(run: Path) -> dict:
    first = (run / "results.jsonl").read_text().splitlines()[0]
    return json.loads(first)["environment"]["isolation"]


def main(a: Path, b: Path) -> int:
    left, right = outcomes(a), outcomes(b)
    differ = 0
    for key in sorted(set(left) | set(right), key=lambda k: (left.get(k) or right.get(k))[0]):
        x, y = left.get(key), right.get(key)
        same = x is not None and y is not None and x[1:] == y[1:]
        differ += not same
        task = (x or y)[0]
        print(f"{'  ' if same else '!!'} {task:<40} {' '.join(x[1:]) if x else 'missing':<32} "
              f"{' '.join(y[1:]) if y else 'missing'}")
    for run in (a, b):
        print(f"{run}: isolation {json.dumps(isolation(run))}")
    print(f"{len(left)} and {len(right)} records, {differ} differ")
    return 1 if differ or not left else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
