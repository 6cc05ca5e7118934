"""The statistical contracts of the stochastic tasks (dataset/stochastic/) against generators a kernel might use:
honest counter-based streams (Philox as tl.rand computes it, simulated here in torch) and torch's own generator
pass over many seeds, and each kind of non-random generator is rejected: (a) low-discrepancy sequences, which
pass a Kolmogorov–Smirnov test easily; (b) generators keyed on a few bits of the seed; (c) dropout masks that
repeat across batch elements, rows or every few blocks; (d) outputs that ignore the seed.

Every statistical test has a false-failure rate of at most ALPHA = 1e-6 (at most MASK_TESTS / UNIFORM_TESTS
tests per case), so the honest generators below pass every seed; a failure of an honest generator here would
mean a bound is wrong, not bad luck.
"""

import math

import pytest
import torch

from kernelbenchx.dataset import stochastic
from kernelbenchx.dataset.contract import Tolerance
from kernelbenchx.dataset.task import Call

M32 = 0xFFFFFFFF
PHILOX_A, PHILOX_B = 0xD2511F53, 0xCD9E8D57
KEY_A, KEY_B = 0x9E3779B9, 0xBB67AE85
PHI = (math.sqrt(5.0) - 1.0) / 2.0


# ---------------------------------------------------------------------------------------------
# Generators


def mul_hi_lo(a: int, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """High and low 32 bits of a·b for a 32-bit constant a and 32-bit values b (int64 tensors)."""
    hi16, lo16 = b >> 16, b & 0xFFFF
    x, y = a * hi16, a * lo16  # each below 2^48
    return (x + (y >> 16)) >> 16, (((x & 0xFFFF) << 16) + y) & M32


def philox(seed: int, offsets: torch.Tensor, rounds: int = 10) -> torch.Tensor:
    """First output word of Philox4x32 on counters (offset_lo, offset_hi, 0, 0) with key (seed_lo, seed_hi):
    what tl.randint(seed, offsets) computes."""
    seed &= (1 << 64) - 1
    c0, c1 = offsets & M32, (offsets >> 32) & M32
    c2, c3 = torch.zeros_like(c0), torch.zeros_like(c0)
    k0, k1 = seed & M32, (seed >> 32) & M32
    for _ in range(rounds):
        hi_b, lo_b = mul_hi_lo(PHILOX_B, c2)
        hi_a, lo_a = mul_hi_lo(PHILOX_A, c0)
        c0, c2, c1, c3 = hi_b ^ c1 ^ k0, hi_a ^ c3 ^ k1, lo_b, lo_a
        k0, k1 = (k0 + KEY_A) & M32, (k1 + KEY_B) & M32
    return c0


def tl_rand(seed: int, n: int) -> torch.Tensor:
    """tl.rand(seed, arange(n)): the int32 word folded to 31 bits, times 4.6566127342e-10 in float32."""
    x = philox(seed, torch.arange(n, dtype=torch.int64))
    x = torch.where(x >= 1 << 31, x - (1 << 32), x)
    x = torch.where(x < 0, -x - 1, x)
    return x.to(torch.float32) * torch.tensor(4.6566127342e-10, dtype=torch.float32)


def torch_rand(seed: int, n: int) -> torch.Tensor:
    return torch.rand(n, generator=stochastic.generator(seed))


def weyl(seed: int, n: int) -> torch.Tensor:
    """(a) u_i = frac(i·φ + c): a perfect histogram."""
    start = float(tl_rand(seed, 1)[0])
    return torch.remainder(torch.arange(n, dtype=torch.float64) * PHI + start, 1.0).float().clamp(max=1 - 2 ** -24)


def van_der_corput(seed: int, n: int) -> torch.Tensor:
    """(a) the base-2 radical inverse of i + offset."""
    i = torch.arange(n, dtype=torch.int64) + (seed & 0xFFFF)
    out = torch.zeros(n, dtype=torch.float64)
    for bit in range(24):
        out += ((i >> bit) & 1).double() * 2.0 ** -(bit + 1)
    return out.float()


def low_bits(bits: int):
    """(b) tl.rand keyed on seed mod 2^bits."""
    return lambda seed, n: tl_rand(seed & ((1 << bits) - 1), n)


def ignores_seed(seed: int, n: int) -> torch.Tensor:
    """(d) a statistically perfect stream that is the same for every seed."""
    return tl_rand(1234, n)


def repeating_blocks(seed: int, n: int, block: int = 256, period: int = 4) -> torch.Tensor:
    """(c) block k of the stream equals block k mod `period`."""
    blocks = torch.arange(n) // block
    return tl_rand(seed, n)[(blocks % period) * block + torch.arange(n) % block]


HONEST = {"philox": tl_rand, "torch": torch_rand}


@pytest.fixture(autouse=True)
def fresh_memo():
    """An empty cross-seed memo, and one thread (the checks run in the evaluator's parent, one case at a time)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    stochastic.MEMO.entries.clear()
    yield
    stochastic.MEMO.entries.clear()
    torch.set_num_threads(threads)


# ---------------------------------------------------------------------------------------------
# Uniform streams (Random/rand's contract)


def judge_uniform(fn, seed: int, shape: tuple[int, ...], dtype=torch.float32) -> str | None:
    n = math.prod(shape)
    out = fn(seed, n).reshape(shape).to(dtype)
    if dtype == torch.float16:
        out = torch.where(out >= 1.0, torch.zeros_like(out), out)
    call = Call(*shape, seed=torch.tensor(seed), dtype=dtype)
    return stochastic.uniform_reason(out, torch.empty(shape, dtype=dtype), call=call, seed_kwarg="seed")


def judge_family(judge, seed: int) -> list[str | None]:
    """Judges one seed family in order (as the evaluator does): the reasons of its members."""
    seeds = stochastic.family_seeds(seed, torch.Generator().manual_seed(seed))
    return [judge(s) for s in seeds]


@pytest.mark.parametrize("name", HONEST)
def test_honest_uniform_streams_pass(name):
    fn = HONEST[name]
    for seed in range(6):
        base = seed * 0x9E3779B97F4A7C1 % (1 << 62)
        for shape in ((1 << 13,), (33, 129)):
            reasons = judge_family(lambda s: judge_uniform(fn, s, shape), base)
            assert reasons == [None] * len(reasons), (seed, shape, reasons)
        assert judge_uniform(fn, base, (4096,), torch.float16) is None


@pytest.mark.parametrize("fn", [weyl, van_der_corput], ids=["weyl", "van_der_corput"])
def test_low_discrepancy_streams_are_rejected(fn):
    for seed in (1, 2, 3):
        stochastic.MEMO.entries.clear()
        # They pass the marginal KS test: that alone never rejected them.
        ks = stochastic.Test("ks")
        ks.ks(fn(seed, 1 << 13).double(), 0.0, "all")
        assert ks.reason("x") is None
        reason = judge_uniform(fn, seed, (1 << 13,))
        assert reason and ("block balance" in reason or "serial pairs" in reason), reason


@pytest.mark.parametrize("bits", [8, 32])
def test_uniform_generators_keyed_on_few_seed_bits_are_rejected(bits):
    for seed in (11, 2 ** 61 + 5):
        stochastic.MEMO.entries.clear()
        reasons = judge_family(lambda s: judge_uniform(low_bits(bits), s, (1024,)), seed)
        assert reasons[0] is None
        assert any(r and "cross-seed" in r for r in reasons), reasons


def test_uniform_stream_ignoring_the_seed_is_rejected():
    reasons = judge_family(lambda s: judge_uniform(ignores_seed, s, (1024,)), 7)
    assert reasons[0] is None and reasons[1] and "same draws" in reasons[1], reasons


def test_uniform_stream_repeating_every_few_blocks_is_rejected():
    for period in (2, 4, 3):
        reason = judge_uniform(lambda s, n: repeating_blocks(s, n, 256, period), 5, (1 << 13,))
        assert reason, period


# ---------------------------------------------------------------------------------------------
# Dropout masks


SHAPE = (8, 32, 128)  # batch elements × rows × columns


def honest_mask(fn, seed: int, p: float, shape=SHAPE) -> torch.Tensor:
    return fn(seed, math.prod(shape)).reshape(shape) < p  # tl.rand(seed, offs) < p: dropped


def judge_mask(dropped: torch.Tensor, p: float, seed: int, known: torch.Tensor | None = None,
               x: torch.Tensor | None = None) -> str | None:
    """The full dropout check on out = where(dropped, 0, x/(1−p)) for inputs x (fixed per test)."""
    shape = dropped.shape
    if x is None:
        x = torch.randn(shape, generator=torch.Generator().manual_seed(99))
    if known is not None:  # unknown elements: both outcomes are 0 (as after a ReLU)
        x = torch.where(known, x.abs() + 0.1, torch.zeros_like(x))
    kept = x / (1.0 - p)
    out = torch.where(dropped, torch.zeros_like(kept), kept)
    call = Call(x, p, seed=seed)
    return stochastic.dropout_reason(out, out, kept, 0.0, p, Tolerance(1e-5, 1e-5), call=call)


@pytest.mark.parametrize("name", HONEST)
def test_honest_dropout_masks_pass(name):
    fn = HONEST[name]
    relu_like = torch.rand(SHAPE, generator=torch.Generator().manual_seed(3)) < 0.5
    for i, p in enumerate((0.5, 0.1, 0.8, 0.3)):
        base = (i + 1) * 0x5DEECE66D
        reasons = judge_family(lambda s: judge_mask(honest_mask(fn, s, p), p, s), base)
        assert reasons == [None] * len(reasons), (p, reasons)
        known = relu_like if i % 2 else None
        assert judge_mask(honest_mask(fn, base + 77, p), p, base + 77, known=known) is None, p
        assert judge_mask(honest_mask(fn, base + 78, p, (5000,)), p, base + 78) is None, p


def test_low_discrepancy_masks_are_rejected():
    for fn in (weyl, van_der_corput):
        for p in (0.5, 0.2):
            reason = judge_mask(honest_mask(fn, 3, p), p, 3)
            assert reason and ("block balance" in reason or "serial pairs" in reason), (fn.__name__, p, reason)


def repeated(dropped: torch.Tensor, dim: int, period: int) -> torch.Tensor:
    """Slices along `dim` repeat with `period`: slice k equals slice k mod period."""
    index = torch.arange(dropped.shape[dim]) % period
    return dropped.index_select(dim, index)


def tiled(seed: int, p: float, tile: int = 32, period: int = 4) -> torch.Tensor:
    """A matmul-style kernel keyed on (tile id mod period): tiles of tile×tile elements of each (rows, cols)
    matrix, numbered row-major across the batch, repeat every `period` tiles."""
    b, r, c = SHAPE
    tiles_per_row = c // tile
    bi, ri, ci = torch.meshgrid(torch.arange(b), torch.arange(r), torch.arange(c), indexing="ij")
    tile_id = (bi * (r // tile) + ri // tile) * tiles_per_row + ci // tile
    local = (ri % tile) * tile + ci % tile
    u = tl_rand(seed, period * tile * tile)
    return u[(tile_id % period) * tile * tile + local] < p


@pytest.mark.parametrize("p", [0.5, 0.2])
def test_repeating_masks_are_rejected(p):
    base = honest_mask(tl_rand, 21, p)
    cases = {
        "same mask for every batch element": repeated(base, 0, 1),
        "batch elements repeat every 3": repeated(base, 0, 3),
        "rows repeat every 5": repeated(base, 1, 5),
        "column blocks of 32 repeat every 4": repeated(base.reshape(8, 32, 4, 32), 2, 1).reshape(SHAPE),
        "flat blocks of 256 repeat every 4": repeating_blocks(21, base.numel()).reshape(SHAPE) < p,
        "tiles keyed on tile id mod 4": tiled(21, p),
        "one draw per tile of 16": repeated(repeated(base.reshape(8, 2, 16, 8, 16), 2, 1), 4, 1).reshape(SHAPE),
    }
    for what, mask in cases.items():
        stochastic.MEMO.entries.clear()
        reason = judge_mask(mask, p, 21)
        assert reason is not None, what


def test_repeating_masks_are_rejected_where_half_the_elements_carry_no_information():
    known = torch.rand(SHAPE, generator=torch.Generator().manual_seed(5)) < 0.5
    mask = repeated(honest_mask(tl_rand, 8, 0.5), 0, 2)
    assert judge_mask(mask, 0.5, 8, known=known) is not None


@pytest.mark.parametrize("bits", [8, 32])
def test_masks_keyed_on_few_seed_bits_are_rejected(bits):
    for seed in (3, 2 ** 50 + 12345):
        stochastic.MEMO.entries.clear()
        reasons = judge_family(lambda s: judge_mask(honest_mask(low_bits(bits), s, 0.5, (4, 16, 32)), 0.5, s), seed)
        assert reasons[0] is None
        assert any(r and "cross-seed" in r for r in reasons), reasons


def test_masks_ignoring_the_seed_are_rejected():
    reasons = judge_family(lambda s: judge_mask(honest_mask(ignores_seed, s, 0.3, (4, 16, 32)), 0.3, s), 9)
    assert reasons[0] is None and reasons[1] and "same draws" in reasons[1], reasons


def test_seed_used_as_a_counter_offset_is_rejected():
    """tl.rand(0, offsets + seed): seeds s and s + 1 give the same stream shifted by one element."""
    def shifted(seed, n):
        return tl_rand(0, n + 64)[seed % 64:seed % 64 + n]
    reasons = judge_family(lambda s: judge_mask(honest_mask(shifted, s, 0.5, (4, 16, 32)), 0.5, s), 64 * 1000)
    assert reasons[0] is None and reasons[1] and "cross-seed" in reasons[1], reasons


def test_a_new_candidate_starts_a_new_family():
    """The memo never compares two candidates: the family's first seed seen again starts the group afresh."""
    judge = lambda s: judge_mask(honest_mask(ignores_seed, s, 0.5, (4, 16, 32)), 0.5, s)  # noqa: E731
    assert judge(100) is None
    assert judge(100) is None  # the same seed again: a new group, not a comparison


def test_wrong_values_and_precision_are_still_rejected():
    x = torch.randn(SHAPE, generator=torch.Generator().manual_seed(1))
    kept = x / 0.5
    dropped = honest_mask(tl_rand, 4, 0.5)
    out = torch.where(dropped, torch.zeros_like(kept), kept)
    tol = Tolerance(1e-2, 1e-2, scale="rms", rel_rms=1e-3)
    assert stochastic.dropout_reason(out, out, kept, 0.0, 0.5, tol) is None
    noisy = out + 3e-3 * out.abs().mean() * torch.randn(SHAPE, generator=torch.Generator().manual_seed(2)) * (~dropped)
    assert "relative RMS" in stochastic.dropout_reason(noisy, out, kept, 0.0, 0.5, tol)
    assert "neither" in stochastic.dropout_reason(out + 1.0, out, kept, 0.0, 0.5, tol)


def test_philox_simulation_matches_known_answer():
    """Philox4x32-10 known-answer vector (Random123): counter 0, key 0 → first word 0x6627e8d5."""
    c0 = philox(0, torch.zeros(1, dtype=torch.int64))
    assert int(c0[0]) == 0x6627E8D5


def test_the_bmm_dropout_mask_reads_back_through_a_well_conditioned_mat2_at_perf_sizes():
    """The check recovers the dropout mask through pinv(mat2); with Gaussian square mat2 at n = 2432, fp32
    rounding of a correct GPU output was amplified into a misclassified mask. The perf cases' mat2 is now
    well-conditioned (checked on the smallest perf case; the construction does not depend on n)."""
    from kernelbenchx.dataset.registry import get_task

    task = get_task("Fusion/fused_mul_add_logsoftmax_dropout_bmm")
    name, call = next(iter(task.perf_cases(torch.Generator().manual_seed(0))))
    s = torch.linalg.svdvals(call.args[3].double())
    assert (s[:, 0] / s[:, -1]).max() < 20, name
    with torch.no_grad():
        out = call.invoke(task.reference)
    noisy = out * (1 + 1e-6 * torch.randn(out.shape, generator=torch.Generator().manual_seed(1)))
    assert task.judge(call, noisy, out) is None


def test_references_with_seeded_dropout_have_checks_that_recompute_the_reference():
    """seeded_dropout draws from the default generator while the perf stage captures the baseline in a CUDA
    graph, so its timed output is not the seeded one: sound only where the timed candidate output is judged
    by the task's own check (which recomputes the seeded reference), never against the baseline's output."""
    from pathlib import Path

    from kernelbenchx.dataset.registry import get_task
    from kernelbenchx.evaluator.measure.perf_stage import judged_by_lane

    tasks = Path(stochastic.__file__).parents[1] / "tasks"
    users = sorted(f"{p.parent.name}/{p.stem}" for p in tasks.glob("*/*.py") if "seeded_dropout(" in p.read_text())
    assert len(users) >= 8
    for task_id in users:
        task = get_task(task_id)
        assert task.check is not None and judged_by_lane(task), task_id


def test_large_streams_build_their_tests_side_by_side_with_the_same_verdicts(monkeypatch):
    """Above SIDE_BY_SIDE_FROM draws the test groups are built on threads; the reason (the first failing test in
    order) is the same as one after another, for honest and broken masks and uniforms."""
    from kernelbenchx.dataset.stochastic import structure
    from kernelbenchx.dataset.stochastic.streams import mask_stream, uniform_stream

    gen = torch.Generator().manual_seed(3)
    mask = torch.rand(64, 512, generator=gen) < 0.3
    repeating = mask.clone()
    repeating[1::2] = repeating[0::2]
    uniform = torch.rand(64, 512, generator=gen)
    golden = torch.frac(torch.arange(64 * 512, dtype=torch.float64) * 0.6180339887498949).reshape(64, 512)
    streams = {"mask": mask_stream(mask, torch.ones_like(mask), 0.3),
               "repeating mask": mask_stream(repeating, torch.ones_like(mask), 0.3),
               "uniform": uniform_stream(uniform), "golden-ratio sequence": uniform_stream(golden)}
    verdicts = {}
    for side_by_side in (False, True):
        monkeypatch.setattr(structure, "SIDE_BY_SIDE_FROM", 0 if side_by_side else 1 << 62)
        verdicts[side_by_side] = {name: structure.structure_reason(s, name) for name, s in streams.items()}
    assert verdicts[True] == verdicts[False]
    assert verdicts[True]["mask"] is None and verdicts[True]["uniform"] is None
    assert verdicts[True]["repeating mask"] and verdicts[True]["golden-ratio sequence"]


def test_binomial_draws_past_max_tested_are_judged_on_a_window_that_keeps_their_neighbours():
    """Math/bitwise_and_binomial at perf size (2^27 draws): the law and structure tests see a window of
    MAX_TESTED consecutive draws (a scattered subset left a 2^27-place stream almost all unknown: 98 s per
    judgement on an H200). Honest draws pass; draws repeating every 512 places fail."""
    from kernelbenchx.dataset.tasks.Math import bitwise_and_binomial as task

    count = task.MAX_TESTED * 8
    gen = torch.Generator().manual_seed(5)
    n, p = torch.full((count,), 20.0, dtype=torch.float64), torch.full((count,), 0.3, dtype=torch.float64)
    ids = torch.arange(count)
    honest = torch.binomial(n, p, generator=gen)
    assert task.law_reason(honest, n, p, ids, (count,)) is None
    repeating = honest[:512].repeat(count // 512)
    assert task.law_reason(repeating, n, p, ids, (count,))
    places, _, _, inside, shape = task.window(ids.double(), n, p, ids, (count,))  # draws named by their place
    assert shape == (task.MAX_TESTED,) and torch.equal(inside, torch.arange(task.MAX_TESTED))
    assert (places.diff() == 1).all() and places[0] > 0  # consecutive, not from the start
    rows = task.window(honest, n, p, ids, (count // 1024, 1024))[4]  # whole rows where a row fits
    assert rows == (task.MAX_TESTED // 1024, 1024)


@pytest.mark.parametrize("law", ["uniform", "skewed", "float16", "ties"])
def test_the_ks_grid_is_a_lower_bound_within_one_cell_of_the_exact_distance(law):
    """From GRID_FROM values on the KS distance comes from a histogram (a sort of 2^27 values took most of a
    perf-size battery): never above the exact distance, so no more false failures, and below it by at most one
    cell's width."""
    from kernelbenchx.dataset.stochastic import bounds

    gen = torch.Generator().manual_seed(11)
    u = torch.rand(bounds.GRID_FROM + 12345, generator=gen, dtype=torch.float64)
    u = {"uniform": u, "skewed": u ** 1.01, "float16": u.half().double().clamp(max=1 - 2 ** -11),
         "ties": (u * 1000).floor() / 1000}[law]
    exact, grid = bounds.ks_exact(u), bounds.ks_grid(u)
    assert grid <= exact + 1e-12 and exact - grid <= 1.0 / bounds.GRID_CELLS + 1e-12
    assert bounds.ks_distance(u) == grid and bounds.ks_distance(u[:1000]) == bounds.ks_exact(u[:1000])


def test_a_uniform_stream_s_bit_planes_are_the_top_bits_of_each_value():
    from kernelbenchx.dataset.stochastic.streams import uniform_stream

    edges = torch.tensor([0.0, 0.125, 0.25, 0.5, 0.625, 0.875, 1 - 2 ** -53, 0.1249999, 0.3750001], dtype=torch.float64)
    x = torch.cat([edges, torch.rand(4096, generator=torch.Generator().manual_seed(2), dtype=torch.float64)])
    stream = uniform_stream(x)
    for b, (plane, p) in zip((1, 2, 3), stream.planes):
        assert p == 0.5 and torch.equal(plane, ((x * 2.0 ** b).floor().long() % 2) == 1)


@pytest.mark.parametrize("law", ["mask", "uniform"])
def test_marginal_and_block_tests_see_only_known_draws_like_the_stream_of_those_draws_alone(law):
    """The counts skip unknown draws without a boolean index when every draw is known (seconds at 2^26 draws):
    the tests of a stream with unknown places equal those of the stream of its known draws alone."""
    from kernelbenchx.dataset.stochastic import structure
    from kernelbenchx.dataset.stochastic.streams import mask_stream, uniform_stream

    gen = torch.Generator().manual_seed(4)
    known = torch.rand(64, 512, generator=gen) > 0.2
    values = torch.rand(64, 512, generator=gen, dtype=torch.float64)
    def make(v, k):
        return mask_stream(v < 0.1, k, 0.1) if law == "mask" else uniform_stream(v, k)

    holey, alone = make(values, known), make(values[known], torch.ones(int(known.sum()), dtype=torch.bool))
    for test in (structure.marginal_test, structure.block_test):
        a, b = test(holey).parts, test(alone).parts
        assert len(a) == len(b) == 1 and torch.equal(a[0][0], b[0][0])


@pytest.mark.parametrize("law", ["mask", "uniform"])
def test_serial_pairs_counted_on_byte_codes_are_the_int64_counts(law, monkeypatch):
    from kernelbenchx.dataset.stochastic import structure
    from kernelbenchx.dataset.stochastic.streams import mask_stream, uniform_stream

    gen = torch.Generator().manual_seed(6)
    known = torch.rand(16, 8, 64, generator=gen) > 0.1
    values = torch.rand(16, 8, 64, generator=gen, dtype=torch.float64)
    stream = mask_stream(values < 0.3, known, 0.3) if law == "mask" else uniform_stream(values, known)
    small = structure.pair_tests(stream)
    monkeypatch.setattr(structure, "compact", lambda codes, c: codes)
    wide = structure.pair_tests(stream)
    assert [len(t.parts) for t in small] == [len(t.parts) for t in wide] and small[0].parts
    assert all(torch.equal(a[0], b[0]) for s, w in zip(small, wide) for a, b in zip(s.parts, w.parts))


def test_serial_pairs_are_about_max_pairs_at_every_distance_and_k_apart():
    """Past MAX_PAIRS the pairs at a distance k are the first MAX_PAIRS of one period, not all k of it (at 2^27
    values that was 2^26 pairs at one distance, most of a perf-size battery's pair tests)."""
    from kernelbenchx.dataset.stochastic import structure

    t = torch.arange(1 << 20).reshape(1, -1)
    for k in structure.shifts(t.shape[1]):
        a, b = structure.pairs_at(t, k)
        assert 0 < a.numel() <= 2 * structure.MAX_PAIRS and torch.equal(b - a, torch.full_like(a, k))
        assert a.unique().numel() == a.numel() and not set(a.tolist()) & set(b.tolist())  # disjoint pairs


def test_a_battery_runs_on_the_cpu_and_pushes_no_device_mode_where_the_cpu_is_the_default():
    """on_cpu: under a judge whose default device is another (the GPU's, trusted/server.py) the battery's constants
    are made on the CPU; where the CPU is the default already, no device mode sends each torch call through Python."""
    from torch.overrides import _get_current_function_mode_stack

    from kernelbenchx.dataset.stochastic.bounds import on_cpu

    @on_cpu
    def made() -> tuple[str, int]:
        return torch.zeros(1).device.type, len(_get_current_function_mode_stack())

    assert made() == ("cpu", 0)
    with torch.device("meta"):
        device, modes = made()
    assert device == "cpu" and modes >= 1
