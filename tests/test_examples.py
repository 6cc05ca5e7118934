"""examples/submission.jsonl: in sync with its generator, and its wrong and cheating candidates get the
verdicts the README promises (the correct ones are covered by test_solutions)."""

import json
import sys

from kernelbenchx.evaluator.parent.rundir import read_results
from kernelbenchx.evaluator.parent.run import RunConfig, evaluate_submission
from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "examples"))
import make_submission  # noqa: E402

EXPECTED = {"wrong:gelu_erf_constant": "incorrect", "wrong:gelu_ignores_tanh": "incorrect",
            "cheat:torch_behind_dummy_launch": "forbidden", "cheat:return_input": "forbidden",
            "cheat:stale_empty": "incorrect", "cheat:import_reference": "forbidden",
            "cheat:no_launch_on_path": "no_triton_kernel"}


def test_examples_file_is_generated_from_the_sources():
    assert (ROOT / "examples" / "submission.jsonl").read_text() == make_submission.render(), \
        "regenerate with: python examples/make_submission.py"


def test_every_slice_task_has_a_correct_kernel_and_the_slice_spans_all_categories():
    lines = [json.loads(line) for line in (ROOT / "examples" / "submission.jsonl").read_text().splitlines()]
    correct = {line["task_id"] for line in lines if line["method"] == "correct"}
    assert len(correct) >= 20 and len({t.split("/")[0] for t in correct}) == 15


def test_wrong_and_cheating_examples_are_rejected(tmp_path):
    lines = [line for line in (ROOT / "examples" / "submission.jsonl").read_text().splitlines()
             if json.loads(line)["method"] != "correct"]
    (tmp_path / "bad.jsonl").write_text("\n".join(lines) + "\n")
    evaluate_submission(tmp_path / "bad.jsonl", RunConfig(out_dir=tmp_path / "out", device="cpu", timeout_s=120))
    got = {r.candidate.method: r.verdict.value for r in read_results(tmp_path / "out")}
    assert got == EXPECTED
