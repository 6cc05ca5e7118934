"""The whole pipeline on the CPU interpreter: verdicts, bad input, records and their hash chain, summary,
schemas, --resume, run-directory safety and interrupts."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from kernelbenchx.errors import RunDirError, SubmissionError
from kernelbenchx.evaluator.parent.rundir import chain_problems, read_lines, read_results
from kernelbenchx.evaluator.parent.run import RunConfig, evaluate_submission
from kernelbenchx.evaluator.reasons import Reason, Verdict
from kernelbenchx.validate import validate_file
from tests.conftest import ROOT, SOLUTIONS

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
    records = sorted(read_results(out / "res"), key=lambda r: int(r.candidate.source.split(":")[1]))
    got = [(r.candidate.source.split(":")[1], r.verdict.value, r.reason.value) for r in records]
    assert got == [("1", "correct", "passed"), ("2", "incorrect", "stage1"), ("3", "input_error", "malformed_json"),
                   ("4", "input_error", "unknown_task"), ("5", "input_error", "empty_code"),
                   ("6", "input_error", "not_utf8"), ("7", "compile_error", "syntax_error")]
    correct = records[0]
    assert correct.stages["perf"]["status"] == "skipped" and "TRITON_INTERPRET" in correct.stages["perf"]["reason"]
    assert correct.environment["interpreter"] and correct.environment["seed"] >= 0
    assert "outside tolerance" in records[1].message


def test_isolation_layers_are_recorded(run):
    out, _ = run
    correct = next(r for r in read_results(out / "res") if r.correct)
    iso = correct.environment["isolation"]
    assert set(iso["layers"]) | set(iso["missing"]) >= {"namespaces", "landlock", "seccomp", "no_new_privs"}
    assert {"landlock", "seccomp"} <= set(correct.stages["compile"]["isolation"]) or iso["missing"]


def test_records_are_chained_and_the_files_validate(run):
    out, _ = run
    lines = read_lines(out / "res" / "results.jsonl")
    assert list(chain_problems(lines)) == []
    record = json.loads(lines[3])
    record["verdict"] = "correct" if record["verdict"] != "correct" else "incorrect"
    edited = lines[:3] + [json.dumps(record, sort_keys=True) + "\n"] + lines[4:]
    assert list(chain_problems(edited)), "an edited record must break the chain"
    assert list(chain_problems(lines[:2] + lines[3:])), "a dropped record must break the chain"
    assert validate_file(out / "res" / "results.jsonl") == []
    assert validate_file(out / "res" / "summary.json") == []
    assert validate_file(out / "submission.jsonl", "submission")  # the malformed lines are reported
    manifest = json.loads((out / "res" / "manifest.json").read_text())
    assert manifest["records"] == 7 and set(manifest["files"]) == {"results.jsonl", "summary.json", "run.json"}


def test_summary_counts_every_task_of_the_set(run):
    _, summary = run
    assert summary["overall"]["tasks"] == len(summary["tasks"]) >= 100
    assert summary["tasks"]["Activation/gelu"]["correct"] and summary["tasks"]["Activation/gelu"]["samples"] == 4
    assert summary["overall"]["correct_rate"] == pytest.approx(1 / summary["overall"]["tasks"])
    assert all(v is None for v in summary["overall"]["fast_p"].values()) and "not measured" in summary["timing"]
    assert summary["run"]["run_id"] and "seed" in summary["run"]


def test_an_existing_run_is_not_replaced_without_resume_or_overwrite(run, tmp_path):
    out, _ = run
    with pytest.raises(RunDirError, match="already holds a run"):
        evaluate_submission(out / "submission.jsonl", RunConfig(out_dir=out / "res", device="cpu"))
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"task_id": "Activation/gelu", "code": GELU}) + "\n")
    with pytest.raises(RunDirError, match="different submission"):
        evaluate_submission(other, RunConfig(out_dir=out / "res", device="cpu", resume=True))


def test_resume_finishes_an_interrupted_run_without_duplicates(run, tmp_path):
    out, _ = run
    res = tmp_path / "res"
    res.mkdir()
    lines = (out / "res" / "results.jsonl").read_text().splitlines()
    (res / "results.jsonl").write_text("\n".join(lines[:-2]) + "\n" + lines[-2][:40])  # cut mid-record
    (res / "run.json").write_text((out / "res" / "run.json").read_text())
    evaluate_submission(out / "submission.jsonl", RunConfig(out_dir=res, device="cpu", resume=True, timeout_s=120))
    records = read_results(res)
    assert len(records) == 7 and len({r.key for r in records}) == 7
    assert list(chain_problems(read_lines(res / "results.jsonl"))) == []
    keys_before = {json.loads(line)["key"] for line in lines[:-2]}
    assert {r.key for r in records} - keys_before == {json.loads(line)["key"] for line in lines[-2:]}


def test_empty_submission_is_an_error(tmp_path):
    (tmp_path / "empty.jsonl").write_text("\n")
    with pytest.raises(SubmissionError, match="holds no candidates"):
        evaluate_submission(tmp_path / "empty.jsonl", RunConfig(out_dir=tmp_path / "out", device="cpu"))


def test_a_trusted_side_fault_ends_the_candidate_not_the_run():
    from kernelbenchx.evaluator.parent.candidate import evaluate_candidate
    from kernelbenchx.evaluator.parent.run import Run
    from kernelbenchx.evaluator.parent.submission import Candidate

    run = Run(RunConfig(device="cpu"), seed=1, run_id="t", seed_fixed=True)

    def broken(task_id):
        raise RuntimeError("reference failed: cusolver error")

    run.expected = broken
    try:
        result = evaluate_candidate(Candidate("Activation/gelu", GELU, "t:1"), run)
    finally:
        run.close()
    assert (result.verdict, result.reason) == (Verdict.CRASH, Reason.HARNESS_ERROR)
    assert "cusolver" in result.message


def test_pass_at_k_estimator():
    from kernelbenchx.evaluator.parent.summary import pass_at_k

    assert pass_at_k(10, 0, 5) == 0.0 and pass_at_k(10, 10, 1) == 1.0
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    assert pass_at_k(10, 3, 5) == pytest.approx(1 - (7 * 6 * 5 * 4 * 3) / (10 * 9 * 8 * 7 * 6))
    assert pass_at_k(2, 1, 5) == 1.0 and pass_at_k(0, 0, 1) == 0.0


def processes_under(root) -> set[int]:
    """Processes whose working directory lies under `root` (kbx's children work in private temp dirs made
    under the TMPDIR it was given), so other runs on the machine do not count."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.readlink(f"/proc/{entry}/cwd").startswith(str(root)):
                    found.add(int(entry))
            except OSError:
                continue
    return found


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_stops_the_run_saves_what_finished_and_leaves_no_process(tmp_path, sig):
    sub = tmp_path / "s.jsonl"
    write_lines(sub, [{"task_id": "Activation/gelu", "code": GELU, "sample_id": i} for i in range(6)])
    private = tmp_path / "tmp"
    private.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "kernelbenchx", "eval", str(sub), "--out", str(tmp_path / "o"),
                             "--device", "cpu", "--workers", "2"], cwd=ROOT, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1", "TMPDIR": str(private)})
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (tmp_path / "o" / "run.json").exists():
        time.sleep(0.2)  # the run has started (its directory is prepared, its children are starting)
    while time.monotonic() < deadline and len(processes_under(private)) < 2:
        time.sleep(0.2)
    proc.send_signal(sig)
    sent = time.monotonic()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err[-2000:]
    assert time.monotonic() - sent < 15
    assert "interrupted" in err and "--resume" in err
    time.sleep(1)
    assert processes_under(private) == set()
    records = read_lines(tmp_path / "o" / "results.jsonl")
    assert list(chain_problems(records)) == [] and len(records) < 6


def test_a_drain_signal_finishes_running_candidates_starts_none_and_the_run_resumes(tmp_path):
    sub = tmp_path / "s.jsonl"
    write_lines(sub, [{"task_id": "Activation/gelu", "code": GELU, "sample_id": i} for i in range(6)])
    command = [sys.executable, "-m", "kernelbenchx", "eval", str(sub), "--out", str(tmp_path / "o"), "--device", "cpu",
               "--workers", "2"]
    proc = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and not read_lines(tmp_path / "o" / "results.jsonl"):
        time.sleep(0.2)  # one candidate is done, so the next ones are running
    proc.send_signal(signal.SIGUSR2)
    _, err = proc.communicate(timeout=180)
    assert proc.returncode == 130, err[-2000:]
    assert "drained" in err and "--resume" in err
    records = read_lines(tmp_path / "o" / "results.jsonl")
    assert list(chain_problems(records)) == [] and 2 <= len(records) < 6
    assert {json.loads(r)["verdict"] for r in records} == {"correct"}  # the running ones finished, not killed
    subprocess.run(command + ["--resume"], cwd=ROOT, check=True, capture_output=True, timeout=300)
    records = read_lines(tmp_path / "o" / "results.jsonl")
    assert len(records) == 6 and list(chain_problems(records)) == []
