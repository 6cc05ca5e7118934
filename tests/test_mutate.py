"""Mutation testing machinery: mutants are real, distinct programs; the task's cases kill a broken one; the
scores file feeds docs/tasks.md. (The scores themselves are a maintainers' run, not a test.)"""

import ast
import os
import subprocess
import sys

import pytest
import torch

from kernelbenchx.dataset import mutate
from kernelbenchx.dataset.catalog import markdown_table
from kernelbenchx.dataset.registry import get_task


def test_mutants_are_distinct_parseable_programs_that_differ_from_the_solution():
    original = ast.unparse(ast.parse((mutate.SOLUTIONS / "Activation/relu.py").read_text()))
    found = mutate.mutants("Activation/relu", "relu")
    assert {m.operator for m in found} >= {"drop_mask", "skip_last_program"}
    for m in found:
        ast.parse(m.source)
        assert m.source != original
    assert len({m.source for m in found}) == len(found)


def test_a_mutant_that_skips_the_last_block_is_killed_and_the_original_survives():
    source = (mutate.SOLUTIONS / "Activation/relu.py").read_text()
    skip = next(m for m in mutate.mutants("Activation/relu", "relu") if m.operator == "skip_last_program")
    assert mutate.run_mutant(skip) is not None
    original = mutate.Mutant("Activation/relu", "none", 0, 0, source)
    assert mutate.run_mutant(original) is None


def test_a_kept_solution_calling_triton_language_jit_helpers_survives_in_the_mutant_server():
    """tl.cdiv is itself a @triton.jit function: if the mutant server imported triton outside interpreter mode,
    calling it from an interpreted kernel raised InterpreterError and every mutant of such a task was "killed"."""
    source = (mutate.SOLUTIONS / "Activation/relu.py").read_text()
    assert "tl.program_id(0)" in source
    source = source.replace("tl.program_id(0)", "(tl.program_id(0) + tl.cdiv(0, 1))", 1)
    script = ("import sys\nfrom kernelbenchx.dataset import mutate\nif __name__ == '__main__':\n"
              "    print(repr(mutate.run_mutant(mutate.Mutant('Activation/relu', 'none', 0, 0, sys.stdin.read()))))\n")
    # A fresh process without TRITON_INTERPRET, as a maintainer runs the tool (the test session sets it).
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    done = subprocess.run([sys.executable, "-c", script], input=source, capture_output=True, text=True, env=env,
                          timeout=600, cwd=mutate.SOLUTIONS.parents[1])
    assert done.stdout.strip().splitlines()[-1:] == ["None"], done.stdout[-500:] + done.stderr[-2000:]


def test_mutants_run_with_poisoned_fresh_memory_as_kbx_eval_children_do():
    """A mutant that leaves part of its output unwritten must not pass on a previous result left in reused
    memory: the mutant server's children fill fresh allocations with glibc's perturb byte (0x5a), as kbx eval's
    CPU children do. This stand-in is correct only where torch.empty returns poisoned bytes."""
    source = ("import torch\n\ndef relu(x):\n"
              "    fresh = torch.empty(x.shape, dtype=torch.uint8)\n"
              "    return torch.where(fresh == 0x5A, torch.relu(x), torch.full_like(x, float('nan')))\n")
    assert mutate.run_mutant(mutate.Mutant("Activation/relu", "none", 0, 0, source)) is None


def test_mutants_run_from_a_source_file_as_kbx_runs_candidates():
    """Triton's interpreter rewrites a kernel from its source file; exec'd from a string, a loop counter stayed a
    Python int and `.to()` on it raised, failing a kept solution (Reduce/std) that kbx eval judged correct."""
    source = (mutate.SOLUTIONS / "Activation/relu.py").read_text()
    line = "    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)\n"
    assert line in source
    counter = "    k = 0\n    while k < 1:\n        k += 1\n    offs = tl.arange(0, BLOCK) * k.to(tl.int64)\n"
    source = source.replace(line, counter + line.replace("+ tl.arange(0, BLOCK)", "+ offs"), 1)
    assert mutate.run_mutant(mutate.Mutant("Activation/relu", "none", 0, 0, source)) is None


def test_a_task_whose_kept_solution_fails_is_reported_unscored_not_all_killed(monkeypatch):
    monkeypatch.setattr(mutate, "run_mutant", lambda m, device="cpu": "fixed/example: InterpreterError")
    logged = []
    report = mutate.score(["Activation/relu"], log=logged.append)
    assert report["Activation/relu"]["counted"] == 0 and report["Activation/relu"]["killed"] == 0
    assert report["Activation/relu"]["baseline_failure"] == "fixed/example: InterpreterError"
    assert any("NOT SCORED" in line for line in logged)
    assert mutate.rescore(report) == report


def test_scores_file_cells_appear_in_the_markdown_table(tmp_path, monkeypatch):
    monkeypatch.setattr(mutate, "SCORES", tmp_path / "scores.json")
    report = {"Activation/relu": {"mutants": 5, "counted": 4, "killed": 3, "rows": []}}
    mutate.write_scores(report)
    assert mutate.load_scores() == {"Activation/relu": "3/4 (+1 equivalent)"}
    table = markdown_table([get_task("Activation/relu")], mutate.load_scores())
    assert "| `Activation/relu` | 3/4 (+1 equivalent) |" in table


def test_rescore_counts_a_survivor_triaged_after_the_run_as_equivalent(monkeypatch):
    rows = [{"mutant": "drop_mask#0@12", "line": 12, "killed_by": None, "equivalent": None},
            {"mutant": "shift_bound#1@20", "line": 20, "killed_by": "fixed/example: wrong", "equivalent": None},
            {"mutant": "shift_bound#2@13", "line": 13, "killed_by": None, "equivalent": None}]
    report = {"Activation/relu": {"mutants": 3, "counted": 3, "killed": 1, "rows": rows}}
    monkeypatch.setattr(mutate, "equivalent", lambda: {"Activation/relu drop_mask#0": "reads past the end only"})
    again = mutate.rescore(report)["Activation/relu"]
    assert (again["counted"], again["killed"]) == (2, 1)
    assert again["rows"][0]["equivalent"] == "reads past the end only" and again["rows"][2]["equivalent"] is None
    assert mutate.summary_cells({"Activation/relu": again}) == {"Activation/relu": "1/2 (+1 equivalent)"}
    on_gpu = mutate.rescore({"Activation/relu": {**report["Activation/relu"], "device": "cuda"}})
    assert mutate.summary_cells(on_gpu) == {"Activation/relu": "1/2 (+1 equivalent), on the GPU"}


def test_sweep_inputs_cover_the_float32_range_finely_and_both_zeros():
    x = mutate.sweep_inputs()
    assert x.dtype == torch.float32 and x.numel() == 840_006
    assert float(x.max()) == pytest.approx(1e38, rel=1e-6) and float(x.abs().min()) == 0.0
    assert bool((x == 0).sum() >= 2) and bool(torch.signbit(x[x == 0]).any())


def test_a_run_restricted_to_some_operators_mutates_with_those_alone_on_the_device_asked(monkeypatch):
    seen = []

    def fake_run(m: mutate.Mutant, device: str = "cpu") -> str | None:
        seen.append((m.operator, device))
        return None if m.operator == "unmutated" else "killed"

    monkeypatch.setattr(mutate, "run_mutant", fake_run)
    report = mutate.score(["Activation/relu"], log=lambda line: None, device="cuda",
                          operators=frozenset({"skip_last_program"}))
    rows = report["Activation/relu"]["rows"]
    assert report["Activation/relu"]["device"] == "cuda"
    assert rows and all(r["mutant"].startswith("skip_last_program#") for r in rows)
    assert {op for op, _ in seen} == {"unmutated", "skip_last_program"} and {d for _, d in seen} == {"cuda"}


@pytest.mark.parametrize("argv, message", [
    (["--operators", "drop_mask,no_such_operator", "Activation/relu"], "unknown operator(s) ['no_such_operator']"),
    (["--operators", "drop_mask", "--write", "Activation/relu"], "--write needs every operator"),
])
def test_the_command_refuses_unknown_operators_and_a_partial_score_write(argv, message, capsys):
    with pytest.raises(SystemExit) as stop:
        mutate.main(argv)
    assert stop.value.code == 2 and message in capsys.readouterr().err


def test_numpy_that_breaks_the_interpreter_is_named_before_any_task_goes_unscored(monkeypatch):
    import numpy

    monkeypatch.setattr(numpy, "__version__", "2.4.0")
    assert "numpy 2.4.0" in mutate.interpreter_problem()
    monkeypatch.setattr(numpy, "__version__", "2.3.5")
    assert mutate.interpreter_problem() is None


@pytest.mark.skipif(not torch.cuda.is_available(), reason="the compiled path needs a CUDA GPU")
def test_on_the_gpu_a_kept_solution_survives_and_a_mutant_skipping_the_last_block_is_killed():
    source = (mutate.SOLUTIONS / "Activation/relu.py").read_text()
    assert mutate.killed_by("Activation/relu", source, "cuda") is None
    skip = next(m for m in mutate.mutants("Activation/relu", "relu") if m.operator == "skip_last_program")
    assert mutate.killed_by("Activation/relu", skip.source, "cuda") is not None


def test_the_per_category_table_adds_up_the_task_cells_including_gpu_scored_ones():
    from kernelbenchx.dataset.catalog import category_score_table

    table = category_score_table({"Fusion/a": "3/4 (+1 equivalent)", "Fusion/b": "2/2 (+2 equivalent), on the GPU",
                                  "Math/c": "0/1"})
    assert "| Fusion | 2 | 5/6 | 83.3% | 3 |" in table
    assert "| Math | 1 | 0/1 | 0.0% | 0 |" in table
    assert table[-1] == "| **all** | 3 | 5/7 | 71.4% | 3 |"


def test_a_rerun_tries_each_earlier_kill_on_its_case_first_and_runs_everything_else_in_full(monkeypatch):
    calls = []

    def fake_run(m: mutate.Mutant, device: str = "cpu", only: str | None = None) -> str | None:
        calls.append((m.name, only))
        if m.operator == "unmutated" or (m.name == "drop_mask#1@14" and only == "fixed/matrix"):
            return None  # the kept solution; a kill that no longer happens on its case (its data changed)
        return f"{only or 'fixed/ramp'}: wrong"

    monkeypatch.setattr(mutate, "run_mutant", fake_run)
    previous = {"Activation/relu": {"rows": [
        {"mutant": "drop_mask#0@12", "killed_by": "fixed/ramp: 3 of 8 values outside tolerance"},
        {"mutant": "drop_mask#1@14", "killed_by": "fixed/matrix: wrong"},
        {"mutant": "shift_bound#0@11", "killed_by": "fixed/a_case_since_removed: wrong"},
        {"mutant": "shift_bound#1@21", "killed_by": "timeout after 120 s"},
        {"mutant": "shift_bound#2@14", "killed_by": None}]}}
    report = mutate.score(["Activation/relu"], log=lambda line: None, previous=previous)
    by_name = {}
    for name, only in calls:
        by_name.setdefault(name, []).append(only)
    assert by_name["drop_mask#0@12"] == ["fixed/ramp"]  # killed again on its case: no full run
    assert by_name["drop_mask#1@14"] == ["fixed/matrix", None]  # passes its old case now: run in full
    for name in ("shift_bound#0@11", "shift_bound#1@21", "shift_bound#2@14", "ignore_stride#0@18"):
        assert by_name[name] == [None]
    assert len(report["Activation/relu"]["rows"]) == len(mutate.mutants("Activation/relu", "relu"))


def test_a_mutant_run_on_one_named_case_runs_that_case_alone():
    skip = next(m for m in mutate.mutants("Activation/relu", "relu") if m.operator == "skip_last_program")
    killer = mutate.run_mutant(skip)
    assert killer is not None
    case = killer.split(": ")[0]
    assert mutate.run_mutant(skip, only=case).split(": ")[0] == case
    assert mutate.run_mutant(skip, only="fixed/empty") is None  # nothing to skip in an empty input


def test_the_numerical_operators_turn_infinite_identities_to_zero_and_drop_the_softmax_shift():
    found = {m.name.split("@")[0]: m.source for m in mutate.mutants("Math/softmax", "softmax")}
    original = ast.unparse(ast.parse((mutate.SOLUTIONS / "Math/softmax.py").read_text()))
    identities = [s for name, s in found.items() if name.startswith("infinite_identity#")]
    exps = [s for name, s in found.items() if name.startswith("unstable_exp#")]
    assert identities and exps
    for source in identities:  # one float('±inf') fewer, one float(0.0) more
        assert source.count("float('-inf')") + source.count("float('inf')") == \
            original.count("float('-inf')") + original.count("float('inf')") - 1
        assert source.count("float(0.0)") == original.count("float(0.0)") + 1
    assert all(s.count("tl.exp(x)") == original.count("tl.exp(x)") + 1 for s in exps)


def test_a_softmax_without_its_shift_is_killed_by_large_logits():
    mutant = next(m for m in mutate.mutants("Math/softmax", "softmax") if m.name.startswith("unstable_exp#0@"))
    assert mutate.run_mutant(mutant, only="fixed/large_logits") is not None
