"""Numerical contracts: what a correct output is, stated so a prompt can say it and a checker can test it.

Elementwise rule for floating tensors (``compare``):
- same structure (tensor / tuple / list / python scalar), same shape, same dtype;
- NaN exactly where the reference has NaN, ±inf exactly where the reference has ±inf;
- finite values: |out − ref| ≤ atol + rtol·|ref|, where atol is scaled by the reference's RMS
  when ``Tolerance.scale == "rms"`` (matrix products, whose error grows with the reduction length), or
  elementwise by an error bound the trusted side computes from the inputs when ``scale == "bound"``
  (reductions: the bound grows with the reduction's length and the magnitude of its terms);
- optionally, the relative RMS error ‖out − ref‖₂ / ‖ref‖₂ ≤ ``rel_rms`` (separates precisions: TF32 products
  pass, bf16 operands fail, where an elementwise bound loose enough for the tails cannot tell them apart);
- complex values: real and imaginary parts each by the float rule;
- integer and boolean values: exactly equal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

FLOAT_DEFAULTS = {
    torch.float16: (5e-3, 5e-3),
    torch.bfloat16: (1.6e-2, 1.6e-2),
    torch.float32: (1e-5, 1e-5),
    torch.float64: (1e-7, 1e-7),
}


LAYOUT_KINDS = ("transposed", "sliced", "strided", "offset", "expanded")  # see dataset/layouts.py
SCALES = ("abs", "rms", "bound")


@dataclass(frozen=True)
class Tolerance:
    rtol: float
    atol: float
    scale: str = "abs"  # "abs": atol as given; "rms": atol × RMS(reference); "bound": atol × the task's error bound
    rel_rms: float | None = None  # also require ‖out − ref‖₂ ≤ rel_rms·‖ref‖₂ over the finite entries

    def __post_init__(self) -> None:
        if self.scale not in SCALES:
            raise ValueError(f"tolerance scale must be one of {SCALES}, got {self.scale!r}")

    def describe(self) -> str:
        atol = {"abs": f"{self.atol:g}", "rms": f"{self.atol:g}·RMS(reference)",
                "bound": (f"{self.atol:g}·" if self.atol != 1 else "") + "B (the error bound stated below)"}[self.scale]
        text = f"|out − ref| ≤ {atol} + {self.rtol:g}·|ref| elementwise"
        if self.rel_rms is not None:
            text += f", and ‖out − ref‖₂ ≤ {self.rel_rms:g}·‖ref‖₂ over each output tensor"
        return text


def default_tolerance(dtype: torch.dtype) -> Tolerance:
    rtol, atol = FLOAT_DEFAULTS.get(dtype, (1e-5, 1e-5))
    return Tolerance(rtol, atol)


@dataclass(frozen=True)
class Contract:
    """The numerical and behavioural promises a correct kernel must keep."""

    dtypes: str  # prose: input and output dtypes
    tolerance: Tolerance
    accumulation: str = "fp32"
    tf32: bool = False
    mutates: tuple[int, ...] = ()  # positional arguments updated in place; their final values are compared
    # Repeated calls on the same inputs: None (default) — exact outputs (integers, booleans) bitwise equal,
    # floating outputs each within the tolerance (atomics and split reductions are fine); True — bitwise
    # identical (the task says so); False — unconstrained (sampling without a seed).
    deterministic: bool | None = None
    seed_kwarg: str | None = None  # RNG tasks: the keyword argument whose value must change the output
    layouts: tuple[str, ...] = LAYOUT_KINDS  # input layouts the cases use; () = contiguous inputs only
    bound: str = ""  # with Tolerance(scale="bound"): the error bound B in words, for the prompt
    precision: str = ""  # what the tolerance admits and rejects (e.g. "TF32 products pass, bf16 operands fail")
    notes: str = ""

    def __post_init__(self) -> None:
        unknown = set(self.layouts) - set(LAYOUT_KINDS)
        if unknown:
            raise ValueError(f"unknown layout kinds {sorted(unknown)}; known: {LAYOUT_KINDS}")
        if (self.tolerance.scale == "bound") != bool(self.bound):
            raise ValueError("Tolerance(scale='bound') and Contract.bound (its description) go together")

    def describe(self, custom_check: bool = False) -> str:
        tolerance = (f"- Correctness is judged by the task's own check (see the last point); where values are "
                     f"compared directly: {self.tolerance.describe()}." if custom_check else
                     f"- Tolerance: {self.tolerance.describe()}; NaN and ±inf must appear exactly where the "
                     "reference has them; integer and boolean outputs must match exactly; shapes and dtypes must "
                     "match exactly.")
        lines = [
            f"- Dtypes: {self.dtypes}.",
            f"- Accumulate in {self.accumulation}."
            + (" TF32 tensor-core products are allowed for fp32 inputs." if self.tf32
               else " Do not use TF32 or lower precision for fp32 data (tl.dot(..., input_precision='ieee'))."),
            tolerance,
        ]
        if self.bound:
            lines.append(f"- Error bound B: {self.bound}.")
        if self.precision:
            lines.append(f"- Precision: {self.precision}.")
        lines.append(self.describe_layouts())
        if self.mutates:
            lines.append(f"- Updates positional argument(s) {list(self.mutates)} in place; their final values are "
                         "checked too. Other inputs must be left unchanged.")
        else:
            lines.append("- Inputs must be left unchanged; outputs must be new tensors (no aliasing of inputs).")
        lines.append({True: "- Two calls on the same inputs must give bitwise identical results.",
                      None: "- Two calls on the same inputs must both meet the contract; integer and boolean "
                            "outputs must be identical, floating outputs may differ within the tolerance "
                            "(atomics and split reductions are fine).",
                      False: "- Repeated calls may differ (the output is random), within the contract."}
                     [self.deterministic])
        if self.seed_kwarg:
            lines.append(f"- The same `{self.seed_kwarg}` must give the same output; a different `{self.seed_kwarg}` "
                         "must give a different random stream (this is checked).")
        if self.notes:
            lines.append(f"- {self.notes}")
        return "\n".join(lines)

    def describe_layouts(self) -> str:
        if not self.layouts:
            return "- Tensor inputs are contiguous (row-major, storage offset 0)."
        kinds = ", ".join(k if k != "expanded" else "expanded (stride 0, for floating inputs that are not "
                          "updated in place)" for k in self.layouts)
        return ("- Tensor inputs may be non-contiguous views: " + kinds + ". Read them through their strides "
                "(or make them contiguous first); in-place arguments must be updated through their own view.")

    def compared_outputs(self, call: Any, output: Any) -> Any:
        """What is compared: the return value, plus in-place arguments' final values."""
        if not self.mutates:
            return output
        return (output, *(call.args[i] for i in self.mutates))

    def compare(self, output: Any, expected: Any, bound: Any = None) -> str | None:
        return compare(output, expected, self.tolerance, bound=bound)


def compare(output: Any, expected: Any, tol: Tolerance, path: str = "output", bound: Any = None) -> str | None:
    """None when `output` matches `expected` under `tol`, else a one-line reason naming where. `bound` (same
    structure as `expected`, tensors broadcastable to it) is the per-element error bound of scale "bound"."""
    if tol.scale == "bound" and bound is None:
        raise ValueError(f"{path}: a 'bound' tolerance needs the error bound computed by the trusted side")
    if isinstance(expected, torch.Tensor):
        if not isinstance(output, torch.Tensor):
            return f"{path}: expected a tensor, got {type(output).__name__}"
        return compare_tensors(output, expected, tol, path, bound)
    if isinstance(expected, (tuple, list)):
        if not isinstance(output, (tuple, list)):
            return f"{path}: expected a sequence of {len(expected)}, got {type(output).__name__}"
        if len(output) != len(expected):
            return f"{path}: expected {len(expected)} items, got {len(output)}"
        for i, (o, e) in enumerate(zip(output, expected)):
            reason = compare(o, e, tol, f"{path}[{i}]", bound[i] if isinstance(bound, (tuple, list)) else bound)
            if reason:
                return reason
        return None
    if isinstance(expected, (bool, int, float, complex)):
        return compare_scalars(output, expected, tol, path, bound)
    if expected is None:
        return None if output is None else f"{path}: expected None, got {type(output).__name__}"
    return f"{path}: unsupported reference type {type(expected).__name__}"


def compare_scalars(output: Any, expected: Any, tol: Tolerance, path: str, bound: Any = None) -> str | None:
    if isinstance(output, torch.Tensor):
        if output.numel() != 1:
            return f"{path}: expected a scalar, got a tensor of shape {list(output.shape)}"
        output = output.item()
    if not isinstance(output, (bool, int, float, complex)):
        return f"{path}: expected a number, got {type(output).__name__}"
    dtype = torch.complex128 if isinstance(expected, complex) else (
        torch.float64 if isinstance(expected, float) else torch.int64)
    return compare_tensors(torch.tensor(output, dtype=dtype), torch.tensor(expected, dtype=dtype), tol, path,
                           None if bound is None else torch.as_tensor(bound))


def compare_tensors(out: torch.Tensor, ref: torch.Tensor, tol: Tolerance, path: str,
                    bound: torch.Tensor | None = None) -> str | None:
    if out.dtype != ref.dtype:
        return f"{path}: dtype {out.dtype} != expected {ref.dtype}"
    if tuple(out.shape) != tuple(ref.shape):
        return f"{path}: shape {list(out.shape)} != expected {list(ref.shape)}"
    # on the reference's device: the CPU for every correctness case; a GPU judge keeps perf-size outputs there
    out, ref = out.detach().to(ref.device), ref.detach()
    if ref.is_complex():
        if tol.scale == "rms":  # scale by |z|, not by each part: one part of a reference may be all zero
            finite = torch.isfinite(ref.abs())
            rms = float(ref.abs()[finite].double().pow(2).mean().sqrt()) if finite.any() else 0.0
            tol = Tolerance(tol.rtol, tol.atol * rms)
        return (compare_tensors(out.real.contiguous(), ref.real.contiguous(), tol, f"{path}.real", bound)
                or compare_tensors(out.imag.contiguous(), ref.imag.contiguous(), tol, f"{path}.imag", bound))
    if not ref.is_floating_point():
        bad = out != ref
        if bad.any():
            idx = first_index(bad)
            return (f"{path}: {int(bad.sum())} of {ref.numel()} values differ (exact match required); "
                    f"first at {idx}: {out[idx].item()} != {ref[idx].item()}")
        return None
    if bound is not None:
        bound = torch.as_tensor(bound).detach().to(ref.device).double()
    return compare_floats(out.double(), ref.double(), tol, path, bound)


def compare_floats(out: torch.Tensor, ref: torch.Tensor, tol: Tolerance, path: str,
                   bound: torch.Tensor | None = None) -> str | None:
    nan_mismatch = torch.isnan(out) != torch.isnan(ref)
    if nan_mismatch.any():
        idx = first_index(nan_mismatch)
        return (f"{path}: NaN positions differ at {int(nan_mismatch.sum())} elements; "
                f"first at {idx}: {out[idx].item()} vs expected {ref[idx].item()}")
    ref_inf, out_inf = torch.isinf(ref), torch.isinf(out)
    inf_mismatch = (ref_inf != out_inf) | (ref_inf & (out != ref))
    if inf_mismatch.any():
        idx = first_index(inf_mismatch)
        return (f"{path}: ±inf positions differ at {int(inf_mismatch.sum())} elements; "
                f"first at {idx}: {out[idx].item()} vs expected {ref[idx].item()}")
    finite = torch.isfinite(ref)
    atol: float | torch.Tensor = tol.atol
    if tol.scale == "rms" and finite.any():
        atol = tol.atol * float(ref[finite].pow(2).mean().sqrt())
    elif tol.scale == "bound":
        atol = tol.atol * torch.broadcast_to(bound, ref.shape)
    err = torch.where(finite, (out - ref).abs(), torch.zeros_like(ref))
    allowed = atol + tol.rtol * ref.abs()
    bad = finite & (err > allowed)
    if bad.any():
        idx = first_index(bad)
        rel = (err / ref.abs().clamp_min(1e-30))[bad]
        shown = f"{atol:.3g}" if isinstance(atol, float) else f"{float(atol[idx]):.3g} at the first"
        return (f"{path}: {int(bad.sum())} of {ref.numel()} values outside tolerance "
                f"(rtol={tol.rtol:g}, atol={shown}); max abs err {float(err.max()):.3g}, "
                f"max rel err {float(rel.max()):.3g}; first at {idx}: {out[idx].item():.6g} vs {ref[idx].item():.6g}")
    if tol.rel_rms is not None and finite.any():
        norm = float(ref[finite].pow(2).sum().sqrt())
        diff = float(err[finite].pow(2).sum().sqrt())
        if diff > tol.rel_rms * norm:
            return (f"{path}: relative RMS error {diff / max(norm, 1e-300):.3g} exceeds {tol.rel_rms:g} "
                    "(the precision the contract admits)")
    return None


def first_index(mask: torch.Tensor) -> tuple[int, ...]:
    flat = int(mask.reshape(-1).nonzero()[0])
    index = []
    for size in reversed(mask.shape):
        flat, i = divmod(flat, size)
        index.append(i)
    return tuple(reversed(index))
