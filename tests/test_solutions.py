"""Every Triton solution kept in kernelbenchx/solutions passes the full sandboxed pipeline on the CPU interpreter:
the proof that each contract (including the rewritten ones) is satisfiable."""

import json

import pytest

from kernelbenchx.evaluator.parent.rundir import read_results
from kernelbenchx.evaluator.parent.run import RunConfig, evaluate_submission
from tests.conftest import SOLUTIONS

FILES = sorted(SOLUTIONS.glob("*/*.py"))


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    out = tmp_path_factory.mktemp("solutions")
    with open(out / "submission.jsonl", "w") as f:
        for path in FILES:
            f.write(json.dumps({"task_id": f"{path.parent.name}/{path.stem}", "code": path.read_text()}) + "\n")
    evaluate_submission(out / "submission.jsonl", RunConfig(out_dir=out / "res", device="cpu", timeout_s=600,
                                                            task_set="submitted"))
    return {r.task_id: r for r in read_results(out / "res")}


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_solution_is_correct(path, records):
    record = records[f"{path.parent.name}/{path.stem}"]
    assert record.verdict.value == "correct", record.message
