"""What ties a result or a published dataset to the code and tasks that made it: the kbx commit and the
task-set hash. Both the evaluator's environment fingerprint and the dataset's MANIFEST.json use these, so a
result's ``environment.task_set_sha256`` equals the ``task_set_sha256`` of the dataset built from the same tasks.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import subprocess
from functools import lru_cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


@lru_cache(maxsize=None)
def kbx_commit() -> str | None:
    """The git commit of the kbx checkout (KBX_COMMIT in images, where there is no checkout)."""
    if os.environ.get("KBX_COMMIT"):
        return os.environ["KBX_COMMIT"]
    try:
        out = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


@lru_cache(maxsize=None)
def task_set_hash() -> str:
    """sha256 over every task's id and module source (contract, cases, reference): changes when any task does."""
    from kernelbenchx.dataset.registry import all_tasks

    h = hashlib.sha256()
    for task_id, task in all_tasks().items():
        h.update(task_id.encode())
        h.update(task_source(task.reference).encode())
    return h.hexdigest()


def task_source(reference: object) -> str:
    """The source of the module that defines a task (given its reference function)."""
    return inspect.getsource(inspect.getmodule(reference))


def task_hash(reference: object) -> str:
    """sha256 of one task module's source."""
    return hashlib.sha256(task_source(reference).encode()).hexdigest()
