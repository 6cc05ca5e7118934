"""Guard bands: every tensor a kernel under test receives or allocates is followed by poison, so reads past
its end give wrong outputs and writes past its end are seen (dataset/views.py)."""

import os

import pytest
import torch

os.environ.setdefault("TRITON_INTERPRET", "1")
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

from kernelbenchx.dataset.task import Call  # noqa: E402
from kernelbenchx.dataset.views import call_guarded, copy_view, guard_intact, poison_value  # noqa: E402


@pytest.mark.parametrize("make", [lambda: torch.arange(12.0).view(3, 4).t(), lambda: torch.arange(10)[2::3],
                                  lambda: torch.ones(5, dtype=torch.bool)])
def test_a_guarded_copy_keeps_the_layout_and_values(make):
    t = make()
    c = copy_view(t)
    assert c.stride() == t.stride() and c.storage_offset() == t.storage_offset() and torch.equal(c, t)
    assert c.untyped_storage().nbytes() > t.untyped_storage().nbytes() and guard_intact(c)


def test_an_allocation_too_large_to_copy_is_left_unguarded():
    from kernelbenchx.dataset.views import GUARDED_BYTES_MAX, guard_allocation

    made: list = []
    small = torch.zeros(4)
    guarded = guard_allocation(torch.ops.aten.zeros.default, small, made)
    assert guarded is not small and made == [guarded] and guard_intact(guarded)
    huge = torch.zeros(1).expand(GUARDED_BYTES_MAX // 4 + 1)  # a lazy-allocation stand-in: no memory behind it
    assert guard_allocation(torch.ops.aten.empty.memory_format, huge, made) is huge and len(made) == 1


def test_a_write_past_the_end_breaks_the_guard():
    c = copy_view(torch.zeros(4, dtype=torch.int32))
    torch.empty(0, dtype=torch.int32).set_(c.untyped_storage(), 0, (5,), (1,))[4] = 0
    assert not guard_intact(c)
    assert poison_value(torch.int32) > 2 ** 29 and poison_value(torch.float16) != poison_value(torch.float16)


@triton.jit
def _copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr, PAST: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n + PAST)


def copier(past: int):
    def entry(x):
        y = torch.empty_like(x)
        _copy[(1,)](x, y, x.numel(), BLOCK=16, PAST=past)
        return y
    return entry


def test_call_guarded_sees_writes_past_an_allocated_output_and_nothing_else():
    call = Call(torch.arange(5.0))
    _, out, overrun = call_guarded(call, copier(0))
    assert overrun is None and torch.equal(out, torch.arange(5.0))
    _, out, overrun = call_guarded(call, copier(1))
    assert overrun == "wrote past the end of 1 tensor(s) it allocated" and torch.equal(out, torch.arange(5.0))


def test_an_unmasked_read_past_an_input_reads_poison():
    @triton.jit
    def total(x_ptr, o_ptr, BLOCK: tl.constexpr):
        tl.store(o_ptr, tl.sum(tl.load(x_ptr + tl.arange(0, BLOCK)), axis=0))

    def entry(x):
        o = torch.empty((), dtype=x.dtype)
        total[(1,)](x, o, BLOCK=8)
        return o

    _, out, overrun = call_guarded(Call(torch.ones(5)), entry)
    assert torch.isnan(out) and overrun is None


@triton.jit
def _rsqrt_inplace(x_ptr, n, BLOCK: tl.constexpr, PAST: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n + PAST  # PAST = 1: the off-by-one bound (<= n) of a plausible bug
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    tl.store(x_ptr + offs, (1.0 / tl.sqrt(x)).to(x_ptr.dtype.element_ty), mask=mask)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16])
def test_a_store_past_the_end_of_a_value_computed_from_the_band_is_seen(dtype):
    """The band's poison flows through the bug's arithmetic (rsqrt(NaN) = NaN) and is stored back past the end;
    a band of plain NaN would still look intact."""
    def entry(past):
        return lambda x: _rsqrt_inplace[(1,)](x, x.numel(), BLOCK=16, PAST=past)

    call = Call(torch.full((5,), 4.0, dtype=dtype))
    mine, _, overrun = call_guarded(call, entry(0))
    assert overrun is None and torch.equal(mine.args[0], torch.full((5,), 0.5, dtype=dtype))
    _, _, overrun = call_guarded(call, entry(1))
    assert overrun == "wrote past the end of tensor inputs [0]"


def test_a_value_copied_from_one_band_into_another_is_seen():
    x, y = copy_view(torch.ones(4)), copy_view(torch.ones(4))
    band = lambda t: torch.empty(0).set_(t.untyped_storage(), 0, (5,), (1,))  # noqa: E731
    assert torch.isnan(band(x)[4]) and guard_intact(y)
    band(y)[4] = band(x)[4]
    assert not guard_intact(y)


@triton.jit
def _and_one_past(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs <= n  # one past the end: x[n] & y[n] lands in out's band
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) & tl.load(y_ptr + offs, mask=mask), mask=mask)


def test_an_integer_store_one_past_the_end_of_poison_from_other_bands_is_seen():
    # With one poison value for every integer tensor, p & p == p: the band of `out` looked intact.
    def entry(x, y):
        out = torch.empty_like(x)
        _and_one_past[(1,)](x, y, out, x.numel(), BLOCK=16)
        return out

    for dtype in (torch.int16, torch.int32, torch.int64):  # int8 has 58 poison values: a rare collision
        x, y = (torch.randint(-100, 100, (7,), dtype=dtype) for _ in range(2))
        _, out, overrun = call_guarded(Call(x, y), entry)
        assert torch.equal(out, x & y) and overrun == "wrote past the end of 1 tensor(s) it allocated"
