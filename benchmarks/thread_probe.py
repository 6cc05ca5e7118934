"""Which import or preparation step starts a thread in a fresh process (the zygote forks only while it has one):
prints the thread count and names after each step. Run on the GPU host: python benchmarks/thread_probe.py"""

import os
import sys


def threads() -> list[str]:
    names = []
    for tid in sorted(os.listdir("/proc/self/task")):
        try:
            names.append(open(f"/proc/self/task/{tid}/comm").read().strip())
        except OSError:
            pass
    return names


def step(name: str, fn) -> None:
    fn()
    print(f"{name}: {len(threads())} {threads()}", flush=True)


step("python", lambda: None)
step("torch", lambda: __import__("torch"))
step("triton", lambda: __import__("triton"))
step("harness", lambda: __import__("kernelbenchx.evaluator.child.harness"))


def prepare() -> None:
    from kernelbenchx.evaluator.child import warm
    warm.prepare()


step("warm.prepare", prepare)
sys.exit(0)
