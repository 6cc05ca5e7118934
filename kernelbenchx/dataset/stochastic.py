"""Checks for the stochastic tasks (dropout, uniform random numbers) at a fixed false-failure rate.

A kernel cannot reproduce torch's random stream, so these tasks state what a correct output satisfies instead:
- dropout: every element is either the value it takes when dropped or the value it takes when kept
  (pre-dropout × 1/(1−p)), each within the task's tolerance of a deterministic recomputation; and the drops
  look like independent Bernoulli(p) draws (drop count, and pairs of neighbours dropped together);
- uniform samples: range [0, 1), a Kolmogorov–Smirnov distance test, a lag-1 independence test, and no
  repetition of the stream at block-sized lags.
Every statistical test rejects a correct kernel with probability at most ALPHA. The bounds used (Chernoff for
binomial counts, Dvoretzky–Kiefer–Wolfowitz–Massart and Hoeffding for uniform samples) hold at every sample
size, not only asymptotically.
"""

from __future__ import annotations

import inspect
import math

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Tolerance, first_index

ALPHA = 1e-6
LIMIT = math.log(2.0 / ALPHA)  # two-sided Chernoff / DKW / Hoeffding exponent


# ---------------------------------------------------------------------------------------------
# References


def seeded_dropout(input: torch.Tensor, p: float, training: bool, seed: int, inplace: bool = False) -> torch.Tensor:
    """torch's dropout, its mask drawn from torch's generator seeded with `seed`; global RNG state is restored."""
    cuda = input.device.type == "cuda"
    with torch.random.fork_rng(devices=[input.device] if cuda else []):
        if cuda:
            with torch.cuda.device(input.device):
                torch.cuda.manual_seed(seed)
        else:
            torch.default_generator.manual_seed(seed)
        return F.dropout(input, p, training, inplace)


def bind(fn, call) -> dict:
    """The call's arguments by parameter name of `fn`, defaults filled in."""
    bound = inspect.signature(fn).bind(*call.args, **call.kwargs)
    bound.apply_defaults()
    return dict(bound.arguments)


def stochastic(p: float, training: bool) -> bool:
    """Whether dropout draws a mask (otherwise it is the identity, or all zeros for p = 1)."""
    return bool(training) and 0.0 < p < 1.0


DROPOUT_CONTRACT = (
    "Dropout cannot match torch's random stream, so it is judged by its law, at a false-failure rate of "
    f"{ALPHA:g} per statistical test (at most 3 tests per case): every output element must equal, within the "
    "tolerance, either its value when dropped or its value when kept (pre-dropout value × 1/(1−p)), both "
    "recomputed deterministically from the inputs; among elements whose two values are distinguishable, the "
    "number dropped, the number of adjacent pairs dropped together, and the number of vertically adjacent "
    "pairs (consecutive rows of the last two dims) dropped together must pass two-sided Chernoff binomial tests "
    "for Bernoulli(p) and Bernoulli(p²). Draw the mask from the `seed` argument (e.g. tl.rand(seed, offsets)): "
    "the same seed and inputs must give bitwise the same output. With training=False or p = 0 dropout is the "
    "identity and with p = 1 it zeroes everything; those cases are compared elementwise."
)


# ---------------------------------------------------------------------------------------------
# Binomial tests


def kl_bernoulli(a: float, p: float) -> float:
    """KL(Bernoulli(a) ‖ Bernoulli(p)) for p in (0, 1)."""
    def term(x: float, y: float) -> float:
        return 0.0 if x == 0.0 else x * math.log(x / y)
    return term(a, p) + term(1.0 - a, 1.0 - p)


def binomial_reason(k: int, n: int, p: float, what: str) -> str | None:
    """Two-sided Chernoff test of k successes in n Bernoulli(p) trials: rejects when n·KL(k/n ‖ p) > ln(2/ALPHA),
    which a true Bernoulli(p) count does with probability at most ALPHA."""
    if n == 0 or not 0.0 < p < 1.0:
        return None
    if n * kl_bernoulli(k / n, p) > LIMIT:
        return (f"{what}: {k} of {n} ({k / n:.4f}), expected a fraction {p:.4f} "
                f"(rejected at false-failure rate {ALPHA:g})")
    return None


def excess_reason(k: int, n: int, p_max: float, what: str) -> str | None:
    """One-sided Chernoff test: rejects k events in n trials when each has probability at most p_max."""
    if n == 0 or k / n <= p_max:
        return None
    if n * kl_bernoulli(k / n, p_max) > math.log(1.0 / ALPHA):
        return f"{what}: {k} of {n}, at most a fraction {p_max:.3g} expected (rejected at false-failure rate {ALPHA:g})"
    return None


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


def dropout_reason(out, expected: torch.Tensor, kept: torch.Tensor, dropped, p: float, tol: Tolerance,
                   path: str = "output", kept_alt: torch.Tensor | None = None) -> str | None:
    """None if `out` is a valid dropout outcome: each element within `tol` of `dropped` or of `kept`
    (or of `kept_alt`, a second acceptable kept value at discontinuities), with Bernoulli(p) drops.

    `kept`, `dropped` and `kept_alt` are recomputed deterministically (any float dtype, broadcastable to the
    output); with `tol.scale == "rms"`, atol is scaled by the RMS of `kept`.
    """
    reason = tensor_reason(out, expected, path)
    if reason:
        return reason
    shape = expected.shape
    out = out.detach().cpu().double()
    kept = torch.as_tensor(kept).detach().cpu().double().expand(shape)
    dropped = torch.as_tensor(dropped).detach().cpu().double().expand(shape)
    alt = kept if kept_alt is None else torch.as_tensor(kept_alt).detach().cpu().double().expand(shape)
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
    # Where an element's two outcomes cannot be told apart it carries no information about the mask.
    gap = torch.minimum((kept - dropped).abs(), (alt - dropped).abs())
    margin = 2.0 * (tol.atol * (rms if tol.scale == "rms" else 1.0)) + tol.rtol * (
        kept.abs() + alt.abs() + 2.0 * dropped.abs())
    known = gap > margin
    return mask_reason(is_dropped & known, known, p, path)


def mask_reason(dropped: torch.Tensor, known: torch.Tensor, p: float, path: str) -> str | None:
    """Binomial tests on a drop mask, counted where `known`: drops, horizontal pairs, vertical pairs."""
    reason = binomial_reason(int(dropped.sum()), int(known.sum()), p, f"{path}: dropped elements")
    if reason:
        return reason
    flat_d, flat_k = dropped.reshape(-1), known.reshape(-1)
    half = flat_d.numel() // 2 * 2
    d, k = flat_d[:half].reshape(-1, 2), flat_k[:half].reshape(-1, 2)
    both = k.all(1)
    reason = binomial_reason(int((d.all(1) & both).sum()), int(both.sum()), p * p,
                             f"{path}: adjacent pairs (2i, 2i+1) both dropped")
    if reason or dropped.dim() < 2 or dropped.shape[-2] < 2:
        return reason
    rows = dropped.shape[-2] // 2 * 2
    d = dropped.reshape(-1, *dropped.shape[-2:])[:, :rows].reshape(-1, rows // 2, 2, dropped.shape[-1])
    k = known.reshape(-1, *known.shape[-2:])[:, :rows].reshape(-1, rows // 2, 2, known.shape[-1])
    both = k.all(2)
    return binomial_reason(int((d.all(2) & both).sum()), int(both.sum()), p * p,
                           f"{path}: vertical pairs (rows 2i, 2i+1) both dropped")


# ---------------------------------------------------------------------------------------------
# Uniform samples

# Upper bound on P(two independent samples are equal) for a generator of the given output dtype: float16
# values carry 11 random bits or fewer, float32 at least 20, float64 at least 32.
COLLISION = {torch.float16: 2.0 ** -10, torch.bfloat16: 2.0 ** -7, torch.float32: 2.0 ** -20,
             torch.float64: 2.0 ** -32}

UNIFORM_CONTRACT = (
    "Samples are judged by their law, each statistical test at a false-failure rate of "
    f"{ALPHA:g}: (1) every value finite and in [0, 1) after rounding to the output dtype; (2) "
    "Kolmogorov–Smirnov: the largest gap between the empirical CDF and the uniform CDF must stay below "
    "√(ln(2/α)/(2n)) (Dvoretzky–Kiefer–Wolfowitz–Massart); (3) lag-1 independence: the mean of u[2i]·u[2i+1] "
    "must be within √(ln(2/α)/(2m)) of 1/4 (Hoeffding); (4) no repetition: at lags 2^j and at each dimension's "
    "stride, equal values x[i] = x[i+lag] must not be more frequent than independent draws allow (2^-20 for "
    "float32, 2^-10 for float16, 2^-32 for float64); (5) float64 output needs more than float32 resolution "
    "(fewer than half the values exactly representable in float32, when n ≥ 16)."
)


def uniform_reason(out, expected: torch.Tensor, path: str = "output") -> str | None:
    """None if `out` (same shape and dtype as `expected`) looks like i.i.d. U[0, 1) samples."""
    reason = tensor_reason(out, expected, path)
    if reason:
        return reason
    x = out.detach().cpu().double().reshape(-1)
    n = x.numel()
    if n == 0:
        return None
    bad = ~(torch.isfinite(x) & (x >= 0) & (x < 1))
    if bad.any():
        i = int(bad.nonzero()[0])
        return f"{path}: {int(bad.sum())} values outside [0, 1); first at flat index {i}: {x[i].item()}"
    u = x.sort().values
    ranks = torch.arange(1, n + 1, dtype=torch.float64)
    ks = max(float((ranks / n - u).max()), float((u - (ranks - 1) / n).max()))
    if ks > math.sqrt(LIMIT / (2 * n)):
        return (f"{path}: Kolmogorov–Smirnov distance {ks:.4g} to U[0, 1) exceeds {math.sqrt(LIMIT / (2 * n)):.4g} "
                f"(n={n}, false-failure rate {ALPHA:g})")
    m = n // 2
    if m:
        lag1 = float((x[0:2 * m:2] * x[1:2 * m:2]).mean())
        if abs(lag1 - 0.25) > math.sqrt(LIMIT / (2 * m)):
            return (f"{path}: mean of u[2i]·u[2i+1] is {lag1:.5f}, expected 0.25 ± {math.sqrt(LIMIT / (2 * m)):.5f} "
                    f"for independent samples (false-failure rate {ALPHA:g})")
    lags = {1 << j for j in range(max(n.bit_length() - 1, 0))}
    lags |= {math.prod(expected.shape[d + 1:]) for d in range(expected.dim())}
    for lag in sorted(l for l in lags if 0 < l < n):
        same = int((x[:-lag] == x[lag:]).sum())
        reason = excess_reason(same, n - lag, COLLISION[expected.dtype], f"{path}: x[i] == x[i+{lag}]")
        if reason:
            return reason + " (the stream repeats)"
    if expected.dtype == torch.float64 and n >= 16:
        coarse = int((x == x.float().double()).sum())
        if coarse > n // 2:
            return f"{path}: {coarse} of {n} float64 values are exactly float32 values (float32 resolution only)"
    return None
