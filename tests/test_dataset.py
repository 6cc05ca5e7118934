"""The Hugging Face dataset folder loads offline with datasets.load_dataset."""

import io

import datasets
import pytest
import torch

from kernelbenchx.dataset.hub import build_dataset
from kernelbenchx.dataset.registry import all_tasks, get_task


@pytest.mark.shared
def test_build_and_load_offline(tmp_path, shared_upstream, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    counts = build_dataset(tmp_path / "ds", corpus=shared_upstream / "all_records.jsonl")
    assert counts["tasks"] == len(all_tasks()) and counts["kernels"] == 220
    tasks = datasets.load_dataset(str(tmp_path / "ds"), "tasks", split="train",
                                  cache_dir=str(tmp_path / "cache"))
    row = tasks.filter(lambda r: r["id"] == "Activation/gelu")[0]
    assert row["category"] == "Activation" and "Numerical contract" in row["prompt"]
    assert row["rtol"] == get_task("Activation/gelu").contract.tolerance.rtol and "def reference" in row["reference_source"]
    cases = datasets.load_dataset(str(tmp_path / "ds"), "cases", split="train", cache_dir=str(tmp_path / "cache"))
    first = cases.filter(lambda r: r["task_id"] == "Reduce/sum")[0]
    inputs = torch.load(io.BytesIO(first["inputs"]), weights_only=True)
    expected = torch.load(io.BytesIO(first["expected"]), weights_only=True)
    assert torch.allclose(get_task("Reduce/sum").reference(*inputs["args"], **inputs["kwargs"]), expected)
    readme = (tmp_path / "ds" / "README.md").read_text()
    assert readme.startswith("---\n") and "config_name: tasks" in readme
