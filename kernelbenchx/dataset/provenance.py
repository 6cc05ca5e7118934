"""What ties a result or a published dataset to the code and tasks that made it: the kbx commit and the
task-set hash. Both the evaluator's environment fingerprint and the dataset's MANIFEST.json use these, so a
result's ``environment.task_set_sha256`` equals the ``task_set_sha256`` of the dataset built from the same tasks.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import subprocess
import sys
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kernelbenchx.dataset.task import Task

REPO = Path(__file__).resolve().parents[2]


CODE_PATHS = ("kernelbenchx", "pyproject.toml")  # what a checkout runs as kbx


@lru_cache(maxsize=None)
def kbx_commit() -> str | None:
    """The git commit of the kbx checkout (KBX_COMMIT in images, where there is no checkout; image/targets.py
    sets it from checkout_commit too)."""
    if os.environ.get("KBX_COMMIT"):
        return os.environ["KBX_COMMIT"]
    return checkout_commit()


def checkout_commit(paths: tuple[str, ...] = CODE_PATHS) -> str | None:
    """HEAD, with "+dirty" when files under `paths` differ from it (changed, or new and not ignored): the code
    that runs is then not that commit's (a GPU host given a copy of a working tree recorded its base commit for
    code three commits later, runs 47-50). None outside a git checkout."""
    head = git("rev-parse", "HEAD")
    if not head:
        return None
    changed = git("status", "--porcelain", "--", *paths)
    return head + ("+dirty" if changed is None or changed else "")


def git(*args: str) -> str | None:
    """git's output in the checkout, stripped; None when git fails or is missing."""
    try:
        out = subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


@lru_cache(maxsize=None)
def task_set_hash() -> str:
    """sha256 over every task's id and source (task_source): changes when any task's contract, cases or
    reference does."""
    from kernelbenchx.dataset.registry import all_tasks

    h = hashlib.sha256()
    for task_id, task in all_tasks().items():
        h.update(task_id.encode())
        h.update(task_source(task).encode())
    return h.hexdigest()


def task_source(task: Task) -> str:
    """The task module's source, followed by the source of the module defining its reference when that is
    another one (a shared helper such as Activation/_half_gelu.py)."""
    names = [f"kernelbenchx.dataset.tasks.{task.id.replace('/', '.')}", inspect.getmodule(task.reference).__name__]
    return "".join(module_source(name) for name in dict.fromkeys(names))


@lru_cache(maxsize=None)
def module_source(name: str) -> str:
    """A module's source, read once per process: every hash a build or a run reports describes the same
    snapshot, even while the files are being edited."""
    return inspect.getsource(sys.modules[name])


def task_hash(task: Task) -> str:
    """sha256 of one task's source (task_source)."""
    return hashlib.sha256(task_source(task).encode()).hexdigest()
