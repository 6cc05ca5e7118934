"""The kbx command line: thin commands, clear errors, documented exit codes."""

import json
import subprocess
import sys

from typer.testing import CliRunner

from kernelbenchx.cli import app
from tests.conftest import ROOT

runner = CliRunner()


def kbx(*args):
    return runner.invoke(app, [str(a) for a in args])


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
    record = {"kbx_result": 1, "key": "k", "run_id": "r", "verdict": "correct", "reason": {"code": "passed", "message": ""},
              "candidate": {"task_id": "Reduce/sum"}, "stages": {"compile": {"import": {"ok": True}}, "perf": {}}}
    (tmp_path / "results.jsonl").write_text(json.dumps(record) + "\n")
    table = kbx("report", tmp_path, "--task-set", "submitted").stdout
    assert "Reduce" in table and "100.0%" in table
    assert kbx("report", tmp_path / "none").exit_code == 2


def test_python_dash_m_and_console_script_agree():
    out = subprocess.run([sys.executable, "-m", "kernelbenchx", "tasks", "list", "--category", "Reduce"],
                         capture_output=True, text=True, check=True).stdout
    assert "Reduce/sum" in out
