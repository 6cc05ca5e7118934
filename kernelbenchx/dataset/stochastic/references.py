"""What the stochastic tasks' references and cases use: torch generators seeded from all 64 bits of a seed,
seeded dropout, argument binding, and random flags and dropout probabilities for the cases."""

from __future__ import annotations

import inspect

import torch
import torch.nn.functional as F

# ---------------------------------------------------------------------------------------------
# References


def mixed_seed(seed: int) -> int:
    """A 64-bit hash (splitmix64's finalizer) of `seed` in which every bit of the seed moves every bit.

    torch's CPU generator keys on the low 32 bits of its seed only (seeds 5 and 5 + 2^40 give the same stream),
    which is exactly the weakness the cross-seed test rejects: references seed torch with the hash instead."""
    z = (int(seed) + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return z ^ (z >> 31)


def generator(seed: int, device: torch.device | str = "cpu") -> torch.Generator:
    """A torch generator on `device` seeded from all 64 bits of `seed`."""
    return torch.Generator(device=device).manual_seed(mixed_seed(seed))


def capturing(device: torch.device) -> bool:
    """Whether this call is being captured into a CUDA graph (the perf stage timing the reference)."""
    return device.type == "cuda" and torch.cuda.is_current_stream_capturing()


def seeded_dropout(input: torch.Tensor, p: float, training: bool, seed: int, inplace: bool = False) -> torch.Tensor:
    """torch's dropout, its mask drawn from torch's generator seeded from `seed`; global RNG state is restored.

    Under CUDA graph capture (the eager baseline being timed) the mask comes from the default generator, which
    the graph advances on every replay: reseeding is host work that cannot be captured and is no part of
    dropout's cost, and timed eagerly it made the baseline a measure of the host's load. A timed output is
    never judged against the baseline's for these tasks: their checks recompute the seeded reference."""
    if capturing(input.device):
        return F.dropout(input, p, training, inplace)
    cuda = input.device.type == "cuda"
    with torch.random.fork_rng(devices=[input.device] if cuda else []):
        if cuda:
            with torch.cuda.device(input.device):
                torch.cuda.manual_seed(mixed_seed(seed))
        else:
            torch.default_generator.manual_seed(mixed_seed(seed))
        return F.dropout(input, p, training, inplace)


def bind(fn, call) -> dict:
    """The call's arguments by parameter name of `fn`, defaults filled in."""
    bound = inspect.signature(fn).bind(*call.args, **call.kwargs)
    bound.apply_defaults()
    return dict(bound.arguments)


def stochastic(p: float, training: bool) -> bool:
    """Whether dropout draws a mask (otherwise it is the identity, or all zeros for p = 1)."""
    return bool(training) and 0.0 < p < 1.0


# ---------------------------------------------------------------------------------------------
# Case helpers for the tasks


def flag(gen: torch.Generator) -> bool:
    """A fair coin from the case generator (random stages draw every flag)."""
    return bool(torch.randint(2, (), generator=gen))


def draw_p(gen: torch.Generator, low: float = 0.1, high: float = 0.9) -> float:
    """A dropout probability, rounded to 1/100."""
    return round(float(torch.empty(()).uniform_(low, high, generator=gen)), 2)


def distinguishable(x: torch.Tensor, margin: float = 0.5) -> torch.Tensor:
    """`x` pushed away from 0 (sign(x)·(margin + |x|)): every kept value differs from a dropped 0."""
    return torch.where(x < 0, x - margin, x + margin)
