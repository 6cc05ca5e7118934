"""What an image is built for: its torch/triton builds (equal to the ones its golden timings were measured
with), whether it needs GPUs, and the facts its labels carry.

There is no h200 target: an image per GPU target exists only where that target has a golden file measured
with the image's torch build (kernelbenchx/golden/<target>.json).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from kernelbenchx import __version__
from kernelbenchx.dataset.provenance import CODE_PATHS, checkout_commit, git
from kernelbenchx.image import ImageError

ROOT = Path(__file__).resolve().parents[2]  # the source checkout (pyproject.toml, containers/) when there is one
GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden"
LABEL_PREFIX = "io.kernelbenchx"
WORK = Path("/work")  # inside the container: the submission is mounted under it, read-only
DEFAULT_OUT = WORK / "results"


@dataclass(frozen=True)
class Target:
    name: str
    torch: str  # the exact build, as torch.__version__ reports it
    triton: str
    requirement: str  # how the lock asks for torch
    gpus: bool  # the container gets the host's GPUs
    local_wheel: str | None = None  # a torch wheel that is not on PyPI, looked for on disk before its index
    torch_index: str | None = None  # where that wheel is published (an extra index for the build)

    @property
    def golden(self) -> Path | None:
        path = GOLDEN_DIR / f"{self.name}.json"
        return path if path.exists() else None

    @property
    def lock(self) -> Path:
        return ROOT / "containers" / "lock" / f"{self.name}.txt"


TARGETS = {
    # CI and CPU-only verifiers: the CPU build of torch (PyPI's Linux torch is a CUDA build).
    "cpu": Target("cpu", "2.13.0+cpu", "3.6.0", "torch==2.13.0+cpu", gpus=False,
                  local_wheel="torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl",
                  torch_index="https://download.pytorch.org/whl/cpu"),
    # kernelbenchx/golden/h100.json was measured with torch 2.11.0+cu130 (PyPI's wheel: it bundles CUDA 13.0).
    "h100": Target("h100", "2.11.0+cu130", "3.6.0", "torch==2.11.0", gpus=True),
}


def get_target(name: str) -> Target:
    if name not in TARGETS:
        raise ImageError(f"unknown image target {name!r}", hint=f"targets: {', '.join(TARGETS)} (an image per GPU "
                                                                 "target needs that target's golden file)")
    return TARGETS[name]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def source_commit() -> str:
    """The checkout's commit, with `+dirty` when the files an image carries differ from it."""
    commit = checkout_commit(CODE_PATHS + ("containers",))
    if commit is None:
        raise ImageError(f"{ROOT} is not a git checkout of kbx", hint="build images from a clone of the repository")
    return commit


def dataset_revision() -> str:
    """The commit that last changed the task set (kernelbenchx/dataset): the dataset an image's tasks are."""
    return git("log", "-1", "--format=%H", "--", "kernelbenchx/dataset") or "unknown"


def build_args(target: Target, commit: str, dataset: str) -> dict[str, str]:
    """The build args an image's labels are made of (containers/Dockerfile), checked again inside the image at
    the end of its build (entry.check_facts)."""
    from kernelbenchx.evaluator.measure.environment import task_set_hash

    golden = target.golden
    return {"TARGET": target.name, "KBX_VERSION": __version__, "KBX_COMMIT": commit, "DATASET_REVISION": dataset,
            "TASK_SET_SHA256": task_set_hash(), "GOLDEN_SHA256": sha256(golden) if golden else "none",
            "LOCK_SHA256": sha256(target.lock), "TORCH_BUILD": target.torch, "TRITON_BUILD": target.triton}


LABELS = {"TARGET": f"{LABEL_PREFIX}.target", "KBX_VERSION": "org.opencontainers.image.version",
          "KBX_COMMIT": "org.opencontainers.image.revision", "DATASET_REVISION": f"{LABEL_PREFIX}.dataset-revision",
          "TASK_SET_SHA256": f"{LABEL_PREFIX}.task-set-sha256", "GOLDEN_SHA256": f"{LABEL_PREFIX}.golden-sha256",
          "LOCK_SHA256": f"{LABEL_PREFIX}.lock-sha256", "TORCH_BUILD": f"{LABEL_PREFIX}.torch",
          "TRITON_BUILD": f"{LABEL_PREFIX}.triton"}  # build arg → the label containers/Dockerfile sets from it
