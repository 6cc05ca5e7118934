"""The whole pipeline on the CPU interpreter: verdicts, bad input, records, summary, schemas and --resume."""

import json

import pytest

from kernelbenchx.evaluator.report import read_results
from kernelbenchx.evaluator.run import RunConfig, evaluate_submission
from kernelbenchx.validate import validate_file
from tests.conftest import SOLUTIONS

GELU = (SOLUTIONS / "Activation" / "gelu.py").read_text()
WRONG = GELU.replace("0.7071067811865476", "0.7")  # a slightly wrong erf argument: close, but not close enough


def write_lines(path, lines):
    path.write_bytes(b"\n".join(line if isinstance(line, bytes) else json.dumps(line).encode() for line in lines))


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    sub = out / "submission.jsonl"
    write_lines(sub, [
        {"task_id": "Activation/gelu", "code": GELU, "model": "m"},
        {"file": "Activation/gelu.py", "predict": f"```py\n{WRONG}```"},
        b'{"task_id": "Activation/gelu", "code": ',
        {"task_id": "Activation/nope", "code": GELU},
        {"task_id": "Activation/gelu", "code": ""},
        b'{"task_id": "Activation/gelu", "code": "\xff"}',
        {"task_id": "Activation/gelu", "code": "def gelu(:"},
    ])
    summary = evaluate_submission(sub, RunConfig(out_dir=out / "res", device="cpu", timeout_s=120))
    return out, summary


def test_every_line_gets_a_record_with_the_right_verdict(run):
    out, _ = run
    records = sorted(read_results(out / "res" / "results.jsonl"), key=lambda r: r["candidate"]["source"])
    got = [(r["candidate"]["source"].split(":")[1], r["verdict"], r["reason"]["code"]) for r in records]
    assert got == [("1", "correct", "passed"), ("2", "incorrect", "stage1"), ("3", "input_error", "malformed_json"),
                   ("4", "input_error", "unknown_task"), ("5", "input_error", "empty_code"),
                   ("6", "input_error", "not_utf8"), ("7", "compile_error", "syntax_error")]
    correct = records[0]
    assert correct["stages"]["perf"]["status"] == "skipped" and "TRITON_INTERPRET" in correct["stages"]["perf"]["reason"]
    assert correct["environment"]["interpreter"] and correct["environment"]["seed"] >= 0
    assert "out of tolerance" in records[1]["reason"]["message"] or "outside tolerance" in records[1]["reason"]["message"]


def test_records_and_summary_validate_against_the_schemas(run):
    out, summary = run
    assert validate_file(out / "res" / "results.jsonl") == []
    assert validate_file(out / "res" / "summary.json") == []
    assert validate_file(out / "submission.jsonl", "submission")  # the malformed lines are reported


def test_summary_counts_every_task_of_the_set(run):
    _, summary = run
    assert summary["overall"]["tasks"] == len([1 for _ in summary["tasks"]]) >= 100
    assert summary["tasks"]["Activation/gelu"]["correct"] and summary["tasks"]["Activation/gelu"]["samples"] == 4
    assert summary["overall"]["correct_rate"] == pytest.approx(1 / summary["overall"]["tasks"])
    assert summary["categories"]["Activation"]["pass_at_1"] == pytest.approx(
        (1 / 4) / summary["categories"]["Activation"]["tasks"])


def test_resume_finishes_an_interrupted_run_without_duplicates(run, tmp_path):
    out, _ = run
    res = tmp_path / "res"
    res.mkdir()
    lines = (out / "res" / "results.jsonl").read_text().splitlines()
    (res / "results.jsonl").write_text("\n".join(lines[:-2]) + "\n" + lines[-2][:40])  # cut mid-record
    (res / "run.json").write_text((out / "res" / "run.json").read_text())
    evaluate_submission(out / "submission.jsonl", RunConfig(out_dir=res, device="cpu", resume=True, timeout_s=120))
    records = read_results(res / "results.jsonl")
    assert len(records) == 7 and len({r["key"] for r in records}) == 7
    old_run = json.loads(lines[0])["run_id"]
    assert sum(r["run_id"] == old_run for r in records) == 5  # only the two lost records were evaluated again


def test_a_trusted_side_fault_ends_the_candidate_not_the_run():
    from kernelbenchx.evaluator.run import RunContext, evaluate_candidate
    from kernelbenchx.evaluator.submission import Candidate

    ctx = RunContext(RunConfig(device="cpu"), seed=1)

    def broken(task_id):
        raise RuntimeError("reference failed: cusolver error")

    ctx.expected = broken
    try:
        record = evaluate_candidate(Candidate("Activation/gelu", GELU, "t:1"), ctx)
    finally:
        ctx.close()
    assert (record["verdict"], record["reason"]["code"]) == ("crash", "harness_error")
    assert "cusolver" in record["reason"]["message"]


def test_pass_at_k_estimator():
    from kernelbenchx.evaluator.report import pass_at_k

    assert pass_at_k(10, 0, 5) == 0.0 and pass_at_k(10, 10, 1) == 1.0
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    assert pass_at_k(10, 3, 5) == pytest.approx(1 - (7 * 6 * 5 * 4 * 3) / (10 * 9 * 8 * 7 * 6))
    assert pass_at_k(2, 1, 5) == 1.0 and pass_at_k(0, 0, 1) == 0.0
