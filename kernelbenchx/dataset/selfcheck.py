"""Checks a task against its own contract, on CPU, without any candidate code.

A task is sound when: its reference passes its own check; stage-2 inputs change with the seed and stay in
the function's domain; perf inputs build at full size (shape-only, under FakeTensorMode) and the smallest
one runs for real; its cost model is positive; and degenerate answers (zeros, ones, a constant, the first
input, the reference plus noise above tolerance, the right values in the wrong dtype) fail at least one
case. A degenerate answer that passes every case means the task is broken, not the test.

Run ``python -m kernelbenchx.dataset.selfcheck [TASK_ID ...]`` while writing a task, and
``TRITON_INTERPRET=1 python -m kernelbenchx.dataset.selfcheck --solution FILE TASK_ID`` to try a solution.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

import torch
from torch._subclasses.fake_tensor import FakeTensorMode

from kernelbenchx.dataset.cases import build_cases, run_reference, same_value
from kernelbenchx.dataset.views import call_guarded
from kernelbenchx.dataset.task import Call, Task, iter_tensors, map_tensors

def degenerate_answers(call: Call, expected: Any) -> dict[str, Any]:
    """Outputs a lazy or broken kernel might return for `call`."""
    first = next(iter(call.tensors()), None)

    def noisy(t: torch.Tensor) -> torch.Tensor:
        if t.dtype == torch.bool:
            return ~t
        if not (t.is_floating_point() or t.is_complex()):
            return t + 1
        scale = t.abs().double().pow(2).mean().sqrt().clamp_min(1e-3).item() if t.numel() else 1.0
        signs = torch.where(torch.arange(t.numel()).reshape(t.shape) % 2 == 0, 1.0, -1.0)
        return (t + (1.0 * scale + 0.1 * t.abs()) * signs.to(t.dtype)).to(t.dtype)

    def other_dtype(t: torch.Tensor) -> torch.Tensor:
        swap = {torch.float32: torch.float64, torch.float64: torch.float32, torch.float16: torch.float32,
                torch.bfloat16: torch.float32, torch.int64: torch.int32, torch.bool: torch.int8,
                torch.complex64: torch.complex128, torch.complex128: torch.complex64}
        return t.to(swap.get(t.dtype, torch.float64))

    def const(t: torch.Tensor) -> torch.Tensor:
        if t.numel() == 0 or t.dtype == torch.bool:
            return torch.ones_like(t)
        return torch.full_like(t, t.double().mean().item() if not t.is_complex() else 0.5)

    def per_tensor(fn: Callable[[torch.Tensor], torch.Tensor]) -> Any:
        return scalars_too(map_tensors(expected, fn), fn)

    single_values = all(t.numel() <= 1 for t in iter_tensors(scalars_too(expected, torch.as_tensor)))
    answers = {
        "zeros": per_tensor(torch.zeros_like),
        "ones": per_tensor(torch.ones_like),
        "constant": per_tensor(const),
        "first_input": first.clone() if first is not None else None,
        "noisy": per_tensor(noisy),
        "wrong_dtype": per_tensor(other_dtype),
    }
    if single_values:  # a "constant" filled with a single-value output's own mean is that output
        del answers["constant"]
    return answers


def scalars_too(value: Any, fn: Callable[[torch.Tensor], torch.Tensor]) -> Any:
    """Apply a tensor transform to python numbers as well (references like det return floats)."""
    if isinstance(value, (bool, int, float)) and not isinstance(value, torch.Tensor):
        return fn(torch.tensor(value))
    if isinstance(value, tuple):
        return tuple(scalars_too(v, fn) for v in value)
    if isinstance(value, list):
        return [scalars_too(v, fn) for v in value]
    return value


def check_task(task: Task, seeds: tuple[int, int] = (1234, 5678)) -> list[str]:
    """Every problem found with `task`; an empty list means the task is sound."""
    problems: list[str] = []
    cases = build_cases(task, None) + build_cases(task, seeds[0])
    if not build_cases(task, None):
        problems.append("no stage-1 (fixed) cases")
    if not build_cases(task, seeds[0]):
        problems.append("no stage-2 (random) cases")
    expected = {}
    for name, call in cases:
        try:
            expected[name] = run_reference(task, call)
        except Exception as exc:  # a broken task must be reported, whatever broke
            problems.append(f"{name}: reference raised {type(exc).__name__}: {exc}")
            continue
        reason = task.judge(call, expected[name], run_reference(task, call))
        if reason:
            problems.append(f"{name}: reference fails its own check: {reason}")
        if not name.startswith("fixed/") and not task.notes.get("nonfinite_ok"):
            if any(t.is_floating_point() and not torch.isfinite(t).all() for t in iter_tensors(expected[name])):
                problems.append(f"{name}: stage-2 reference output has NaN/inf (inputs outside the domain?)")
    problems += check_seed_sensitivity(task, seeds)
    problems += check_degenerates(task, cases, expected)
    problems += check_perf_cases(task)
    if task.entry not in task.signature:
        problems.append(f"signature does not name the entry {task.entry!r}")
    return problems


def check_seed_sensitivity(task: Task, seeds: tuple[int, int]) -> list[str]:
    a, b = build_cases(task, seeds[0]), build_cases(task, seeds[1])
    for (_, ca), (_, cb) in zip(a, b):
        ta, tb = ca.tensors(), cb.tensors()
        if any(x.shape != y.shape or not torch.equal(x, y) for x, y in zip(ta, tb)):
            return []
    return ["stage-2 inputs do not change with the seed"]


def check_degenerates(task: Task, cases: list[tuple[str, Call]], expected: dict[str, Any]) -> list[str]:
    problems = []
    survivors, differs = None, set()
    for name, call in cases:
        if name not in expected:
            continue
        passing = set()
        for kind, answer in degenerate_answers(call, expected[name]).items():
            if same_value(answer, expected[name]):
                passing.add(kind)  # neutral here: it IS the answer for this case
                continue
            differs.add(kind)
            try:
                if task.judge(call, answer, expected[name]) is None:
                    passing.add(kind)
            except Exception:  # a checker that crashes on junk rejects it
                pass
        survivors = passing if survivors is None else survivors & passing
    # A kind equal to the answer in every case (the "constant" of a single-value output) is no degenerate.
    for kind in sorted((survivors or set()) & differs):
        problems.append(f"degenerate answer {kind!r} passes every case")
    return problems


def check_perf_cases(task: Task) -> list[str]:
    problems = []
    try:
        with FakeTensorMode(allow_non_fake_inputs=True):
            perf = list(task.perf_cases(torch.Generator().manual_seed(7)))
            if len(perf) < 2:
                problems.append("needs at least two perf cases (a small one and a GPU-sized one)")
            for name, call in perf:
                out = call.invoke(task.reference)
                cost = task.cost(call, out)
                if cost.bytes <= 0 or cost.flops < 0:
                    problems.append(f"perf/{name}: cost model gives flops={cost.flops} bytes={cost.bytes}")
                timed = layouts(call.invoke(task.timed_reference)) if task.timed_reference else layouts(out)
                if timed != layouts(out):
                    problems.append(f"perf/{name}: timed_reference's outputs {timed} are not the reference's "
                                    f"{layouts(out)}")
    except Exception as exc:
        problems.append(f"perf cases fail to build at full size: {type(exc).__name__}: {exc}")
        return problems
    return problems + check_smallest_perf_case(task)


def layouts(value: Any) -> list[tuple[tuple[int, ...], torch.dtype]]:
    return [(tuple(t.shape), t.dtype) for t in iter_tensors(value)]


def check_smallest_perf_case(task: Task) -> list[str]:
    """Builds the first perf case for real (it should be the small one) and checks its domain."""
    name, call = next(iter(task.perf_cases(torch.Generator().manual_seed(7))))
    if sum(t.numel() for t in call.tensors()) > (1 << 24):
        return [f"perf/{name}: the first perf case should be the small one"]
    out = run_reference(task, call)
    if not task.notes.get("nonfinite_ok") and any(
            t.is_floating_point() and not torch.isfinite(t).all() for t in iter_tensors(out)):
        return [f"perf/{name}: reference output has NaN/inf (perf inputs outside the domain?)"]
    return []


def check_solution(task: Task, path: str, seed: int = 99) -> list[str]:
    """In-process check of a trusted solution file on every stage-1 and stage-2 case (for task authors;
    candidates are never run this way: they go through the sandboxed evaluator)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"solution_{task.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    entry = getattr(module, task.entry)
    problems = []
    for name, call in build_cases(task, None) + build_cases(task, seed):
        expected = run_reference(task, call)
        mine, out, overrun = call_guarded(call, entry)
        reason = task.judge(call, task.contract.compared_outputs(mine, out), expected) or overrun
        if reason:
            problems.append(f"{name}: {reason}")
    return problems


def main(argv: list[str]) -> int:
    from kernelbenchx.dataset.registry import all_tasks, get_task

    if argv[:1] == ["--solution"]:
        problems = check_solution(get_task(argv[2]), argv[1])
        print("\n".join(problems) or "solution passes every stage-1 and stage-2 case")
        return 1 if problems else 0
    tasks = [get_task(a) for a in argv] if argv else list(all_tasks().values())
    bad = 0
    for task in tasks:
        problems = check_task(task)
        bad += bool(problems)
        print(f"{'FAIL' if problems else 'ok  '} {task.id}")
        for p in problems:
            print(f"     - {p}")
    print(f"{len(tasks) - bad} sound, {bad} with problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
