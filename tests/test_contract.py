"""The elementwise comparison rules every default task contract relies on."""

import math

import torch

from kernelbenchx.dataset.contract import Tolerance, compare

TOL = Tolerance(1e-5, 1e-5)


def test_equal_tensors_pass_and_small_error_passes():
    ref = torch.linspace(-3, 3, 101)
    assert compare(ref.clone(), ref, TOL) is None
    assert compare(ref + 5e-6, ref, TOL) is None


def test_error_beyond_tolerance_names_the_position():
    ref = torch.zeros(10)
    out = ref.clone()
    out[7] = 1e-3
    reason = compare(out, ref, TOL)
    assert reason and "(7,)" in reason and "1 of 10" in reason


def test_dtype_and_shape_must_match_exactly():
    ref = torch.ones(4)
    assert "dtype" in compare(ref.double(), ref, TOL)
    assert "shape" in compare(torch.ones(2, 2), ref, TOL)


def test_nan_must_be_where_the_reference_has_nan():
    ref = torch.tensor([1.0, math.nan, 3.0])
    assert compare(ref.clone(), ref, TOL) is None
    assert "NaN" in compare(torch.tensor([1.0, 2.0, 3.0]), ref, TOL)
    assert "NaN" in compare(torch.tensor([math.nan, math.nan, 3.0]), ref, TOL)


def test_infinities_must_match_in_position_and_sign():
    ref = torch.tensor([math.inf, -math.inf, 0.0])
    assert compare(ref.clone(), ref, TOL) is None
    assert "inf" in compare(torch.tensor([math.inf, math.inf, 0.0]), ref, TOL)
    assert "inf" in compare(torch.tensor([1e30, -math.inf, 0.0]), ref, TOL)


def test_integers_and_booleans_are_exact():
    ref = torch.tensor([1, 2, 3])
    assert "exact" in compare(torch.tensor([1, 2, 4]), ref, TOL)
    assert compare(torch.tensor([True, False]), torch.tensor([True, False]), TOL) is None


def test_complex_compares_real_and_imaginary_parts_with_float_tolerance():
    ref = torch.tensor([1 + 1j, 2 - 3j], dtype=torch.complex64)
    assert compare(ref + (1e-6 + 1e-6j), ref, TOL) is None
    assert ".imag" in compare(ref + 1e-2j, ref, TOL)


def test_rms_scaled_atol_grows_with_the_reference_magnitude():
    ref = torch.full((100,), 1000.0)
    ref[0] = 0.0
    out = ref.clone()
    out[0] = 5.0  # 5e-3 of the RMS: inside 1e-2·RMS, far outside an absolute 1e-2
    assert compare(out, ref, Tolerance(1e-2, 1e-2, "rms")) is None
    assert compare(out, ref, Tolerance(1e-2, 1e-2)) is not None


def test_structures_and_scalars():
    assert compare((torch.ones(2), 3), (torch.ones(2), 3), TOL) is None
    assert "2 items" in compare((torch.ones(2),), (torch.ones(2), 3), TOL)
    assert compare(torch.tensor(2.0, dtype=torch.float64), 2.0, TOL) is None
    assert compare(2.5, 2.0, TOL) is not None
