"""`kbx verify` passes a genuine CPU run at L0–L3 and fails every tampered copy with a named reason."""

import json
import shutil

import pytest

from kernelbenchx.evaluator.parent.run import RunConfig, evaluate_submission
from kernelbenchx.verify import FAILED, NOT_RUNNABLE, VERIFIED, verify
from tests.conftest import ROOT, SOLUTIONS

GELU = (SOLUTIONS / "Activation" / "gelu.py").read_text()


@pytest.fixture(scope="module")
def genuine(tmp_path_factory):
    root = tmp_path_factory.mktemp("verify")
    sub = root / "submission.jsonl"
    lines = [{"task_id": "Activation/gelu", "code": GELU},
             {"task_id": "Activation/gelu", "code": GELU.replace("0.7071067811865476", "0.7")},
             {"task_id": "Activation/relu", "code": "import torch\ndef relu(x):\n    return x\n"},
             {"task_id": "Activation/gelu", "code": "def gelu(:"}]
    sub.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    evaluate_submission(sub, RunConfig(out_dir=root / "run", device="cpu", timeout_s=300, task_set="submitted"))
    return root, sub


def test_a_genuine_run_verifies_at_levels_0_to_3(genuine):
    root, sub = genuine
    report = verify(root / "run", sub, level=3)
    assert report.problems == [] and report.status == VERIFIED
    assert report.levels == {0: "verified", 1: "verified", 2: "verified", 3: "verified"}


def test_a_kept_gpu_run_verifies_on_a_cpu_machine_up_to_the_rejudge(tmp_path):
    """The H200 run kept in benchmarks/runs (4 solutions, verified there at L4): a third party without a GPU
    checks its files, integrity and environment and re-judges its correctness on the CPU interpreter."""
    kept = ROOT / "benchmarks" / "runs" / "2026-11-26-h200" / "5-db7bd1f-small-verified"
    run = shutil.copytree(kept, tmp_path / "run")
    report = verify(run, run / "submission.jsonl", level=3)
    assert report.problems == [] and report.levels == {0: "verified", 1: "verified", 2: "verified", 3: "verified"}
    records = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    assert {r["environment"]["gpu"] for r in records} == {"NVIDIA H200"}


def test_level_4_is_not_runnable_without_a_gpu(genuine):
    import torch

    if torch.cuda.is_available():
        pytest.skip("a GPU is present: L4 runs for real (see the issue notes)")
    root, sub = genuine
    report = verify(root / "run", sub, level=4)
    assert report.status == NOT_RUNNABLE and report.levels[4].startswith("not runnable")


def tampered(genuine, tmp_path, edit):
    root, sub = genuine
    copy = tmp_path / "run"
    shutil.copytree(root / "run", copy)
    lines = (copy / "results.jsonl").read_text().splitlines(keepends=True)
    records = [json.loads(line) for line in lines]
    edit(copy, lines, records)
    return verify(copy, sub, level=2)


def rewrite(copy, records):
    (copy / "results.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records))


def flip_verdict(copy, lines, records):
    i = next(i for i, r in enumerate(records) if r["verdict"] == "incorrect")
    records[i]["verdict"], records[i]["reason"]["code"] = "correct", "passed"
    rewrite(copy, records)


def edit_speedup(copy, lines, records):
    records[0]["stages"]["perf"] = {"status": "measured", "speedup_geomean": {"eager": 9.9}, "cases": []}
    rewrite(copy, records)


def edit_summary_rate(copy, lines, records):
    summary = json.loads((copy / "summary.json").read_text())
    summary["overall"]["correct_rate"] = 1.0
    (copy / "summary.json").write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n")


def drop_record(copy, lines, records):
    (copy / "results.jsonl").write_text("".join(lines[:1] + lines[2:]))


def duplicate_record(copy, lines, records):
    (copy / "results.jsonl").write_text("".join(lines + lines[-1:]))


def insert_record(copy, lines, records):
    forged = dict(records[0], key="Activation/gelu|9|||forged", verdict="correct")
    (copy / "results.jsonl").write_text("".join(lines[:1] + [json.dumps(forged, sort_keys=True) + "\n"] + lines[1:]))


def change_code_hash(copy, lines, records):
    records[-1]["candidate"]["code_sha256"] = "f" * 64
    rewrite(copy, records)


def swap_seed(copy, lines, records):
    info = json.loads((copy / "run.json").read_text())
    info["seed"] += 1
    (copy / "run.json").write_text(json.dumps(info, indent=2) + "\n")


def mismatch_environment(copy, lines, records):
    records[1]["environment"]["torch"] = "9.9.9"
    rewrite(copy, records)


@pytest.mark.parametrize("edit, reasons", [
    (flip_verdict, {"manifest_mismatch", "chain_broken"}),
    (edit_speedup, {"manifest_mismatch", "chain_broken"}),
    (edit_summary_rate, {"manifest_mismatch", "summary_mismatch"}),
    (drop_record, {"manifest_mismatch", "chain_broken", "record_count"}),
    (duplicate_record, {"manifest_mismatch", "chain_broken", "duplicate_key"}),
    (insert_record, {"manifest_mismatch", "chain_broken"}),
    (change_code_hash, {"manifest_mismatch", "unknown_code_hash"}),
    (swap_seed, {"manifest_mismatch", "seed_mismatch"}),
    (mismatch_environment, {"manifest_mismatch", "chain_broken"}),
], ids=lambda v: getattr(v, "__name__", ""))
def test_every_tamper_fails_with_its_reason(genuine, tmp_path, edit, reasons):
    report = tampered(genuine, tmp_path, edit)
    found = {code for code, _ in report.problems}
    assert report.status == FAILED and reasons <= found, report.problems


def test_a_consistent_forgery_still_fails_the_rejudge(genuine, tmp_path):
    """Rewrite the whole run consistently (chain, summary and manifest recomputed) with a flipped verdict:
    only re-judging the submission (L3) can tell."""
    from kernelbenchx.evaluator.parent.rundir import RunDir
    from kernelbenchx.evaluator.parent.summary import summarize
    from kernelbenchx.evaluator.result import GENESIS, Result, line_hash

    root, sub = genuine
    copy = tmp_path / "run"
    shutil.copytree(root / "run", copy)
    results = [Result.from_json(json.loads(line)) for line in (copy / "results.jsonl").read_text().splitlines()]
    results = [json.loads(r.line()) for r in results]
    for r in results:
        if r["verdict"] == "incorrect":
            r["verdict"], r["reason"] = "correct", {"code": "passed", "message": "passed stage 1 and stage 2"}
    prev, out = GENESIS, []
    for i, r in enumerate(results):
        r["chain"] = {"index": i, "prev": prev}
        line = json.dumps(r, sort_keys=True) + "\n"
        out.append(line)
        prev = line_hash(line)
    (copy / "results.jsonl").write_text("".join(out))
    info = json.loads((copy / "run.json").read_text())
    summary = summarize([Result.from_json(json.loads(line)) for line in out], "submitted",
                        submitted=[r["candidate"]["task_id"] for r in results], run=info)
    rundir = RunDir(copy, info)
    rundir.write_summary(summary)
    rundir.write_manifest(sub)
    assert verify(copy, sub, level=2).status == VERIFIED  # consistent all the way to L2
    report = verify(copy, sub, level=3)
    assert report.status == FAILED and {c for c, _ in report.problems} == {"verdict_mismatch"}


def test_an_interpreter_broken_by_numpy_2_4_makes_the_rejudge_not_runnable_not_a_false_failure(genuine, monkeypatch):
    # On the lent GPU host (numpy 2.4) L3 re-judged two correct solutions as runtime errors: their kernels loop
    # to a runtime bound, which that numpy breaks in the Triton interpreter.
    import numpy

    from kernelbenchx.errors import DeviceError

    monkeypatch.setattr(numpy, "__version__", "2.4.1")
    root, sub = genuine
    report = verify(root / "run", sub, level=3)
    assert report.status == NOT_RUNNABLE and "numpy 2.4.1" in report.levels[3] and report.problems == []
    with pytest.raises(DeviceError, match="numpy 2.4.1"):
        RunConfig(out_dir=root / "again", device="cpu").resolved_device()
