"""Per-GPU peak numbers, achieved throughput, roofline fractions and the plausibility gate.

Peaks are dense (no 2:4 sparsity), at boost clock, from each vendor datasheet named in ``source``. The
fraction of roofline is t_min / t, with t_min = max(FLOPs / peak[unit], bytes / peak bandwidth): 1.0 means the
kernel ran at the hardware's limit for its compulsory work. A measured time below t_min / (1 + margin)
is physically implausible (work skipped, cached or hidden) and is rejected, not reported as a speedup.
"""

from __future__ import annotations

from dataclasses import dataclass

IMPLAUSIBLE_MARGIN = 0.15  # tolerance for clock boost above the datasheet and counting slack


@dataclass(frozen=True)
class Peaks:
    name: str
    tflops: dict[str, float]  # by compute unit: fp64, fp32, tf32, fp16, bf16, int8, int
    bandwidth_gbs: float
    source: str


PEAKS = {
    "h100": Peaks("NVIDIA H100 SXM5 80GB", {"fp64": 66.9, "fp32": 66.9, "tf32": 494.7, "fp16": 989.4,
                                            "bf16": 989.4, "int8": 1978.9, "int": 66.9}, 3350.0,
                  "NVIDIA H100 Tensor Core GPU datasheet (SXM column; dense = sparse/2; fp64 via tensor cores)"),
    "h200": Peaks("NVIDIA H200 SXM 141GB", {"fp64": 66.9, "fp32": 66.9, "tf32": 494.7, "fp16": 989.4,
                                            "bf16": 989.4, "int8": 1978.9, "int": 66.9}, 4800.0,
                  "NVIDIA H200 Tensor Core GPU datasheet (SXM column; dense = sparse/2)"),
    "h800": Peaks("NVIDIA H800 SXM5 80GB", {"fp64": 1.0, "fp32": 66.9, "tf32": 494.7, "fp16": 989.4,
                                            "bf16": 989.4, "int8": 1978.9, "int": 66.9}, 3350.0,
                  "NVIDIA H800 datasheet (SXM; export variant of H100 with reduced FP64 and NVLink)"),
    "h20": Peaks("NVIDIA H20 96GB", {"fp64": 1.0, "fp32": 44.0, "tf32": 74.0, "fp16": 148.0, "bf16": 148.0,
                                     "int8": 296.0, "int": 44.0}, 4000.0, "NVIDIA H20 product brief (dense)"),
    "a100": Peaks("NVIDIA A100 SXM4 80GB", {"fp64": 19.5, "fp32": 19.5, "tf32": 156.0, "fp16": 312.0,
                                            "bf16": 312.0, "int8": 624.0, "int": 19.5}, 2039.0,
                  "NVIDIA A100 Tensor Core GPU datasheet (80GB SXM column; dense)"),
    "l40s": Peaks("NVIDIA L40S", {"fp64": 1.4, "fp32": 91.6, "tf32": 183.0, "fp16": 362.0, "bf16": 362.0,
                                  "int8": 733.0, "int": 91.6}, 864.0, "NVIDIA L40S datasheet (dense)"),
    "4090": Peaks("NVIDIA GeForce RTX 4090", {"fp64": 1.3, "fp32": 82.6, "tf32": 82.6, "fp16": 165.2,
                                              "bf16": 165.2, "int8": 660.6, "int": 82.6}, 1008.0,
                  "NVIDIA Ada GPU architecture whitepaper, RTX 4090 (fp32 accumulate, dense)"),
    "5090": Peaks("NVIDIA GeForce RTX 5090", {"fp64": 1.6, "fp32": 104.8, "tf32": 104.8, "fp16": 209.5,
                                              "bf16": 209.5, "int8": 838.0, "int": 104.8}, 1792.0,
                  "NVIDIA RTX Blackwell GPU architecture whitepaper, RTX 5090 (fp32 accumulate, dense)"),
}


def target_for(gpu_name: str | None) -> str | None:
    """The peak-table key for a torch device name, e.g. 'NVIDIA H100 80GB HBM3' → 'h100'."""
    if not gpu_name:
        return None
    name = gpu_name.lower().replace(" ", "")
    for key in ("h200", "h100", "h800", "h20", "a100", "l40s", "4090", "5090"):
        if key in name:
            return key
    return None


def roofline(flops: float, nbytes: float, unit: str, ms: float, peaks: Peaks) -> dict:
    seconds = ms * 1e-3
    peak_flops = peaks.tflops.get(unit, peaks.tflops["fp32"]) * 1e12
    t_min = max(flops / peak_flops, nbytes / (peaks.bandwidth_gbs * 1e9))
    return {"tflops": flops / seconds / 1e12 if seconds else None,
            "gbs": nbytes / seconds / 1e9 if seconds else None,
            "roofline_fraction": t_min / seconds if seconds else None,
            "t_min_ms": t_min * 1e3, "bound": "compute" if flops / peak_flops >= nbytes / (
                peaks.bandwidth_gbs * 1e9) else "memory"}


def implausible(fraction: float | None) -> bool:
    return fraction is not None and fraction > 1.0 + IMPLAUSIBLE_MARGIN
