"""Is opening CUDA serialized when many candidate processes open it at once? At a run's start every worker's
process imports torch and opens the device together: in run 44 (two H200s, 40 workers) the first 40 candidates
each took 27-43 s to open their device, later ones 1-2 s.

Usage (on a GPU host, from the repository root): python benchmarks/open_concurrency.py [N ...]   (default 1 4 16)
For each N, N fresh processes start at once. `together`: each imports torch and triton and opens the device at
once; `after imports`: each imports, then all open together once every one has imported (a file barrier).
Prints, per N and mode, the median and maximum seconds of the import and of the open, one JSON line each.
"""
from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = r"""
import os, sys, time
t = time.perf_counter()
import torch, triton
imported = time.perf_counter() - t
barrier = sys.argv[1]
if barrier != "-":
    open(os.path.join(barrier, f"ready{os.getpid()}"), "w").close()
    while not os.path.exists(os.path.join(barrier, "go")):
        time.sleep(0.01)
t = time.perf_counter()
torch.empty(1, device="cuda"); torch.cuda.synchronize()
triton.runtime.driver.active.get_current_device(); triton.runtime.driver.active.utils
print(f"{imported:.3f} {time.perf_counter() - t:.3f}")
"""


def trial(count: int, barrier: bool) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        procs = [subprocess.Popen([sys.executable, "-c", CHILD, folder if barrier else "-"], stdout=subprocess.PIPE,
                                  text=True) for _ in range(count)]
        if barrier:
            while len(list(Path(folder).glob("ready*"))) < count:
                time.sleep(0.01)
            (Path(folder) / "go").touch()
        rows = [tuple(map(float, p.communicate()[0].split())) for p in procs]
    imports, opens = [r[0] for r in rows], [r[1] for r in rows]
    return {"processes": count, "mode": "after imports" if barrier else "together",
            "import_median_s": round(statistics.median(imports), 2), "import_max_s": round(max(imports), 2),
            "open_median_s": round(statistics.median(opens), 2), "open_max_s": round(max(opens), 2)}


if __name__ == "__main__":
    for count in [int(a) for a in sys.argv[1:]] or [1, 4, 16]:
        for barrier in (False, True):
            print(json.dumps(trial(count, barrier)), flush=True)
