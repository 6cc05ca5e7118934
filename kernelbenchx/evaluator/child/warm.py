"""Compiles the kernels a candidate will launch, before it needs the GPU: its correctness cases' kernels
before stage 1, its perf cases' kernels before it queues for the timing lane.

A kernel's first launch in a fresh process compiles it for seconds. Compiled in the middle of a correctness
case, the process gives the GPU's shared guard back and must queue for it again behind every waiting timing
(on a one-GPU host that was most of a run's time); compiled inside the perf stage, it pauses the GPU's timing
lane, the run's critical path. Perf sizes also cross Triton's specialization boundaries and make kernels pick
other block sizes, so perf cases compile variants the correctness cases never needed. So the process first
calls its entry once per case on fake tensors (FakeTensorMode: shapes, strides and dtypes, no memory, no
values) with every Triton launch turned into a compile without a launch. Nothing runs on the GPU then, so the
warm-ups hold no side of the GPU's guard.

The specialization Triton derives from a tensor argument is its dtype and whether its address is a multiple of
16; a fake tensor has no address, so it is passed as a `FakePointer` at its storage offset (fresh allocations
are 512-byte aligned). Autotuned kernels compile every config that survives the kernel's own pruning and
benchmark nothing, so the autotuner's choice is still made at the real first call, on real data.

Nothing here decides a verdict: a case that cannot run on fake tensors (data-dependent shapes, `.item()`) is
skipped and simply compiles at its real first call, as before.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from concurrent.futures import Executor
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable

import torch
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode

from kernelbenchx.dataset.task import Task
from kernelbenchx.evaluator import messages as m
from kernelbenchx.evaluator.child.gpu_lease import build_launcher
from kernelbenchx.evaluator.measure import perf_case


class FakePointer:
    """What Triton's specialization reads from a tensor argument: its dtype and its address modulo 16."""

    def __init__(self, tensor: torch.Tensor) -> None:
        self.dtype = tensor.dtype
        fake = isinstance(tensor, FakeTensor)
        self.address = tensor.storage_offset() * tensor.element_size() if fake else tensor.data_ptr()

    def data_ptr(self) -> int:
        return self.address


def pointer(value: Any) -> Any:
    return FakePointer(value) if isinstance(value, torch.Tensor) else value


@dataclass
class Hooks:
    """The compile-only hooks in place for a warm-up; `intact` is False once candidate code replaced them."""

    run: Callable[..., Any]
    tune: Callable[..., Any]
    errors: list[str] = field(default_factory=list)  # autotuner configs that failed to compile

    def intact(self) -> bool:
        from triton.runtime import autotuner, jit

        return jit.JITFunction.run is self.run and autotuner.Autotuner.run is self.tune


@contextmanager
def compile_only() -> Iterator[Hooks]:
    """Every Triton launch compiles (through whatever wraps JITFunction.run now: the launch counter, the
    compile lease) and launches nothing; every autotuned launch compiles its pruned configs."""
    from triton.runtime import autotuner, jit

    launch, tuned = jit.JITFunction.run, autotuner.Autotuner.run

    def run(fn: Any, *args: Any, grid: Any = None, warmup: bool = False, **kwargs: Any) -> Any:
        return launch(fn, *map(pointer, args), grid=grid, warmup=True,
                      **{name: pointer(value) for name, value in kwargs.items()})

    def tune(tuner: Any, *args: Any, **kwargs: Any) -> None:
        tuner.nargs = dict(zip(tuner.arg_names, args))
        try:
            configs = tuner.prune_configs(kwargs) if len(tuner.configs) > 1 else tuner.configs
            for config in configs:
                try:
                    tuner.fn.run(*args, **kwargs, **config.all_kwargs())
                except Exception as exc:  # this config fails at its real first call too, or is never chosen
                    hooks.errors.append(f"{config}: {type(exc).__name__}: {str(exc)[:200]}")
        finally:
            tuner.nargs = None

    hooks = Hooks(run, tune)
    jit.JITFunction.run, autotuner.Autotuner.run = run, tune
    try:
        yield hooks
    finally:
        jit.JITFunction.run, autotuner.Autotuner.run = launch, tuned


@contextmanager
def side_by_side(pool: Executor | None) -> Iterator[list[Any]]:
    """With `pool`, Triton's async compile mode: each compile goes to the pool and the launch returns at once,
    so a warm-up's compiles (LLVM and ptxas release the GIL) run side by side; all are finished when the block
    ends. Yields the list that then holds each compile's FutureKernel. Without a pool (or when candidate code
    already entered a mode), compiles run one by one inside the launches, as before."""
    from triton.runtime._async_compile import AsyncCompileMode, active_mode

    if pool is None or active_mode.get() is not None:
        yield []
        return
    mode = AsyncCompileMode(pool, ignore_errors=True)  # a failing compile fails again at its real launch
    futures: list[Any] = []
    with mode:
        yield futures
        futures.extend(mode.future_kernels.values())  # read before the exit waits for them


@dataclass
class WarmReport:
    cases: int
    warmed: int
    skipped: list[str]
    hooks_intact: bool
    seconds: float
    compiled: int | None = None  # distinct kernels compiled side by side (None: counted by the compile lease)
    launchers: tuple = ()  # distinct launcher signatures of those kernels (launcher_types)
    # where its time went, seconds from its start: first case called, all called, all compiled (then the
    # launchers); and CPU seconds of the process, of the calling thread and of the tools it ran (ptxas, gcc)
    # (messages.WARM_PHASES)
    phases: dict = field(default_factory=dict)


def perf_cases(task: Task, entry: Callable[..., Any], device: str, pool: Executor | None = None) -> WarmReport:
    """Call `entry` once per perf case of `task` on fake inputs, compiling what it launches."""
    def build(index: int) -> tuple[tuple, dict]:
        call = perf_case.build_case(task, index, 0, device)[1]
        return call.args, call.kwargs

    return warm_each([partial(build, index) for index in range(perf_case.perf_case_count(task))], entry, pool)


def correctness_calls(calls: tuple[dict, ...], entry: Callable[..., Any], device: str,
                      pool: Executor | None = None) -> WarmReport:
    """Call `entry` once per correctness call payload (its tensors as TensorLayouts) on fake inputs."""
    def build(call: dict) -> tuple[tuple, dict]:
        return tuple(fake_inputs(call["args"], device)), dict(fake_inputs(call["kwargs"], device))

    return warm_each([partial(build, call) for call in calls], entry, pool)


def warm_each(builders: list[Callable[[], tuple[tuple, dict]]], entry: Callable[..., Any],
              pool: Executor | None = None) -> WarmReport:
    """Build each case's inputs under FakeTensorMode and call `entry` on them, launches compiling only (on
    `pool`'s threads when given)."""
    started, cpu, main_cpu, tools = time.perf_counter(), time.process_time(), time.thread_time(), tools_cpu()
    phases: dict[str, float] = {}
    warmed, skipped, intact = 0, [], True
    with compile_only() as hooks, side_by_side(pool) as futures:
        for index, build in enumerate(builders):
            try:
                with FakeTensorMode(allow_non_fake_inputs=True):
                    args, kwargs = build()
                    entry(*args, **kwargs)
                warmed += 1
            except BaseException as exc:  # candidate code may raise anything, SystemExit included
                skipped.append(f"case {index}: {type(exc).__name__}: {str(exc)[:200]}")
            intact = intact and hooks.intact()
            phases.setdefault("first_case_s", time.perf_counter() - started)
        phases["calls_s"] = time.perf_counter() - started
    phases["compiled_s"] = time.perf_counter() - started
    skipped += [f"autotune config {error}" for error in hooks.errors]
    skipped += [f"compile: {type(f.future.exception()).__name__}: {str(f.future.exception())[:200]}"
                for f in futures if f.kernel is None and f.future.exception() is not None]
    kernels = [f.kernel for f in futures if f.kernel is not None]
    if kernels and pool is not None:  # the launchers (gcc), side by side too, as the lease would build them
        list(pool.map(build_launcher, kernels))
    launchers = tuple(dict.fromkeys(t for t in map(launcher_types, kernels) if t is not None))
    phases |= {"cpu_s": time.process_time() - cpu, "main_cpu_s": time.thread_time() - main_cpu,
               "tools_cpu_s": tools_cpu() - tools}
    return WarmReport(len(builders), warmed, skipped, intact, time.perf_counter() - started,
                      len(futures) if futures else None, launchers, phases)


def tools_cpu() -> float:
    """CPU seconds of the ended child processes (ptxas, gcc)."""
    times = os.times()
    return times.children_user + times.children_system


def launcher_types(kernel: Any) -> tuple[str, ...] | None:
    """The argument types a compiled kernel's launcher is generated from (Triton 3.6: the launcher's source
    depends on them alone), None for kernels with tensor descriptors (their launcher depends on more)."""
    signature = getattr(getattr(kernel, "src", None), "signature", None)
    if not isinstance(signature, dict) or getattr(getattr(kernel, "metadata", None), "tensordesc_meta", None):
        return None
    return tuple(str(t) for t in signature.values())


def prepare() -> None:
    """What every warm-up's first case paid before its first kernel: FakeTensorMode's first construction imports
    torch._dynamo (about 800 modules: 1.3 s on an idle core), and its first operations load the meta kernels.
    Called in the candidate process before it serves its first request, so a pooled process pays it while it
    waits for a candidate, not inside a compile slot. CPU tensors only: CUDA stays uninitialised until the load.
    The parent calls it too as a GPU run starts (it plans perf cases on fake tensors): in run 72 those imports
    were 12% of its busy samples, under the first candidates' threads."""
    with FakeTensorMode(allow_non_fake_inputs=True):
        x = torch.empty(8, 8)
        torch.softmax(x.t().contiguous() @ x, -1).sum(0)


def fake_inputs(value: Any, device: str) -> Any:
    """`value` with each TensorLayout replaced by a fake tensor of that layout (call under FakeTensorMode)."""
    if isinstance(value, m.TensorLayout):
        dtype = getattr(torch, value.dtype.removeprefix("torch."))
        storage = torch.empty(value.storage_size, dtype=dtype, device=device)
        return storage.as_strided(value.size, value.stride, value.storage_offset)
    if isinstance(value, (tuple, list)):
        return type(value)(fake_inputs(v, device) for v in value)
    if isinstance(value, dict):
        return {k: fake_inputs(v, device) for k, v in value.items()}
    return value
