"""Where a GPU's timing lane went, from the guards' timeline of a run (KBX_GUARD_LOG=FILE kbx eval ...).

Per GPU: the seconds the lane held the GPU alone; the seconds it stood idle while a timing waited, split by
what held the GPU then (the check whose hold lasts longest among those in flight: load, stage, reference,
judge, a paused timing's compile), with the holds that cost the most; the seconds it stood idle with no
timing waiting (nothing was ready to be timed); when the first timing came, and the lane's seconds per window.

    python benchmarks/guard_timeline.py FILE
"""

from __future__ import annotations

import gzip
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

KINDS = (("load", "load"), ("stage", "stage"), ("reference", "reference"), ("perf judge", "judge"),
         ("perf build", "perf build"), ("perf", "timing compile"))
WINDOW_S = 30.0


def kind(doing: str) -> str:
    return next((name for prefix, name in KINDS if doing.startswith(prefix)), doing or "other")


def breakdown(spans: list[list], top: int = 0) -> dict:
    """spans: [side, doing, task, asked, granted, released] of one GPU (unfinished ones are dropped)."""
    spans = [s for s in spans if len(s) == 6]
    events = sorted((t, step, i) for i, s in enumerate(spans) for step, t in enumerate(s[3:]))
    held: dict[int, list] = {}  # shared holds in progress
    lane = waiting = 0
    out: Counter = Counter()
    blockers: Counter = Counter()  # seconds a timing waited, by the kind and task of the hold it waited for
    for (t, step, i), (t_next, _, _) in zip(events, events[1:] + [events[-1]]):
        exclusive = spans[i][0] != "shared"
        if exclusive:
            lane += step == 1
            lane -= step == 2
            waiting += (step == 0) - (step == 1)
        elif step == 1:
            held[i] = spans[i]
        elif step == 2:
            held.pop(i, None)
        name, blocker = state(lane, waiting, held)
        out[name] += t_next - t
        if blocker:
            blockers[f"{kind(blocker[1])} {blocker[2]}"] += t_next - t
    out["elapsed"] = events[-1][0] - events[0][0] if events else 0.0
    out["timings"] = sum(1 for s in spans if s[0] == "exclusive")
    result = {k: round(v, 1) for k, v in sorted(out.items())}
    result.update(lane_over_time(spans, events[0][0]) if events else {})
    return {**result, "top blockers": {k: round(v, 1) for k, v in blockers.most_common(top)}} if top else result


def lane_over_time(spans: list[list], start: float) -> dict:
    """When the first timing got the lane (a run's start-up: nothing is ready before), and the lane's held
    seconds in each WINDOW_S window (a lane starved mid-run shows as a dip)."""
    holds = sorted((s[4] - start, s[5] - start) for s in spans if s[0] != "shared")
    if not holds:
        return {}
    windows = [round(sum(max(0.0, min(b, w + WINDOW_S) - max(a, w)) for a, b in holds), 1)
               for w in range(0, int(holds[-1][1] + WINDOW_S), int(WINDOW_S))]
    return {"first timing": round(holds[0][0], 1), f"lane held per {WINDOW_S:.0f} s": windows}


def state(lane: int, waiting: int, held: dict[int, list]) -> tuple[str, list | None]:
    """What the lane is doing now, and the hold a waiting timing waits for (the one that ends last)."""
    if lane:
        return "lane held", None
    if not waiting:
        return "idle, no timing waiting", None
    if not held:
        return "timing waits, GPU free (hand-over)", None
    blocker = max(held.values(), key=lambda s: s[5])
    return f"timing waits for: {kind(blocker[1])}", blocker


def main(path: str) -> None:
    by_gpu: dict[int, list] = defaultdict(list)
    text = gzip.decompress(Path(path).read_bytes()).decode() if path.endswith(".gz") else Path(path).read_text()
    for line in text.splitlines():  # a kept run's timeline may be gzipped
        gpu, side, doing, *rest = json.loads(line)
        task = rest.pop(0) if rest and isinstance(rest[0], str) else ""  # runs 21-22 logged no task
        by_gpu[gpu].append([side, doing, task, *rest])
    for gpu, spans in sorted(by_gpu.items()):
        print(json.dumps({"gpu": gpu, **breakdown(spans, top=8)}))


if __name__ == "__main__":
    main(sys.argv[1])
