"""Checks for the stochastic tasks (dropout, uniform and binomial samples) at a stated false-failure rate.

A kernel cannot reproduce torch's random stream, so these tasks state what a correct output satisfies instead:
dropout outputs are, element by element, either the dropped or the kept value, and the drops must look like
independent Bernoulli(p) draws; uniform samples must look like independent U[0, 1) draws. "Look like" is a
battery of tests aimed at the generators a kernel can get wrong, or write to game a single distribution test:

- a low-discrepancy sequence (u_i = frac(i·φ), van der Corput) has a perfect histogram: the block-balance test
  (counts inside blocks of 16 consecutive values are *too* even) and the serial-pair test (consecutive pairs
  fall on a few lines of the unit square) reject it;
- a mask or stream that repeats across batch elements, rows, or every few blocks: the serial-pair test at
  shifts 1…8 and m·2^j along every dimension and along the flat order, and the repeat test (every pair of rows,
  of hyperplanes along every dimension, and of flat chunks is compared: agreement must be that of independent
  draws) reject it;
- a generator that ignores its seed or keys on a few bits of it: calls with the same inputs and different seeds
  (the tasks' seed-family cases: seed, seed + 1, seed ^ 2^40, seed + 2^33 and a random 62-bit seed) must give
  independent streams (cross-seed test; see `remember`).

Every statistical test is a union (Bonferroni) of exact tail bounds at total level ALPHA: two-sided Chernoff
bounds for binomial counts (P[n·KL(k/n ‖ p) > t] ≤ 2e^(−t)), Dvoretzky–Kiefer–Wolfowitz–Massart for
Kolmogorov–Smirnov distances (P[√n·D > x] ≤ 2e^(−2x²)); they hold at every sample size. Counts are taken over
disjoint pairs or blocks, so their terms are independent under the null hypothesis. Event probabilities are
widened by the generator's resolution (`SLACK`), so a correct kernel whose draws are quantized (to 16 bits for
dropout thresholds, to the output dtype for uniforms) keeps the stated rate.

Cross-seed comparisons need the outputs of several cases; a task's check sees one case at a time, so the check
keeps the streams of recent small cases in a per-thread memo keyed by the inputs without the seed (`remember`).
The evaluator judges one candidate's cases in order in one thread, and the first member of a seed family
(a seed the memo has already seen for those inputs) starts the family afresh, so one candidate is never
compared with another. The evaluator should eventually call the cross-seed test itself, over reseeded calls of
one case; `family_seeds` and `cross_reason` are the pieces it needs.

The package's modules, in dependency order (every name is re-exported here, so `stochastic.X` keeps working):

- `bounds`: ALPHA, the `Test` class (exact tail bounds united at level ALPHA), KS distance, `one_thread`;
- `streams`: `Stream` (draws on the output's shape), mask and uniform streams, the dtype resolutions
  (`SLACK`, `COLLISION`);
- `structure`: the tests of one stream (category counts, block balance, serial pairs, repeats) and
  `structure_reason`;
- `cross_seed`: the cross-seed test, the per-thread memo (`remember`) and seed families;
- `laws`: the checks the tasks call (`dropout_reason`, `mask_reason`, `uniform_reason`) and their contract texts;
- `references`: seeded generators and dropout for the references, argument binding, and case helpers.
"""

from __future__ import annotations

from kernelbenchx.dataset.stochastic.bounds import ALPHA, Test, kl_tensor, ks_distance, one_thread
from kernelbenchx.dataset.stochastic.cross_seed import (
    CROSS_SHIFTS, MEMO, MEMO_ELEMENTS, MEMO_KEYS, Memo, cross_reason, cross_test, describe_tag, draw_seed, family,
    family_seeds, fingerprint, remember, seed_of, seed_tag, seeded_reason, tagged_reason,
)
from kernelbenchx.dataset.stochastic.laws import (
    DROPOUT_CONTRACT, MASK_TESTS, UNIFORM_CONTRACT, UNIFORM_TESTS, dropout_reason, mask_battery, mask_reason,
    tensor_reason, uniform_battery, uniform_reason, within,
)
from kernelbenchx.dataset.stochastic.references import (
    bind, distinguishable, draw_p, flag, generator, mixed_seed, seeded_dropout, stochastic,
)
from kernelbenchx.dataset.stochastic.streams import (
    CELLS, COLLISION, MASK_SLACK, SLACK, Stream, mask_stream, uniform_stream,
)
from kernelbenchx.dataset.stochastic.structure import (
    BLOCK, DIFF_BINS, MAX_COLS, MAX_PAIRS, MAX_ROWS, PairCounts, axes, block_test, cell_bounds, coded,
    joint_counts, marginal_test, pair_tests, pairs_at, repeat_test, shifts, spread, structure_reason,
)

__all__ = [
    "ALPHA", "Test", "kl_tensor", "ks_distance", "one_thread", "CROSS_SHIFTS", "MEMO", "MEMO_ELEMENTS",
    "MEMO_KEYS", "Memo", "cross_reason", "cross_test", "describe_tag", "draw_seed", "family", "family_seeds",
    "fingerprint", "remember", "seed_of", "seed_tag", "seeded_reason", "tagged_reason", "DROPOUT_CONTRACT",
    "MASK_TESTS", "UNIFORM_CONTRACT", "UNIFORM_TESTS", "dropout_reason", "mask_battery", "mask_reason",
    "tensor_reason", "uniform_battery", "uniform_reason", "within", "bind",
    "distinguishable", "draw_p", "flag", "generator", "mixed_seed", "seeded_dropout", "stochastic", "CELLS",
    "COLLISION", "MASK_SLACK", "SLACK", "Stream", "mask_stream", "uniform_stream", "BLOCK", "DIFF_BINS",
    "MAX_COLS", "MAX_PAIRS", "MAX_ROWS", "PairCounts", "axes", "block_test", "cell_bounds", "coded",
    "joint_counts", "marginal_test", "pair_tests", "pairs_at", "repeat_test", "shifts", "spread",
    "structure_reason",
]
