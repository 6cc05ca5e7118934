"""The checks the stochastic tasks call: dropout outputs (each element dropped or kept, drops independent
Bernoulli(p)) and uniform samples (i.i.d. U[0, 1)), with the contract texts that state them."""

from __future__ import annotations

import functools
from typing import Any

import torch

from kernelbenchx.dataset import host_work
from kernelbenchx.dataset.contract import Tolerance, first_index
from kernelbenchx.dataset.stochastic.bounds import ALPHA, Test, on_cpu, one_thread
from kernelbenchx.dataset.stochastic.cross_seed import seed_tag, tagged_reason
from kernelbenchx.dataset.stochastic.streams import mask_stream, uniform_stream
from kernelbenchx.dataset.stochastic.structure import structure_reason

MASK_TESTS = 5  # statistical tests per dropout output: drop count, block balance, serial pairs, repeats, cross-seed
UNIFORM_TESTS = 7  # KS, block balance, serial pairs, differences, equal values, repeats, cross-seed

DROPOUT_CONTRACT = (
    "Dropout cannot match torch's random stream, so it is judged by its law. Every output element must equal, "
    "within the tolerance, either its value when dropped or its value when kept (pre-dropout value × 1/(1−p)), "
    "both recomputed deterministically from the inputs. Among elements whose two values are distinguishable, "
    "the drops must look like independent Bernoulli(p) draws: the drop count; block balance (drop counts inside "
    "blocks of 16 consecutive elements follow Binomial(16, p): a low-discrepancy mask is too even); serial pairs "
    "(elements at distances 1…8 and m·2^j along every dimension and the flat order are independent); repeats "
    "(no two rows, batch elements, hyperplanes along any dimension or flat chunks agree more or less often than "
    "independent masks do: a mask that repeats every few blocks fails); and cross-seed independence (calls with "
    "the same inputs and seeds such as seed + 1, seed ^ 2^40, seed + 2^33 or another 62-bit seed must give "
    "independent masks: a generator keyed on a few bits of the seed fails). Each test is a union of exact "
    f"Chernoff bounds at false-failure rate {ALPHA:g} (at most {MASK_TESTS} tests per case, so at most "
    f"{MASK_TESTS * ALPHA:g} per case). Draw the mask from all 64 bits of the `seed` argument with a counter-based "
    "generator and one counter per element (e.g. tl.rand(seed, offsets) with distinct offsets for every output "
    "element): the same seed and inputs must give bitwise the same output. With training=False or p = 0 dropout "
    "is the identity and with p = 1 it zeroes everything; those cases are compared elementwise."
)


# ---------------------------------------------------------------------------------------------
# Dropout


def within(out: torch.Tensor, ref: torch.Tensor, tol: Tolerance, rms: float) -> torch.Tensor:
    return (out - ref).abs() <= tol.atol * (rms if tol.scale == "rms" else 1.0) + tol.rtol * ref.abs()


def tensor_reason(out, expected: torch.Tensor, path: str) -> str | None:
    if not isinstance(out, torch.Tensor):
        return f"{path}: expected a tensor, got {type(out).__name__}"
    if out.dtype != expected.dtype:
        return f"{path}: dtype {out.dtype} != expected {expected.dtype}"
    if tuple(out.shape) != tuple(expected.shape):
        return f"{path}: shape {list(out.shape)} != expected {list(expected.shape)}"
    return None


@one_thread
def dropout_reason(out, expected: torch.Tensor, kept: torch.Tensor, dropped, p: float, tol: Tolerance,
                   path: str = "output", kept_alt: torch.Tensor | None = None, *, call: Any = None,
                   seed_kwarg: str | None = "seed") -> str | None:
    """None if `out` is a valid dropout outcome: each element within `tol` of `dropped` or of `kept`
    (or of `kept_alt`, a second acceptable kept value at discontinuities), with drops that pass the tests of
    independent Bernoulli(p) draws, and (given the `call`) independent of the drops of the same inputs under
    other seeds.

    `kept`, `dropped` and `kept_alt` are recomputed deterministically (any float dtype, broadcastable to the
    output); with `tol.scale == "rms"`, atol is scaled by the RMS of `kept`. With `tol.rel_rms`, the output must
    also be within that relative RMS error of the values it was classified as (the precision check).
    """
    reason = tensor_reason(out, expected, path)
    if reason:
        return reason
    shape, device = expected.shape, expected.device  # the CPU, or the GPU of a judge of perf-size outputs
    out = out.detach().to(device).double()
    kept = torch.as_tensor(kept).detach().to(device).double().expand(shape)
    dropped = torch.as_tensor(dropped).detach().to(device).double().expand(shape)
    alt = kept if kept_alt is None else torch.as_tensor(kept_alt).detach().to(device).double().expand(shape)
    if not torch.isfinite(out).all():
        idx = first_index(~torch.isfinite(out))
        return f"{path}: non-finite value {out[idx].item()} at {idx} (every kept and dropped value is finite)"
    rms = float(kept.pow(2).mean().sqrt()) if kept.numel() else 0.0
    is_dropped = within(out, dropped, tol, rms)
    is_kept = within(out, kept, tol, rms) | within(out, alt, tol, rms)
    bad = ~(is_dropped | is_kept)
    if bad.any():
        idx = first_index(bad)
        return (f"{path}: {int(bad.sum())} of {out.numel()} values are neither the dropped value nor the kept value "
                f"(pre-dropout × 1/(1−p)); first at {idx}: {out[idx].item():.6g}, dropped {dropped[idx].item():.6g}, "
                f"kept {kept[idx].item():.6g}")
    if tol.rel_rms is not None and out.numel():
        candidates = torch.stack([dropped, kept, alt])
        nearest = candidates.gather(0, (candidates - out).abs().argmin(0, keepdim=True))[0]
        diff, norm = float((out - nearest).pow(2).sum().sqrt()), float(nearest.pow(2).sum().sqrt())
        if diff > tol.rel_rms * norm:
            return (f"{path}: relative RMS error {diff / max(norm, 1e-300):.3g} to the dropped/kept values exceeds "
                    f"{tol.rel_rms:g} (the precision the contract admits)")
    # Where an element's two outcomes cannot be told apart it carries no information about the mask.
    gap = torch.minimum((kept - dropped).abs(), (alt - dropped).abs())
    margin = 2.0 * (tol.atol * (rms if tol.scale == "rms" else 1.0)) + tol.rtol * (
        kept.abs() + alt.abs() + 2.0 * dropped.abs())
    known = gap > margin
    return mask_reason(is_dropped & known, known, p, path, call=call, seed_kwarg=seed_kwarg)


@one_thread
@on_cpu
def mask_reason(dropped: torch.Tensor, known: torch.Tensor, p: float, path: str, *, call: Any = None,
                seed_kwarg: str | None = "seed") -> str | None:
    """The tests of independent Bernoulli(p) drops on a mask (counted where `known`), plus the cross-seed
    test when the call is given."""
    dropped, known = dropped.cpu(), known.cpu()
    tag = seed_tag(call, seed_kwarg, path, dropped.numel())  # the call's inputs are read here, not in the battery
    return host_work.later(functools.partial(mask_battery, dropped, known, p, path, tag))


@one_thread
@on_cpu
def mask_battery(dropped: torch.Tensor, known: torch.Tensor, p: float, path: str,
                 tag: tuple[str, int] | None) -> str | None:
    stream = mask_stream(dropped, known, p)
    return structure_reason(stream, path) or tagged_reason(tag, stream, path)


# ---------------------------------------------------------------------------------------------
# Uniform samples

UNIFORM_CONTRACT = (
    "Samples are judged by their law: (1) every value finite and in [0, 1) after rounding to the output dtype; "
    "(2) Kolmogorov–Smirnov against U[0, 1) (Dvoretzky–Kiefer–Wolfowitz–Massart bound); (3) block balance: the "
    "number of values below 1/2 in each block of 16 consecutive values follows Binomial(16, 1/2) (a "
    "low-discrepancy sequence such as frac(i·φ) or van der Corput is too even); (4) serial pairs: values at "
    "distances 1…8 and m·2^j along every dimension and the flat order are independent (8×8 cells of the unit "
    "square), (5) their differences mod 1 are uniform, and (6) they are equal no more often than independent "
    "draws (2^-20 for float32, 2^-10 for float16, 2^-32 for float64); (7) repeats: no two rows, slices along any "
    "dimension or flat chunks agree on their top three bits more or less often than independent draws; "
    "(8) cross-seed: calls of the same size with different seeds (seed + 1, seed ^ 2^40, seed + 2^33, another "
    "62-bit seed) give independent streams; (9) float64 output needs more than float32 resolution (fewer than "
    "half the values exactly representable in float32, when n ≥ 16). Each statistical test is a union of exact "
    f"bounds at false-failure rate {ALPHA:g}, at most {UNIFORM_TESTS} per case ({UNIFORM_TESTS * ALPHA:g} per "
    "case); probabilities are widened by the output dtype's resolution."
)


@one_thread
@on_cpu
def uniform_reason(out, expected: torch.Tensor, path: str = "output", *, call: Any = None,
                   seed_kwarg: str | None = "seed") -> str | None:
    """None if `out` (same shape and dtype as `expected`) looks like i.i.d. U[0, 1) samples, independent of
    the samples of the same call under other seeds (given the `call`)."""
    reason = tensor_reason(out, expected, path)
    if reason:
        return reason
    x = out.detach().cpu()
    tag = seed_tag(call, seed_kwarg, path, x.numel())
    return host_work.later(functools.partial(uniform_battery, x, expected.dtype, path, tag))


@one_thread
@on_cpu
def uniform_battery(x: torch.Tensor, dtype: torch.dtype, path: str, tag: tuple[str, int] | None) -> str | None:
    x = x.double()
    n = x.numel()
    if n == 0:
        return None
    flat = x.reshape(-1)
    bad = ~(torch.isfinite(flat) & (flat >= 0) & (flat < 1))
    if bad.any():
        i = int(bad.nonzero()[0])
        return f"{path}: {int(bad.sum())} values outside [0, 1); first at flat index {i}: {flat[i].item()}"
    if dtype == torch.float64 and n >= 16:
        coarse = int((flat == flat.float().double()).sum())
        if coarse > n // 2:
            return f"{path}: {coarse} of {n} float64 values are exactly float32 values (float32 resolution only)"
    stream = uniform_stream(x, dtype=dtype)
    ks = Test("Kolmogorov–Smirnov distance to U[0, 1)")
    ks.ks(flat, stream.slack, "all values")
    return ks.reason(path) or structure_reason(stream, path) or tagged_reason(tag, stream, path)
