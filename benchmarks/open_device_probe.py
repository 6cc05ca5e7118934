"""Does opening a candidate's device (what OpenDevice does, outside the guard since 6839566) disturb a tiny
graph-timed case on the same GPU? Sample-level: rel_ci95 and median/p10 per timed case, per condition.

Usage (on a GPU host, from the repository root; OUT=DIR writes open_probe.json there):
    PROBE_S=18 python benchmarks/open_device_probe.py
Run 26 of docs/performance.md. Conditions: quiet, `opens` (4 processes opening the device as OpenDevice does),
`zeros` (the same with a one-element kernel launch), `control` (another process running kernels).
"""
import json, os, statistics, subprocess, sys, threading, time
import torch
from kernelbenchx.evaluator.measure import protocol as P

OPEN = ("import torch,time,sys; import triton; t=time.perf_counter(); torch.empty(1,device='cuda'); "
        "torch.cuda.synchronize(); triton.runtime.driver.active.get_current_device(); triton.runtime.driver.active.utils; "
        "sys.stderr.write('open %.3f\\n' % (time.perf_counter()-t))")
ZEROS = OPEN.replace("torch.empty(1,", "torch.zeros(1,")
KERN = ("import torch,time; x=torch.randn(1<<20,device='cuda'); e=time.time()+float(__import__('sys').argv[1])\n"
        "while time.time()<e:\n  x.mul_(1.0001); torch.cuda.synchronize(); time.sleep(0.005)")
opened = []

def spawner(stop, code, args=()):
    while not stop.is_set():
        p = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
        if p.stderr.strip():
            opened.append(p.stderr.strip().splitlines()[-1])

def sets(t):
    return [((t.clone(),), {}) for _ in range(3)]

W = {"ew_2^16": (lambda x: x * 1.5 + 0.5, sets(torch.randn(1 << 16, device="cuda"))),
     "where_256x1024": (lambda x: torch.where(x > 0, x, x.new_zeros(())).expand(4, 256, 1024).sum(0), sets(torch.randn(256, 1024, device="cuda"))),
     "ew_2^22": (lambda x: x * 1.5 + 0.5, sets(torch.randn(1 << 22, device="cuda")))}

def measure(seconds):
    rows = {k: [] for k in W}
    end = time.time() + seconds
    while time.time() < end:
        for name, (fn, s) in W.items():
            st, _ = P.time_case(fn, s, P.Protocol())
            rows[name].append((st["median_ms"], st["p10_ms"], st["rel_ci95"] or 0, st["count"]))
    out = {}
    for k, v in rows.items():
        med = [r[0] for r in v]; ci = [r[2] for r in v]
        out[k] = {"rounds": len(v), "median_ms": round(statistics.median(med), 5), "max_ms": round(max(med), 5),
                  "max_med_over_p10": round(max(r[0] / r[1] for r in v), 3), "noisy_rounds(ci>5%)": sum(c > 0.05 for c in ci),
                  "ci_median": round(statistics.median(ci), 4), "ci_max": round(max(ci), 3)}
    return out

measure(2)
res = {}
for cond in os.environ.get("CONDS", "quiet opens quiet2 zeros control").split():
    stop = threading.Event(); n = int(os.environ.get("SPAWNERS", 4))
    code, args = {"opens": (OPEN, ()), "zeros": (ZEROS, ()), "control": (KERN, ("4",))}.get(cond, (None, ()))
    threads = [threading.Thread(target=spawner, args=(stop, code, args), daemon=True) for _ in range(n if code else 0)]
    for t in threads: t.start()
    time.sleep(3 if threads else 0)
    before = len(opened)
    res[cond] = measure(float(os.environ.get("PROBE_S", 20)))
    res[cond]["_opens"] = len(opened) - before
    stop.set()
    for t in threads: t.join()
    print(cond, json.dumps(res[cond]), flush=True)
print("open times", opened[-4:])
json.dump(res, open(os.path.join(os.environ.get("OUT", "."), "open_probe.json"), "w"), indent=1)
