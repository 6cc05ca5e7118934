"""Is a streaming kernel's time a property of the allocation it reads, or of the process? And what does holding
a perf output on the host cost per GB, by the kind of host buffer?

    python benchmarks/placement_alloc.py ALLOCS MIB      # on a GPU; run it in several fresh processes

ALLOCS pairs of MIB-MiB float32 buffers are allocated and kept; one CUDA graph per pair replays
`torch.reciprocal(x, out=y)`; the pairs are sampled round-robin (L2 flush and pad before each start event, as the
protocol does), so a drift in time hits every pair alike. One JSON line: each pair's median in microseconds and
the slowest over the fastest. Pairs that differ within a process point at the allocation (more input sets and a
summary robust to one slow set would help); processes that differ as a whole, with their pairs alike, point at
the process. Runs 32-36 saw memory-bound cases near 0.26 ms read 0.256 in one process and 0.283-0.292 in another.

Then a 1 GiB output copied to the host three ways, seconds per GB: a new pageable tensor (`to("cpu")`, what
held outputs used through run 36), a page-locked buffer allocated beforehand, a pageable one allocated and
touched beforehand; and SHA-256 over it.
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import sys
import time

import torch

from kernelbenchx.evaluator.measure import protocol as timing

ROUNDS = 30


def pair_medians(allocs: int, mib: int) -> list[float]:
    n = mib << 18  # float32 elements
    pairs = [(torch.rand(n, device="cuda") + 0.5, torch.empty(n, device="cuda")) for _ in range(allocs)]
    graphs = []
    for x, y in pairs:
        torch.reciprocal(x, out=y)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            torch.reciprocal(x, out=y)
        graphs.append(graph)
    flush, clock = timing.L2Flusher(), timing.CLOCK
    start, end = clock.new_event(), clock.new_event()
    samples: list[list[float]] = [[] for _ in graphs]
    for _ in range(ROUNDS):
        for k, graph in enumerate(graphs):
            flush()
            clock.spin(timing.PAD_CYCLES[0] * 4)
            clock.record(start)
            graph.replay()
            clock.record(end)
            clock.synchronize()
            samples[k].append(clock.elapsed_ms(start, end) * 1e3)
    return [round(statistics.median(xs), 2) for xs in samples]


def copy_costs(gib: int = 1) -> dict[str, float]:
    out = torch.rand(gib << 28, device="cuda")
    gb = out.numel() * 4 / 1e9
    pinned = torch.empty(out.shape, dtype=out.dtype, pin_memory=True)
    touched = torch.zeros(out.shape, dtype=out.dtype)
    costs: dict[str, list[float]] = {"fresh_pageable": [], "pinned": [], "touched_pageable": [], "sha256": []}
    for _ in range(3):
        torch.cuda.synchronize()
        started = time.perf_counter()
        fresh = out.to("cpu", copy=True)
        costs["fresh_pageable"].append(time.perf_counter() - started)
        for name, buf in (("pinned", pinned), ("touched_pageable", touched)):
            started = time.perf_counter()
            buf.copy_(out)
            costs[name].append(time.perf_counter() - started)
        started = time.perf_counter()
        hashlib.sha256(memoryview(pinned.numpy().view("uint8"))).hexdigest()
        costs["sha256"].append(time.perf_counter() - started)
        del fresh
    return {name: round(min(xs) / gb, 3) for name, xs in costs.items()}


def main() -> None:
    allocs, mib = int(sys.argv[1]), int(sys.argv[2])
    medians = pair_medians(allocs, mib)
    print(json.dumps({"pid": os.getpid(), "mib": mib, "pair_medians_us": medians,
                      "slowest_over_fastest": round(max(medians) / min(medians), 4),
                      "copy_s_per_gb": copy_costs()}), flush=True)


if __name__ == "__main__":
    main()
