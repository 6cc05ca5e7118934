"""Many hosts through Ray, tested on a local cluster on the CPU path: the same verdicts as a local run, one
chained results file, resume without duplicates."""

import json

import pytest

from kernelbenchx.evaluator.parent.run import RunConfig, evaluate_submission
from kernelbenchx.evaluator.parent.rundir import chain_problems, read_lines, read_results
from tests.conftest import SOLUTIONS

ray = pytest.importorskip("ray")
GELU = (SOLUTIONS / "Activation" / "gelu.py").read_text()


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def test_a_ray_run_matches_the_local_verdicts_and_resumes(cluster, tmp_path):
    sub = tmp_path / "s.jsonl"
    lines = [{"task_id": "Activation/gelu", "code": GELU},
             {"task_id": "Activation/gelu", "code": GELU.replace("0.7071067811865476", "0.7")},
             {"task_id": "Activation/gelu", "code": "def gelu(:"}]
    sub.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    config = dict(device="cpu", timeout_s=180, workers=1, task_set="submitted")
    evaluate_submission(sub, RunConfig(out_dir=tmp_path / "ray", ray="local", **config))
    results = read_results(tmp_path / "ray")
    assert sorted((r.candidate.source, r.verdict.value) for r in results) == [
        ("s.jsonl:1", "correct"), ("s.jsonl:2", "incorrect"), ("s.jsonl:3", "compile_error")]
    assert list(chain_problems(read_lines(tmp_path / "ray" / "results.jsonl"))) == []
    records = read_lines(tmp_path / "ray" / "results.jsonl")
    (tmp_path / "ray" / "results.jsonl").write_text("".join(records[:1]))  # as if interrupted after one
    evaluate_submission(sub, RunConfig(out_dir=tmp_path / "ray", ray="local", resume=True, **config))
    again = read_results(tmp_path / "ray")
    assert len(again) == 3 and len({r.key for r in again}) == 3
    assert list(chain_problems(read_lines(tmp_path / "ray" / "results.jsonl"))) == []
