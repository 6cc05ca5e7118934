"""`kbx hw probe`: what this GPU actually achieves (copy bandwidth, matmul throughput) next to its datasheet."""

from __future__ import annotations

from dataclasses import asdict

import torch

from kernelbenchx.errors import DeviceError
from kernelbenchx.evaluator.measure import protocol as timing
from kernelbenchx.evaluator.measure import roofline


def timed_ms(fn, reps: int = 30) -> float:
    stats, _ = timing.time_case(lambda: fn(), [((), {})], timing.Protocol(input_sets=1, min_reps=reps,
                                                                      max_reps=reps, use_graphs=False))
    return stats["median_ms"]


def copy_bandwidth(n: int = 1 << 28) -> float:
    """GB/s of a device-to-device copy of n fp32 values (1 GiB by default: far beyond L2), read + write."""
    src, dst = torch.randn(n, device="cuda"), torch.empty(n, device="cuda")
    return 2 * n * 4 / (timed_ms(lambda: dst.copy_(src)) * 1e-3) / 1e9


def probe() -> dict:
    if not torch.cuda.is_available():
        raise DeviceError("kbx hw probe needs a CUDA GPU")
    name = torch.cuda.get_device_name(0)
    result = {"gpu": name, "copy_gbs": copy_bandwidth()}
    size = 8192
    for label, dtype, tf32 in (("bf16", torch.bfloat16, False), ("fp16", torch.float16, False),
                               ("tf32", torch.float32, True), ("fp32", torch.float32, False)):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        a = torch.randn(size, size, device="cuda", dtype=dtype)
        b = torch.randn(size, size, device="cuda", dtype=dtype)
        ms = timed_ms(lambda: torch.mm(a, b), reps=10)
        result[f"matmul_{label}_tflops"] = 2 * size ** 3 / (ms * 1e-3) / 1e12
    torch.backends.cuda.matmul.allow_tf32 = False
    target = roofline.target_for(name)
    if target:
        result["datasheet"] = asdict(roofline.PEAKS[target])
    return result
