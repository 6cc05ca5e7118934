"""Submission formats and bad input: each bad line becomes its own problem; the rest goes on."""

import json

import pytest

from kernelbenchx.errors import SubmissionError
from kernelbenchx.evaluator.parent.submission import Candidate, InputProblem, read_submission, strip_fences

CODE = "import triton\n\ndef gelu(x):\n    return x\n"


def test_fences_are_stripped_python_py_and_bare():
    for fence in ("```python\n", "```py\n", "```\n", "```Python\n"):
        assert strip_fences(f"Here you go:\n{fence}{CODE}```\nDone.") == CODE
    assert strip_fences(CODE) == CODE
    assert strip_fences("```python\n```") == ""


def test_jsonl_lines_ours_and_upstream(tmp_path):
    path = tmp_path / "s.jsonl"
    lines = [{"task_id": "Activation/gelu", "code": CODE, "model": "m", "method": "x", "round": 1},
             {"file": "Activation/gelu.py", "predict": f"```python\n{CODE}```"},
             {"task_id": "gelu", "code": CODE}]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    items = list(read_submission(path))
    assert all(isinstance(i, Candidate) for i in items)
    assert [i.task_id for i in items] == ["Activation/gelu"] * 3
    assert [i.sample_id for i in items] == [0, 1, 2]  # independent samples of one task
    assert items[0].model == "m" and items[1].code == CODE


def test_bad_lines_become_specific_problems(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join([
        b'{"task_id": "Activation/gelu", "code": "x = 1"',
        json.dumps({"task_id": "Activation/gelux", "code": CODE}).encode(),
        json.dumps({"task_id": "Activation/gelu", "code": "```python\n```"}).encode(),
        b'{"task_id": "Activation/gelu", "code": "\xff\xfe"}',
        json.dumps({"code": CODE}).encode(),
        json.dumps([1, 2]).encode(),
        json.dumps({"task_id": "Activation/gelu", "code": CODE, "sample_id": "a"}).encode(),
        json.dumps({"task_id": "Activation/gelu", "code": CODE}).encode(),
    ]))
    items = list(read_submission(path))
    codes = [i.reason.value if isinstance(i, InputProblem) else "ok" for i in items]
    assert codes == ["malformed_json", "unknown_task", "empty_code", "not_utf8", "missing_field",
                     "malformed_json", "bad_field", "ok"]
    assert "did you mean Activation/gelu" in items[1].message
    assert items[0].source.endswith(":1") and items[7].source.endswith(":8")


def test_folder_of_stem_files(tmp_path):
    (tmp_path / "gelu.py").write_text(CODE)
    (tmp_path / "not_a_task.py").write_text(CODE)
    items = list(read_submission(tmp_path))
    kinds = sorted((type(i).__name__, getattr(i, "task_id", None)) for i in items)
    assert kinds == [("Candidate", "Activation/gelu"), ("InputProblem", None)]


def test_missing_file_is_a_submission_error(tmp_path):
    with pytest.raises(SubmissionError, match="not found"):
        list(read_submission(tmp_path / "missing.jsonl"))
