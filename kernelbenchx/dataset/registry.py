"""Finds the task modules under ``dataset/tasks/<Category>/<stem>.py`` and indexes them by id."""

from __future__ import annotations

import difflib
import importlib
from functools import lru_cache
from pathlib import Path

from kernelbenchx.dataset.task import Task
from kernelbenchx.errors import KbxError

TASKS_DIR = Path(__file__).parent / "tasks"
CATEGORIES = (
    "Activation", "Convolution", "Fusion", "Index", "LinearAlgebra", "Loss", "Math", "MatrixMultiply",
    "Normalization", "Optimizer", "Pooling", "Quantization", "Random", "Reduce", "SpatialOps",
)


class UnknownTask(KbxError, KeyError):
    """No task has this id; the message suggests close ids (a bare stem matches its full id)."""

    def __init__(self, task_id: str, known: list[str]) -> None:
        stems = {k.split("/", 1)[1]: k for k in known}
        close = difflib.get_close_matches(task_id, known, n=3) or [
            stems[s] for s in difflib.get_close_matches(task_id.split("/")[-1], list(stems), n=3)]
        hint = f"did you mean {', '.join(close)}?" if close else "`kbx tasks list` shows every task id"
        super().__init__(f"unknown task {task_id!r}; {hint}", hint=None)
        self.task_id = task_id

    def __str__(self) -> str:
        return self.message


@lru_cache(maxsize=None)
def all_tasks() -> dict[str, Task]:
    """Every registered task, by id, sorted by id."""
    tasks: dict[str, Task] = {}
    for path in sorted(TASKS_DIR.glob("*/*.py")):
        if path.name.startswith("_"):
            continue
        module = importlib.import_module(f"kernelbenchx.dataset.tasks.{path.parent.name}.{path.stem}")
        task = getattr(module, "TASK", None)
        if not isinstance(task, Task):
            raise TypeError(f"{path} defines no TASK of type Task")
        expected = f"{path.parent.name}/{path.stem}"
        if task.id != expected:
            raise ValueError(f"{path}: TASK.id is {task.id!r}, expected {expected!r}")
        tasks[task.id] = task
    return dict(sorted(tasks.items()))


def get_task(task_id: str) -> Task:
    task_id = normalize_id(task_id)
    tasks = all_tasks()
    if task_id not in tasks:
        raise UnknownTask(task_id, list(tasks))
    return tasks[task_id]


def normalize_id(task_id: str) -> str:
    """Accepts 'Category/stem', 'Category/stem.py' and upstream-style paths ending in them."""
    task_id = task_id.strip().removesuffix(".py")
    parts = task_id.split("/")
    return "/".join(parts[-2:]) if len(parts) >= 2 else task_id


def tasks_in(category: str | None = None, paper_only: bool = False) -> list[Task]:
    return [t for t in all_tasks().values()
            if (category is None or t.category == category) and (t.in_paper or not paper_only)]


def by_stem(stem: str) -> Task | None:
    """The task whose stem is `stem` (stems are unique across categories), or None."""
    stem = stem.removesuffix(".py")
    matches = [t for t in all_tasks().values() if t.stem == stem]
    return matches[0] if len(matches) == 1 else None
