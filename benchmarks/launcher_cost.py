"""Where a candidate process's first Triton compiles spend their time: CUDA start, the kernel compile (LLVM,
ptxas) and the C modules Triton builds with gcc (`cuda_utils` once per process, a launcher per signature), each in
a fresh process with a private cache as a candidate has. Then the same with the gcc-built modules of the first
process already in the cache (kernel binaries left out), which is what a trusted, shared module cache would give.

    (on a GPU host)  python3 benchmarks/launcher_cost.py        — prints one JSON line per process
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROBE = r'''
import json, sys, time
t0 = time.perf_counter()
import torch, triton, triton.language as tl
from triton.runtime import build
builds = []
real = build._build
def timed(name, *args, **kwargs):
    s = time.perf_counter(); so = real(name, *args, **kwargs); builds.append((name, round(time.perf_counter() - s, 3)))
    return so
build._build = timed
out = {"import_s": round(time.perf_counter() - t0, 3)}
s = time.perf_counter(); torch.cuda.init(); torch.empty(1, device="cuda")
out["cuda_init_s"] = round(time.perf_counter() - s, 3)
SALT = tl.constexpr(int(sys.argv[1]))

@triton.jit
def scale(x, y, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y + i, tl.load(x + i, mask=i < n) * SALT, mask=i < n)

@triton.jit
def shift(x, y, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y + i, tl.load(x + i, mask=i < n) + SALT, mask=i < n)

@triton.jit
def axpy(x, y, z, a, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(z + i, a * tl.load(x + i, mask=i < n) + tl.load(y + i, mask=i < n), mask=i < n)

x = torch.randn(4096, device="cuda"); y = torch.empty_like(x)
steps = [("first kernel", lambda: scale[(4,)](x, y, 4096, BLOCK=1024)),
         ("same signature", lambda: shift[(4,)](x, y, 4096, BLOCK=1024)),
         ("new signature", lambda: axpy[(4,)](x, x, y, 2.0, 4096, BLOCK=1024)),
         ("new constexpr", lambda: axpy[(8,)](x, x, y, 2.0, 4096, BLOCK=512))]
for name, step in steps:
    before = len(builds); s = time.perf_counter(); step(); torch.cuda.synchronize()
    out[name] = {"s": round(time.perf_counter() - s, 3), "gcc": builds[before:]}
print(json.dumps(out))
'''


def probe(cache: Path, salt: int) -> dict:
    env = {**os.environ, "TRITON_CACHE_DIR": str(cache)}
    script = cache.parent / f"probe{salt}.py"  # Triton reads a kernel's source from its file
    script.write_text(PROBE)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, str(script), str(salt)], env=env, capture_output=True, text=True)
    if done.returncode:
        return {"error": done.stderr[-2000:]}
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "process_s": round(time.perf_counter() - started, 3)}


def modules_only(source: Path, target: Path) -> list[str]:
    """Copy the gcc-built modules (*.so) of one cache into another, keeping Triton's key folders."""
    copied = []
    for so in source.rglob("*.so"):
        dest = target / so.relative_to(source)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(so, dest)
        copied.append(so.name)
    return copied


def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="launcher-cost-"))
    first = root / "cold"
    print(json.dumps({"cold cache": probe(first, 3)}))
    print(json.dumps({"cold cache again": probe(root / "cold2", 5)}))
    seeded = root / "seeded"
    print(json.dumps({"seeded with": modules_only(first, seeded)}))
    print(json.dumps({"modules cached": probe(seeded, 7)}))
    print(json.dumps({"modules cached again": probe(seeded, 11)}))
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
