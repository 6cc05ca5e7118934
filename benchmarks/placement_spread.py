"""Per-input-set medians of a task's graph-replayed baseline, in one process: does one set of buffers time
differently from another of the same shape? Run it in several fresh processes to see the spread between them.

    python benchmarks/placement_spread.py SETS PAD TASK:CASE [TASK:CASE ...]     # on a GPU

SETS input sets are built (seeds 1000..), one CUDA graph captured per set, and each replayed 25 times with the
protocol's L2 flush and pad before its start event. PAD=1 allocates a random 1-63 MiB gap before each set.
Run 33 (docs/performance.md) found `Activation/sigmoid` case 2's first set 11% slower than the other seven in
two of five processes, the rest within 0.6%.
"""

from __future__ import annotations

import random
import statistics
import sys

import torch

from kernelbenchx.dataset.registry import get_task
from kernelbenchx.evaluator.measure import perf_case
from kernelbenchx.evaluator.measure import protocol as timing

REPLAYS = 25


def set_medians(task_id: str, case: int, sets: int, pad: bool, keep: list[torch.Tensor]) -> list[float]:
    task = get_task(task_id)
    calls = []
    for s in range(sets):
        if pad:
            keep.append(torch.empty(random.randrange(1, 64) << 20, dtype=torch.uint8, device="cuda"))
        calls.append(perf_case.build_case(task, case, 1000 + s, "cuda")[1])
    graphs, why = timing.capture_graphs(task.reference, [(c.args, c.kwargs) for c in calls])
    if graphs is None:
        raise SystemExit(f"{task_id} case {case}: not captured ({why})")
    flush = timing.L2Flusher()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    medians = []
    for graph in graphs:
        samples = []
        for _ in range(REPLAYS):
            flush()
            torch.cuda._sleep(timing.PAD_CYCLES[0] * 2)
            start.record()
            graph.replay()
            end.record()
            torch.cuda.synchronize()
            samples.append(start.elapsed_time(end))
        medians.append(statistics.median(samples))
    return medians


def main(argv: list[str]) -> None:
    sets, pad, keep = int(argv[0]), argv[1] == "1", []
    for spec in argv[2:]:
        task_id, case = spec.rsplit(":", 1)
        medians = set_medians(task_id, int(case), sets, pad, keep)
        print(f"{spec} pad={int(pad)} per-set medians ms:", " ".join(f"{x:.4f}" for x in medians),
              f"| spread {max(medians) / min(medians) - 1:.1%} | median {statistics.median(medians):.4f}"
              f" mean {statistics.mean(medians):.4f}")


if __name__ == "__main__":
    main(sys.argv[1:])
