"""Every task's cases exercise its whole signature: each parameter takes a non-default value somewhere, each
flag and mode takes every value in the random stage, and their combinations all appear (dataset/coverage.py)."""

import pytest

from kernelbenchx.dataset.coverage import coverage_problems
from kernelbenchx.dataset.registry import all_tasks


@pytest.mark.parametrize("task_id", list(all_tasks()))
def test_parameters_are_exercised(task_id):
    problems = coverage_problems(all_tasks()[task_id])
    assert not problems, "\n".join(problems)


def test_the_check_finds_a_flag_never_drawn():
    from dataclasses import replace

    from kernelbenchx.dataset.task import Call

    task = all_tasks()["Activation/gelu"]

    def random_cases(gen, mode):
        yield "only_none", Call(__import__("torch").zeros(4))

    narrow = replace(task, random_cases=random_cases, choices={"approximate": ("none", "tanh")})
    assert any("never draws ['tanh']" in p for p in coverage_problems(narrow, seeds=(1,)))
