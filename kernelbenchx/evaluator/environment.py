"""The environment fingerprint attached to every result: enough to tell two runs' machines apart."""

from __future__ import annotations

import platform
import subprocess
from functools import lru_cache

import torch

from kernelbenchx import __version__


@lru_cache(maxsize=None)
def fingerprint(device: str) -> dict:
    import triton

    info = {
        "device": device,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "torch": torch.__version__,
        "triton": triton.__version__,
        "kbx": __version__,
        "cuda": torch.version.cuda,
        "gpu": None,
        "gpu_count": torch.cuda.device_count() if device.startswith("cuda") else 0,
        "driver": None,
        "clocks": None,
        "cpu_count": __import__("os").cpu_count(),
        "interpreter": not device.startswith("cuda"),
    }
    if device.startswith("cuda"):
        info["gpu"] = torch.cuda.get_device_name(0)
        info.update(nvidia_smi())
    return info


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
