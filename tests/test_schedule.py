"""The start order: longest expected work first, ties and input problems handled, and a table that names only
tasks that exist."""

import json

import pytest

from kernelbenchx.dataset.registry import all_tasks
from kernelbenchx.errors import UsageError
from kernelbenchx.evaluator.parent import schedule
from kernelbenchx.evaluator.parent.context import RunConfig
from kernelbenchx.evaluator.parent.schedule import in_start_order
from kernelbenchx.evaluator.parent.submission import Candidate, InputProblem
from kernelbenchx.evaluator.reasons import Reason


def candidate(task: str, sample: int = 0) -> Candidate:
    return Candidate(task, f"# {task} {sample}", f"s.jsonl:{sample}", sample)


@pytest.fixture
def table(monkeypatch):
    monkeypatch.setattr(schedule, "expected_seconds", lambda: {"A/long": 90.0, "A/mid": 20.0, "A/short": 2.0})


def test_the_longest_expected_starts_first_and_samples_of_a_task_keep_their_order(table):
    items = [candidate("A/short"), candidate("A/mid", 0), candidate("A/long"), candidate("A/mid", 1)]
    order = in_start_order(items)
    assert [(c.task_id, c.sample_id) for c in order] == [("A/long", 0), ("A/mid", 0), ("A/mid", 1), ("A/short", 0)]


def test_a_task_missing_from_the_table_counts_as_the_median_and_input_problems_start_first(table):
    problem = InputProblem("s.jsonl:9", Reason.UNKNOWN_TASK, "no such task", "A/nope")
    items = [candidate("A/short"), candidate("B/unmeasured"), problem, candidate("A/long")]
    assert [getattr(i, "task_id") for i in in_start_order(items)] == ["A/nope", "A/long", "B/unmeasured", "A/short"]


def test_submission_order_and_a_missing_table_leave_the_items_as_given(table, monkeypatch):
    items = [candidate("A/short"), candidate("A/long")]
    assert in_start_order(items, "submission") == items
    monkeypatch.setattr(schedule, "expected_seconds", lambda: {})
    assert in_start_order(items) == items


def test_an_unknown_order_is_a_usage_error():
    with pytest.raises(UsageError, match="unknown start order"):
        RunConfig(device="cpu", order="random").check()
    with pytest.raises(ValueError):
        in_start_order([], "random")


def test_the_shipped_table_names_only_known_tasks_with_positive_seconds():
    data = json.loads(schedule.TABLE.read_text())
    seconds = schedule.expected_seconds()
    assert seconds and set(seconds) <= set(all_tasks())
    assert all(s > 0 for s in seconds.values())
    assert data["sources"] and all(source["correct_records"] > 0 for source in data["sources"])


def test_a_mixed_first_wave_alternates_the_heaviest_and_the_lightest(monkeypatch):
    """"mixed": the first `wave` starts take the heaviest and the lightest in turn (so quick candidates reach the
    timing lane while heavy ones compile), the rest follow heaviest first; input problems stay in front, and a
    set no larger than the wave keeps the longest-first order."""
    seconds = {f"T/{k}": float(k) for k in range(1, 11)}
    monkeypatch.setattr(schedule, "expected_seconds", lambda: seconds)
    items = [candidate(task) for task in seconds]
    problem = InputProblem("s.jsonl:99", Reason.BAD_FIELD, "no code", "T/none")
    order = in_start_order(items + [problem], "mixed", wave=5)
    assert [i.task_id for i in order] == ["T/none", "T/10", "T/1", "T/9", "T/2", "T/8", "T/7", "T/6", "T/5", "T/4",
                                          "T/3"]
    assert sorted(order[1:], key=lambda c: c.task_id) == sorted(items, key=lambda c: c.task_id)  # none lost
    assert in_start_order(items, "mixed", wave=10) == in_start_order(items, "expected")
    assert in_start_order(items, "mixed", wave=1) == in_start_order(items, "expected")
    RunConfig(device="cpu", order="mixed").check()
