"""The environment fingerprint attached to every result: enough to tell two runs' machines apart and to tie a
result to the code, the task set and the image that produced it."""

from __future__ import annotations

import os
import platform
import subprocess
from functools import lru_cache
from pathlib import Path

import numpy
import torch

from kernelbenchx import __version__
from kernelbenchx.dataset.provenance import kbx_commit, task_set_hash  # noqa: F401  (re-exported)


def interpreter_problem() -> str | None:
    """Why the Triton CPU interpreter cannot judge here (None: it can). numpy 2.4 broke the interpreter's
    runtime-bounded `for` loops (triton 3.6): every kernel with one would end as a runtime error."""
    major, minor = (int(part) for part in numpy.__version__.split(".")[:2])
    if (major, minor) >= (2, 4):
        return (f"numpy {numpy.__version__} breaks runtime-bounded loops in the Triton interpreter; "
                "the CPU path needs numpy < 2.4 (as kbx's requirements pin)")
    return None


@lru_cache(maxsize=None)
def fingerprint(device: str) -> dict:
    import triton

    info = {
        "device": device, "python": platform.python_version(), "platform": platform.platform(),
        "torch": torch.__version__, "triton": triton.__version__, "numpy": numpy.__version__, "kbx": __version__,
        "kbx_commit": kbx_commit(), "task_set_sha256": task_set_hash(), "cuda": torch.version.cuda,
        "cpu": cpu_model(), "cpu_count": os.cpu_count(), "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "gpu": None, "gpu_count": torch.cuda.device_count() if device.startswith("cuda") else 0,
        "driver": None, "clocks": None, "interpreter": not device.startswith("cuda"),
        "image_id": os.environ.get("KBX_IMAGE_ID"), "dataset_revision": os.environ.get("KBX_DATASET_REVISION"),
        "target": os.environ.get("KBX_TARGET"),
    }
    if device.startswith("cuda"):
        info["gpu"] = torch.cuda.get_device_name(0)
        info.update(nvidia_smi())
    return info


def cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def nvidia_smi() -> dict:
    query = "driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw"
    try:
        out = subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=10).stdout.strip().splitlines()
    except (OSError, subprocess.TimeoutExpired):
        return {}
    if not out:
        return {}
    fields = [f.strip() for f in out[0].split(",")]
    keys = ["sm_mhz", "max_sm_mhz", "mem_mhz", "temperature_c", "power_w"]
    return {"driver": fields[0], "clocks": dict(zip(keys, fields[1:]))}


def gpu_identity(index: int) -> dict:
    """Index, name and UUID of the GPU (as the run sees it) that timed a candidate."""
    props = torch.cuda.get_device_properties(index)
    uuid = getattr(props, "uuid", None)
    return {"index": index, "name": props.name, "uuid": str(uuid) if uuid is not None else None}
