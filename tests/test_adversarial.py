"""Every cheat in tests/adversarial gets its expected verdict and reason; every fault is contained; every
honest control passes. Runs on the CPU interpreter; GPU-only cases run with `python -m tests.adversarial.suite`
on a GPU machine (see the issue notes for what was run)."""

import pytest

from tests.adversarial.suite import load_cases, run_group

CASES = load_cases(on_gpu=False)


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    out = tmp_path_factory.mktemp("adversarial")
    return {**run_group(CASES, out / "static", True, "cpu", 120),
            **run_group(CASES, out / "nostatic", False, "cpu", 60)}


def test_suite_covers_the_families():
    names = {c.name for c in load_cases(on_gpu=True)}
    assert len([n for n in names if n.startswith("cases/")]) >= 25
    assert {"honest/autotuned", "honest/atomic_sum", "honest/several_kernels_and_views"} <= names


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_expected_verdict(case, records):
    record = records[case.name]
    assert record.verdict.value == case.verdict, record.message
    if case.code:
        assert record.reason.value == case.code, record.message
