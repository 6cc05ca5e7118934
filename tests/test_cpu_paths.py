"""Expected outputs do not depend on the CPU's vector unit: every task's stage-1 expected outputs, computed
with the machine's default ATen CPU capability and with vectorization off (ATEN_CPU_CAPABILITY=default), have
NaN and ±inf at the same positions, identical integers, and floating values within the task's contract of each
other (dataset/cpu_paths.py)."""

import os
import subprocess
import sys

import torch

from kernelbenchx.dataset.cpu_paths import differences
from tests.conftest import ROOT


def run(*args, capability=None):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if capability:
        env["ATEN_CPU_CAPABILITY"] = capability
    subprocess.run([sys.executable, "-m", "kernelbenchx.dataset.cpu_paths", *map(str, args)], check=True, env=env,
                   timeout=1500, capture_output=True)


def test_expected_outputs_are_the_same_on_scalar_and_vector_paths(tmp_path):
    run("cases", tmp_path / "cases.pt")  # the same inputs for both paths
    run("expected", tmp_path / "cases.pt", tmp_path / "native.pt")
    run("expected", tmp_path / "cases.pt", tmp_path / "scalar.pt", capability="default")
    load = lambda name: torch.load(tmp_path / name, weights_only=False)  # noqa: E731
    problems = differences(load("native.pt"), load("scalar.pt"), load("cases.pt"))
    assert not problems, "\n".join(problems[:40])


def test_the_environment_records_the_cpu_capability():
    from kernelbenchx.evaluator.measure.environment import fingerprint

    assert fingerprint("cpu")["cpu_capability"] == torch.backends.cpu.get_cpu_capability()
