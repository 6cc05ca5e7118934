"""Compile every kernel a reference solution launches for an H100 (sm_90: front end → PTX → cubin with the
bundled ptxas) on a machine without a GPU, to catch what only the real compiler rejects (non-power-of-two
blocks, tl.dot shapes, values a kernel cannot capture, shared memory overflows) before device time is spent.

    python benchmarks/compile_sm90.py [TASK_ID ...]        # all solutions by default; one process each

Launches are intercepted: each distinct signature and set of constexprs is compiled once; autotuned kernels
compile every config. Stage-1 and stage-2 cases run for real (outputs are garbage, only compilation matters);
perf cases run under FakeTensorMode, so their launch parameters are compiled at full size too.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "kernelbenchx" / "solutions"
DTYPES = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "float64": "fp64", "int8": "i8", "int16": "i16",
          "int32": "i32", "int64": "i64", "uint8": "u8", "bool": "i1", "uint16": "u16", "uint32": "u32",
          "uint64": "u64", "complex64": "fp32", "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5"}


def compile_one(task_id: str) -> int:
    import torch
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.runtime import autotuner, jit

    from kernelbenchx.dataset.cases import build_cases
    from kernelbenchx.dataset.registry import get_task

    target, seen = GPUTarget("cuda", 90, 32), set()

    def signature(fn, args, kwargs):
        opts = {k: kwargs.pop(k) for k in list(kwargs) if k in ("num_warps", "num_stages", "num_ctas", "maxnreg")}
        bound = dict(zip(fn.arg_names, args)) | kwargs
        sig, constexprs = {}, {}
        for i, p in enumerate(fn.params):
            v = bound.get(p.name, p.default)
            if p.is_constexpr or v is None:
                sig[p.name], constexprs[(i,)] = "constexpr", v
            elif isinstance(v, torch.Tensor):
                sig[p.name] = "*" + DTYPES[str(v.dtype).removeprefix("torch.")]
            elif isinstance(v, bool):
                sig[p.name] = "i1"
            elif isinstance(v, int) and v == 1 and not getattr(p, "do_not_specialize", False):
                sig[p.name], constexprs[(i,)] = "constexpr", 1  # as Triton does: an int equal to 1 is a constant
            elif isinstance(v, int):
                sig[p.name] = "i32" if -2 ** 31 <= v < 2 ** 31 else "i64"
            elif isinstance(v, float):
                sig[p.name] = "fp32"
            else:
                raise TypeError(f"{fn.fn.__name__}: argument {p.name} is a {type(v).__name__}")
        return sig, constexprs, opts

    def fake_run(self, *args, grid, warmup, **kwargs):
        sig, constexprs, opts = signature(self, args, kwargs)
        key = (self.fn.__name__, tuple(sorted(sig.items())), repr(sorted(constexprs.items())), repr(sorted(opts.items())))
        if key not in seen:
            seen.add(key)
            triton.compile(ASTSource(self, sig, constexprs), target=target, options=opts)
        return None

    def every_config(self, *args, **kwargs):
        for config in self.configs:
            self.fn.run(*args, **{**kwargs, **config.all_kwargs()})

    jit.JITFunction.run = fake_run
    autotuner.Autotuner.run = every_config
    import importlib.util

    task = get_task(task_id)
    spec = importlib.util.spec_from_file_location("solution", SOLUTIONS / f"{task_id}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    entry = getattr(module, task.entry)
    for _, call in build_cases(task, None) + build_cases(task, 5):
        call.invoke(entry)
    from torch._subclasses.fake_tensor import DataDependentOutputException, FakeTensorMode

    skipped = []
    with FakeTensorMode(allow_non_fake_inputs=True):
        for name, call in task.perf_cases(torch.Generator().manual_seed(7)):
            try:
                call.invoke(entry)
            except DataDependentOutputException:  # a host read (a convergence test): compiled up to that point
                skipped.append(name)
    rest = f"; perf cases {', '.join(skipped)} stopped at a host read" if skipped else ""
    print(f"ok {task_id}: {len(seen)} kernel variants compiled for sm_90{rest}")
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["--one"]:
        return compile_one(argv[1])
    ids = argv or sorted(f"{p.parent.name}/{p.stem}" for p in SOLUTIONS.glob("*/*.py"))
    failed = []
    for task_id in ids:
        done = subprocess.run([sys.executable, __file__, "--one", task_id], capture_output=True, text=True,
                              cwd=ROOT, timeout=1800, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin",
                                                           "TRITON_INTERPRET": "0"})
        line = (done.stdout.strip().splitlines() or [""])[-1]
        if done.returncode:
            failed.append(task_id)
            print(f"FAIL {task_id}: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else '?'}")
        else:
            print(line)
    print(f"{len(ids) - len(failed)} of {len(ids)} compile for sm_90; failed: {failed}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
