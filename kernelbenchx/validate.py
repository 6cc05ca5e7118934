"""Validation of kbx files against the published JSON Schemas (draft 2020-12)."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import jsonschema

SCHEMA_DIR = Path(__file__).parent / "schemas"
KINDS = ("submission", "result", "summary", "golden", "run", "manifest")
FILES = {"submission": "submission-line.schema.json", "result": "result.schema.json",
         "summary": "summary.schema.json", "golden": "golden.schema.json", "run": "run.schema.json",
         "manifest": "manifest.schema.json"}


@lru_cache(maxsize=None)
def validator(kind: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((SCHEMA_DIR / FILES[kind]).read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())


def errors_for(obj: object, kind: str) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"
            for e in sorted(validator(kind).iter_errors(obj), key=lambda e: list(map(str, e.absolute_path)))]


def guess_kind(path: Path, first: object) -> str:
    if isinstance(first, dict):
        for key, kind in (("kbx_result", "result"), ("kbx_summary", "summary"), ("kbx_golden", "golden"),
                          ("kbx_manifest", "manifest"), ("submission_sha256", "run")):
            if key in first:
                return kind
    return "submission" if path.suffix == ".jsonl" else "summary"


def validate_file(path: str | Path, kind: str | None = None) -> list[str]:
    """Line-numbered problems with `path` (empty when valid). Raises OSError if it cannot be read."""
    path = Path(path)
    text = path.read_text(encoding="utf-8", errors="replace")
    if not text.strip():
        return [f"{path.name}: empty"]
    if path.suffix == ".jsonl":
        return validate_lines(text, kind, path)
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        return [f"line {exc.lineno}: malformed JSON: {exc.msg}"]
    return [f"{path.name}: {e}" for e in errors_for(obj, kind or guess_kind(path, obj))]


def validate_lines(text: str, kind: str | None, path: Path) -> list[str]:
    if not text.strip():
        return [f"{path.name}: empty (no records)"]
    problems = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"line {number}: malformed JSON: {exc.msg}")
            continue
        kind = kind or guess_kind(path, obj)
        problems += [f"line {number}: {e}" for e in errors_for(obj, kind)]
    return problems
