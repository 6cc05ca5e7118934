"""The kbx command line: thin commands, clear errors, documented exit codes."""

import json
import subprocess
import sys

from typer.testing import CliRunner

from kernelbenchx.cli import app
from tests.conftest import ROOT

runner = CliRunner()


def kbx(*args):
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})


def test_tasks_list_show_and_filters():
    rows = [json.loads(line) for line in kbx("tasks", "list", "--json").stdout.splitlines()]
    assert {"Activation/gelu", "Reduce/sum"} <= {r["id"] for r in rows}
    reduce_only = kbx("tasks", "list", "--category", "Reduce").stdout
    assert "Reduce/sum" in reduce_only and "Activation/gelu" not in reduce_only
    assert kbx("tasks", "list", "--category", "Nope").exit_code == 2
    prompt = kbx("tasks", "show", "Activation/gelu").stdout
    assert "## Numerical contract" in prompt and "Tolerance" in prompt and "def" not in prompt.split("##")[0]
    missing = kbx("tasks", "show", "Activation/gelx")
    assert missing.exit_code == 2 and "did you mean Activation/gelu" in missing.output


def test_docs_tasks_md_is_in_sync_with_the_registry():
    assert (ROOT / "docs" / "tasks.md").read_text() == kbx("tasks", "list", "--markdown").stdout, \
        "regenerate with: kbx tasks list --markdown > docs/tasks.md"


def test_validate_exit_codes_and_line_numbers(tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps({"task_id": "Activation/gelu", "code": "x"}) + "\n")
    assert kbx("validate", good).exit_code == 0
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"task_id": "Activation/gelu", "code": "x"}) + "\n{oops\n"
                   + json.dumps({"task_id": "Activation/gelu", "sample_id": -1}) + "\n")
    result = kbx("validate", bad)
    assert result.exit_code == 1
    assert "line 2: malformed JSON" in result.stdout and "line 3:" in result.stdout
    assert kbx("validate", tmp_path / "missing.json").exit_code == 2
    assert kbx("validate", good, "--kind", "nope").exit_code == 2


def test_eval_of_a_missing_submission_exits_2(tmp_path):
    result = kbx("eval", tmp_path / "nope.jsonl", "--out", tmp_path / "out")
    assert result.exit_code == 2 and "not found" in result.output


def test_report_prints_the_table_of_a_results_folder(tmp_path):
    record = {"kbx_result": 2, "key": "k", "run_id": "r", "verdict": "correct",
              "reason": {"code": "passed", "message": ""},
              "candidate": {"task_id": "Reduce/sum", "source": "s:1", "code_sha256": None},
              "stages": {"compile": {"import": {"ok": True}}, "perf": {}}, "elapsed_s": 1.0,
              "finished_at": "2026-11-26T00:00:00+00:00", "environment": {}}
    (tmp_path / "results.jsonl").write_text(json.dumps(record) + "\n")
    table = kbx("report", tmp_path, "--task-set", "submitted").stdout
    assert "Reduce" in table and "100.0%" in table
    assert kbx("report", tmp_path / "none").exit_code == 2


def test_python_dash_m_and_console_script_agree():
    out = subprocess.run([sys.executable, "-m", "kernelbenchx", "tasks", "list", "--category", "Reduce"],
                         capture_output=True, text=True, check=True).stdout
    assert "Reduce/sum" in out


# ---- every edge a new user hits gets a message and exit status 2 (issue 11) ----------------------------------


def one_line(tmp_path):
    sub = tmp_path / "s.jsonl"
    sub.write_text(json.dumps({"task_id": "Activation/relu", "code": "def relu(x):\n    return x\n"}) + "\n")
    return sub


def test_device_typo_and_missing_gpu_are_usage_errors(tmp_path):
    sub = one_line(tmp_path)
    typo = kbx("eval", sub, "--device", "gpu", "--out", tmp_path / "o")
    assert typo.exit_code == 2 and "unknown device 'gpu'" in typo.output and "Traceback" not in typo.output
    import torch

    if not torch.cuda.is_available():
        cuda = kbx("eval", sub, "--device", "cuda", "--out", tmp_path / "o")
        assert cuda.exit_code == 2 and "no CUDA device" in cuda.output and "--device cpu" in cuda.output


def test_bad_option_values_are_usage_errors(tmp_path):
    sub = one_line(tmp_path)
    workers = kbx("eval", sub, "--workers", "-3", "--out", tmp_path / "o")
    assert workers.exit_code == 2 and "--workers" in workers.output and "Traceback" not in workers.output
    task_set = kbx("report", tmp_path, "--task-set", "bogus")
    assert task_set.exit_code == 2 and "unknown task set 'bogus'" in task_set.output
    baselines = kbx("eval", sub, "--baselines", "compile", "--out", tmp_path / "o")
    assert baselines.exit_code == 2 and "must include eager" in baselines.output


def test_unwritable_out_is_a_usage_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = kbx("eval", one_line(tmp_path), "--out", blocker / "out", "--device", "cpu")
    assert result.exit_code == 2 and "cannot write to" in result.output and "Traceback" not in result.output


def test_corpus_that_is_not_jsonl_is_a_usage_error(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("this is not json\n")
    result = kbx("dataset", "build", tmp_path / "ds", "--corpus", corpus)
    assert result.exit_code == 2 and "corpus.jsonl:1" in result.output and "Traceback" not in result.output


def test_empty_submission_and_empty_file_validation(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    result = kbx("eval", empty, "--out", tmp_path / "o", "--device", "cpu")
    assert result.exit_code == 2 and "holds no candidates" in result.output
    validated = kbx("validate", empty)
    assert validated.exit_code == 1 and "empty" in validated.output


def test_existing_run_directory_is_protected(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    (out / "run.json").write_text(json.dumps({"seed": 1, "run_id": "r", "submission_sha256": "0" * 64}))
    refused = kbx("eval", one_line(tmp_path), "--out", out, "--device", "cpu")
    assert refused.exit_code == 2 and "already holds a run" in refused.output and "--overwrite" in refused.output
    other = kbx("eval", one_line(tmp_path), "--out", out, "--device", "cpu", "--resume")
    assert other.exit_code == 2 and "different submission" in other.output


def test_debug_shows_the_traceback(tmp_path):
    result = runner.invoke(app, ["--debug", "eval", str(tmp_path / "missing.jsonl")])
    assert result.exit_code != 0 and result.exception is not None and "not found" in str(result.exception)


def test_help_and_listing_explain_themselves():
    help_text = kbx("eval", "--help").output
    assert "0: automatic" in help_text and "--overwrite" in help_text and "--resume" in help_text
    assert "--compile-slots" in help_text and "--compile-threads" in help_text
    refused = kbx("eval", "x.jsonl", "--compile-threads", "99")
    assert refused.exit_code == 2 and "compile threads must be 0 to 32" in refused.output
    listing = kbx("tasks", "list").stdout.splitlines()
    assert listing[0].split()[:3] == ["id", "difficulty", "set"]
    assert "did you mean Activation/relu" in kbx("tasks", "show", "Activation/rleu").output
    assert kbx("tasks", "show", "relu").exit_code == 0  # a unique bare stem is enough


def test_singular_and_plural_and_the_cpu_timing_line():
    from kernelbenchx.evaluator.parent.summary import format_table, summarize

    table = format_table(summarize([], "submitted", submitted=[]))
    assert "0 candidates" in table
    assert format_table({**summarize([], "submitted"), "candidates": 1}).count("1 candidate ") == 1


def test_fork_server_option_decides_how_candidate_processes_start(tmp_path):
    """`kbx eval` forks candidate processes from a zygote by default and execs them with --no-fork-server; the
    record says which, and the verdict does not depend on it."""
    code = (ROOT / "kernelbenchx" / "solutions" / "Activation" / "relu.py").read_text()
    sub = tmp_path / "s.jsonl"
    sub.write_text(json.dumps({"task_id": "Activation/relu", "code": code}) + "\n")
    seen = {}
    for flag, out in (("--fork-server", tmp_path / "forked"), ("--no-fork-server", tmp_path / "exec")):
        usage = tmp_path / f"usage{flag}.json"
        result = runner.invoke(app, [str(a) for a in ("eval", sub, "--out", out, "--device", "cpu", "--no-perf",
                                                      "--workers", "1", flag)],
                               env={"COLUMNS": "200", "KBX_USAGE_LOG": str(usage)})
        assert result.exit_code == 0, result.output
        record = json.loads((out / "results.jsonl").read_text().splitlines()[0])
        seen[flag] = (record["verdict"], record["stages"]["compile"]["process"])
        spent = json.loads(usage.read_text())  # a benchmark's account of the run's CPU, written when it closed
        assert {"wall_s", "parent_cpu_s", "children_cpu_s", "run_started_at"} <= set(spent)
        assert spent["children_cpu_s"] >= 1.0
        if flag == "--fork-server":  # when its zygote was ready, on the clock of the run's start
            zygote = spent["zygotes"]["None"]
            assert zygote["serving"] and zygote["ready_at"] > spent["run_started_at"] and zygote["imports_s"] > 0
        else:
            assert spent["zygotes"] == {}
    assert seen == {"--fork-server": ("correct", "forked"), "--no-fork-server": ("correct", "exec")}
