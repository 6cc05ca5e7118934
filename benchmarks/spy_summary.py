"""Where a process's CPU went, from py-spy's raw output (`py-spy record -f raw`, collapsed stacks with counts):
the functions on the stacks of busy samples, inclusive, most first. A stack whose innermost frame waits (a lock,
a condition, select, a blocking read, sleep) is not busy: without --gil py-spy also samples threads that sit in
such calls.

    python benchmarks/spy_summary.py benchmarks/runs/2026-11-29-h200/72-*/spy.txt.gz [TOP]
"""

from __future__ import annotations

import gzip
import sys
from collections import Counter
from pathlib import Path

WAITS = ("wait", "wait_for", "select", "read_exact", "readinto", "recv", "sleep", "acquire", "join", "poll", "get",
         "_wait_for_tstate_lock")


def frame_name(frame: str) -> str:
    """`fn (path/file.py:line)` → `fn file.py`."""
    name, _, where = frame.partition(" (")
    return f"{name} {where.split(':')[0].rsplit('/', 1)[-1]}" if where else name


def busy_functions(lines: list[str]) -> tuple[int, int, Counter]:
    """(samples, busy samples, inclusive busy samples per function)."""
    total, busy, inclusive = 0, 0, Counter()
    for line in lines:
        stack, _, count = line.rstrip().rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n, frames = int(count), stack.split(";")
        total += n
        if frames[-1].split(" (")[0].rsplit(".", 1)[-1] in WAITS:
            continue
        busy += n
        for name in {frame_name(f) for f in frames}:
            inclusive[name] += n
    return total, busy, inclusive


def main() -> None:
    path = Path(sys.argv[1])
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        total, busy, inclusive = busy_functions(f.readlines())
    print(f"{total} samples, {busy} busy")
    for name, n in inclusive.most_common(int(sys.argv[2]) if len(sys.argv) > 2 else 40):
        print(f"{n:6d} {100 * n / max(1, busy):5.1f}%  {name}")


if __name__ == "__main__":
    main()
