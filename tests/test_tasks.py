"""The whole task set: the paper's 176 tasks, and every task sound by its own contract (selfcheck)."""

import json
from collections import Counter

import pytest

from kernelbenchx.dataset.registry import TASKS_DIR, all_tasks
from kernelbenchx.dataset.selfcheck import check_task

TASKS = list(all_tasks().values())
CATALOG = TASKS_DIR.parent / "upstream_catalog.json"


def test_registry_holds_the_papers_set():
    catalogue = json.loads(CATALOG.read_text())["tasks"]  # facts extracted from upstream, with provenance
    expected = {e["id"]: e for e in catalogue}
    paper = {t.id: t for t in TASKS if t.in_paper}
    assert sorted(paper) == sorted(expected)
    assert Counter(t.category for t in paper.values()) == Counter(i.split("/")[0] for i in expected)
    assert {t.id: t.difficulty for t in paper.values()} == {i: e["difficulty"] for i, e in expected.items()}


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_task_is_sound(task):
    assert check_task(task) == []
