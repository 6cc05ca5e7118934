"""Every task has an audited deviation record (possibly none) with its reasons; the faithful set is the
tasks whose semantics and judging equal upstream's; `paper` and `all` are different sets."""

import pytest

from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.registry import all_tasks, tasks_in


@pytest.mark.parametrize("task_id", list(all_tasks()))
def test_task_has_a_deviation_record(task_id):
    task = all_tasks()[task_id]
    assert task.deviations is not None, f"{task_id}: no deviation record (use deviations=() when there is none)"
    assert all(isinstance(d, Deviation) for d in task.deviations)


def test_faithful_excludes_semantic_changes():
    for task in all_tasks().values():
        if task.deviations is None:
            continue
        changed = any(d.kind.changes_judging for d in task.deviations)
        assert task.faithful == (task.in_paper and not changed), task.id


def test_deviation_fields_are_required():
    with pytest.raises(ValueError):
        Deviation(Kind.SEMANTICS, "upstream does x", "kbx does y", "")


def test_paper_and_all_differ():
    paper, everything = tasks_in(paper_only=True), list(all_tasks().values())
    assert len(paper) == 176
    assert len(everything) > len(paper)
