"""The reward API: a warm Evaluator returns results as they finish, across calls, with a fresh seed per batch."""

import kernelbenchx as kbx
from tests.conftest import SOLUTIONS

GELU = (SOLUTIONS / "Activation" / "gelu.py").read_text()
WRONG = GELU.replace("0.7071067811865476", "0.7")


def test_batches_share_warm_processes_and_reseed():
    config = kbx.RunConfig(device="cpu", perf=False, workers=2, timeout_s=120)
    with kbx.Evaluator(config) as ev:
        first = list(ev.submit([("Activation/gelu", GELU), ("Activation/gelu", WRONG), ("Activation/nope", GELU)]))
        seed = ev.run.seed
        second = list(ev.submit([("Activation/gelu", GELU)]))
        assert ev.run.seed != seed  # a new batch, new stage-2 inputs
    verdicts = sorted(r.verdict.value for r in first)
    assert verdicts == ["correct", "incorrect", "input_error"]
    assert second[0].correct and second[0].stages["compile"]["isolation"]


def test_evaluate_batch_is_the_one_shot_form():
    results = list(kbx.evaluate_batch([{"task_id": "Activation/gelu", "code": WRONG}],
                                      kbx.RunConfig(device="cpu", perf=False, workers=1, timeout_s=120)))
    assert [r.reason.value for r in results] == ["stage1"]
