"""kbx's reference Triton solutions pass the full sandboxed pipeline on the CPU interpreter: the proof that
each contract is satisfiable. CI runs a rotating sample (a different one each day) plus every solution whose
task or solution changed in the last commits; `KBX_FULL=1 python -m pytest tests/test_solutions.py` runs
all of them (GPU: `benchmarks/gpu_session.sh`)."""

import datetime
import json
import os
import random
import subprocess

import pytest

from kernelbenchx.evaluator.parent.run import RunConfig, evaluate_submission
from kernelbenchx.evaluator.parent.rundir import read_results
from tests.conftest import ROOT, SOLUTIONS

ALL = sorted(SOLUTIONS.glob("*/*.py"))
SAMPLE = 14
RECENT_COMMITS = 10


def task_id(path):
    return f"{path.parent.name}/{path.stem}"


def recently_touched() -> set[str]:
    """Tasks whose module or solution changed in the last commits (when git history is at hand)."""
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "log", f"-{RECENT_COMMITS}", "--name-only", "--format="],
                             capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return set()
    touched = set()
    for line in out.splitlines():
        for prefix in ("kernelbenchx/solutions/", "kernelbenchx/dataset/tasks/"):
            if line.startswith(prefix) and line.endswith(".py") and "/_" not in line:
                touched.add(line[len(prefix):-3])
    return touched


def chosen() -> list:
    if os.environ.get("KBX_FULL"):
        return ALL
    rotating = set(random.Random(datetime.date.today().toordinal()).sample(ALL, min(SAMPLE, len(ALL))))
    touched = recently_touched()
    recent = sorted(p for p in ALL if task_id(p) in touched)[:SAMPLE]
    return sorted(rotating | set(recent))


FILES = chosen()


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    out = tmp_path_factory.mktemp("solutions")
    with open(out / "submission.jsonl", "w") as f:
        for path in FILES:
            f.write(json.dumps({"task_id": task_id(path), "code": path.read_text()}) + "\n")
    evaluate_submission(out / "submission.jsonl", RunConfig(out_dir=out / "res", device="cpu", timeout_s=900,
                                                            task_set="submitted"))
    return {r.task_id: r for r in read_results(out / "res")}


@pytest.mark.parametrize("path", FILES, ids=task_id)
def test_solution_is_correct(path, records):
    record = records[task_id(path)]
    if record.verdict.value == "unsupported_on_cpu":
        pytest.skip(f"needs a GPU: {record.message[:200]}")  # bf16 tasks, autotune/libdevice solutions
    assert record.verdict.value == "correct", record.message


def test_every_paper_task_has_a_solution():
    from kernelbenchx.dataset.registry import all_tasks

    missing = [t for t in all_tasks() if not (SOLUTIONS / f"{t}.py").exists()]
    assert not missing, f"{len(missing)} tasks without a reference solution: {missing[:10]}"


def solutions_table():
    import importlib.util

    spec = importlib.util.spec_from_file_location("solutions_table", ROOT / "benchmarks" / "solutions_table.py")
    table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(table)
    return table


def test_every_solution_slower_than_eager_says_why():
    """A solution below 0.95x eager on the kept GPU runs has a reason in benchmarks/slower_than_eager.json, and
    a reason is dropped once its solution is no longer slower (a stale excuse would misdescribe the kernel)."""
    table = solutions_table()
    slow, reasons = table.slower_than_eager(table.kept_results()), table.kept_reasons()
    assert slow, "the kept runs show no solution slower than eager: check the runs are read"
    assert sorted(set(slow) - set(reasons)) == [], "slower than eager without a reason"
    assert sorted(set(reasons) - set(slow)) == [], "a reason for a solution that is not slower than eager"
    assert all(len(why) > 40 for why in reasons.values())


def test_docs_solutions_md_is_the_table_of_the_kept_gpu_runs():
    """docs/solutions.md is generated (benchmarks/solutions_table.py) from the runs kept in benchmarks/runs; a
    solution edited since its run drops out of it, so the page never shows a record of code no longer kept."""
    table = solutions_table()
    assert (ROOT / "docs" / "solutions.md").read_text() == table.kept_table(), (
        "regenerate: python benchmarks/solutions_table.py > docs/solutions.md")
