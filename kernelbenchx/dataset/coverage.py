"""Parameter coverage of a task's cases: every parameter of the signature is exercised, every flag and mode
takes each of its values in the random stage, and every combination of them appears in some case.

A parameter is *enumerable* when its default is a bool (domain: False, True), its annotation is a
``Literal[...]``, or the task lists its domain in ``Task.choices`` (required for string modes). Every other parameter with a default must
be passed a non-default value by at least one case. ``Task.fixed_params`` names parameters deliberately left
out, each with its reason. ``python -m kernelbenchx.dataset.coverage [TASK ...]`` prints what is missing.
"""

from __future__ import annotations

import inspect
import itertools
import sys
import typing
from typing import Any

import torch

from kernelbenchx.dataset.cases import build_cases
from kernelbenchx.dataset.task import Call, Task

SEEDS = tuple(range(1, 9))  # stage-2 seeds the check draws cases from (deterministic: the test is not flaky)
MAX_COMBINATIONS = 64  # above this, every pair of values must appear together instead of every combination


def parameters(task: Task) -> list[inspect.Parameter]:
    sig = inspect.signature(task.reference)
    return [p for p in sig.parameters.values()
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name not in task.fixed_params]


def domain(task: Task, param: inspect.Parameter) -> tuple[Any, ...] | None:
    if param.name in task.choices:
        return tuple(task.choices[param.name])
    if isinstance(param.default, bool):
        return (False, True)
    try:
        annotation = typing.get_type_hints(task.reference).get(param.name)
    except Exception:  # an annotation that does not resolve is not a Literal
        return None
    if typing.get_origin(annotation) is typing.Literal:
        return typing.get_args(annotation)
    return None


def bound_arguments(task: Task, call: Call) -> dict[str, Any]:
    bound = inspect.signature(task.reference).bind(*call.args, **call.kwargs)
    bound.apply_defaults()
    return dict(bound.arguments)


def same(a: Any, b: Any) -> bool:
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.shape == b.shape and bool(
            torch.equal(a, b))
    try:
        return bool(a == b) and type(a) is type(b)
    except Exception:
        return a is b


def coverage_problems(task: Task, seeds: tuple[int, ...] = SEEDS) -> list[str]:
    fixed = [bound_arguments(task, c) for _, c in build_cases(task, None)]
    random = [bound_arguments(task, c) for s in seeds for _, c in build_cases(task, s)]
    problems = []
    enumerable = {}
    for param in parameters(task):
        values = domain(task, param)
        if values is not None:
            enumerable[param.name] = values
            missing = [v for v in values if not any(same(args[param.name], v) for args in random)]
            if missing:
                problems.append(f"{param.name}: the random stage never draws {missing}")
        elif isinstance(param.default, str):
            problems.append(f"{param.name}: a mode parameter; list its values in Task.choices")
        elif param.default is not param.empty:
            if not any(not same(args[param.name], param.default) for args in fixed + random):
                problems.append(f"{param.name}: no case passes a value other than the default {param.default!r}")
    problems += combination_problems(enumerable, fixed + random)
    return problems


def combination_problems(domains: dict[str, tuple[Any, ...]], cases: list[dict[str, Any]]) -> list[str]:
    names = sorted(domains)
    if len(names) < 2:
        return []
    total = 1
    for n in names:
        total *= len(domains[n])
    groups = [tuple(names)] if total <= MAX_COMBINATIONS else list(itertools.combinations(names, 2))
    problems = []
    for group in groups:
        for combo in itertools.product(*(domains[n] for n in group)):
            if not any(all(same(args[n], v) for n, v in zip(group, combo)) for args in cases):
                shown = ", ".join(f"{n}={v!r}" for n, v in zip(group, combo))
                problems.append(f"no case combines {shown}")
    return problems


def main(argv: list[str]) -> int:
    from kernelbenchx.dataset.registry import all_tasks, get_task

    tasks = [get_task(a) for a in argv] if argv else list(all_tasks().values())
    bad = 0
    for task in tasks:
        problems = coverage_problems(task)
        bad += bool(problems)
        if problems:
            print(f"{task.id}")
            for p in problems:
                print(f"    - {p}")
    print(f"{len(tasks) - bad} covered, {bad} with gaps")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
