"""Building a task's cases and running its reference: shared by the trusted reference process, the dataset
builder and the task self-check. Stage 1 uses a public fixed seed; stage 2 a seed drawn per run."""

from __future__ import annotations

from typing import Any

import torch

from kernelbenchx.dataset.layouts import stage1_layout_cases, stage2_layout_case
from kernelbenchx.dataset.task import MODES, Call, Task, iter_tensors

FIXED_SEED = 20240917  # fixed cases are public and reproducible; stage-2 seeds are drawn per run


def fixed_generator() -> torch.Generator:
    return torch.Generator().manual_seed(FIXED_SEED)


def build_cases(task: Task, seed: int | None) -> list[tuple[str, Call]]:
    """Stage-1 cases (seed None) or stage-2 cases for `seed`, with stage-qualified names. Both stages include
    cases whose inputs are non-contiguous views (dataset/layouts.py), unless the contract says contiguous."""
    kinds, keep = task.contract.layouts, task.contract.mutates
    if seed is None:
        cases = [(f"fixed/{name}", call) for name, call in task.fixed_cases(fixed_generator())]
        base = f"fixed/{task.layout_case}" if task.layout_case else None
        return cases + stage1_layout_cases(cases, kinds, keep, base)
    cases = []
    for i, mode in enumerate(MODES):
        gen = torch.Generator().manual_seed(seed * 2 + i)
        drawn = [(f"{mode}/{name}", call) for name, call in task.random_cases(gen, mode)]
        cases += drawn + stage2_layout_case(drawn, kinds, keep, choice=seed * 2 + i)
    return cases


def run_reference(task: Task, call: Call) -> Any:
    """The reference's output for `call`, including the final values of in-place arguments."""
    call = call.clone()
    with torch.no_grad():
        out = call.invoke(task.reference)
    return task.contract.compared_outputs(call, out)


def reseeded(call: Call, kwarg: str) -> Call:
    """The same call with its seed argument changed (an int or a 0-d integer tensor)."""
    seed = call.kwargs[kwarg]
    return Call(*call.args, **{**call.kwargs, kwarg: seed + 1})


def same_value(a: Any, b: Any) -> bool:
    ta, tb = list(iter_tensors(a)), list(iter_tensors(b))
    if type(a) is not type(b) or len(ta) != len(tb) or not ta:
        return False
    return all(x.dtype == y.dtype and x.shape == y.shape and torch.equal(x, y) for x, y in zip(ta, tb))
