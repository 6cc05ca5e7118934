"""Which import or preparation step starts a thread in a fresh process (the zygote forks only while it has one):
prints the thread count and names after each step. Run on the GPU host: python benchmarks/thread_probe.py"""

import sys

from kernelbenchx.evaluator.child.zygote import thread_names  # the standard library only, until its main()


def step(name: str, fn) -> None:
    fn()
    names = thread_names()
    print(f"{name}: {len(names)} {names}", flush=True)


step("python", lambda: None)
step("torch", lambda: __import__("torch"))
step("triton", lambda: __import__("triton"))
step("harness", lambda: __import__("kernelbenchx.evaluator.child.harness"))


def prepare() -> None:
    from kernelbenchx.evaluator.child import warm
    warm.prepare()


step("warm.prepare", prepare)
sys.exit(0)
