"""Streams: the draws of one output laid out on its shape, as categories with known probabilities (dropout
masks, uniforms binned by their top bits), with the resolution slack of the generator that made them."""

from __future__ import annotations

from dataclasses import dataclass

import torch

MASK_SLACK = 2.0 ** -16  # a dropout threshold may be quantized to 16 bits: P(drop) within p ± 2^-16


# ---------------------------------------------------------------------------------------------
# Streams: categorical draws with known probabilities, on the output's shape


@dataclass
class Stream:
    """Draws laid out on the output's shape: `cat` in 0…C−1 with probabilities `probs` (± `slack`) where
    `known`; binary `planes` (indicator, probability) for the repeat test; `half` is plane 0. For uniforms also
    the values themselves (`values`) and the output dtype (for the resolution of equal values)."""

    cat: torch.Tensor
    known: torch.Tensor
    probs: tuple[float, ...]
    planes: list[tuple[torch.Tensor, float]]
    slack: float
    values: torch.Tensor | None = None
    dtype: torch.dtype | None = None

    @property
    def shape(self) -> torch.Size:
        return self.cat.shape


def mask_stream(dropped: torch.Tensor, known: torch.Tensor, p: float) -> Stream:
    return Stream(dropped.long(), known.bool(), (1.0 - p, p), [(dropped.bool(), p)], MASK_SLACK)


CELLS = 8  # uniforms are binned into 8 cells of [0, 1) by their top three bits


def uniform_stream(values: torch.Tensor, known: torch.Tensor | None = None, dtype: torch.dtype | None = None,
                   slack: float | None = None) -> Stream:
    """The stream of uniforms `values` (in [0, 1)): their cell of [0, 1) by the top three bits, and each of those
    bits as a plane (bit b of the fraction is bit 3 − b of the cell: from the cell, not from three more passes
    over the float64 values, which took a fifth of a perf-size battery)."""
    x = values.detach().double()
    known = torch.ones_like(x, dtype=torch.bool) if known is None else known.bool()
    scaled = (x.clamp(0.0, 1.0 - 2.0 ** -53) * CELLS).floor().long()
    cell = scaled.to(torch.uint8)  # a byte per value: an eighth of the memory traffic of int64
    planes = [(((cell >> (3 - b)) & 1) == 1, 0.5) for b in (1, 2, 3)]
    if slack is None:
        slack = SLACK.get(dtype, 2.0 ** -23)
    return Stream(scaled, known, (1.0 / CELLS,) * CELLS, planes, slack, x, dtype)


# Resolution of a uniform's distribution: a correct kernel's probability of any dyadic cell, and its CDF, may be
# off by this much (rounding to the output dtype moves half an ulp of mass across a boundary).
SLACK = {torch.float16: 2.0 ** -11, torch.bfloat16: 2.0 ** -8, torch.float32: 2.0 ** -23,
         torch.float64: 2.0 ** -32}

# Upper bound on P(two independent samples are equal) for a generator of the given output dtype: float16
# values carry 11 random bits or fewer, float32 at least 20, float64 at least 32.
COLLISION = {torch.float16: 2.0 ** -10, torch.bfloat16: 2.0 ** -7, torch.float32: 2.0 ** -20,
             torch.float64: 2.0 ** -32}
