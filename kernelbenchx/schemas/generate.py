"""Writes the generated parts of the published schemas (verdicts and reason codes, from reasons.py).

    python -m kernelbenchx.schemas.generate        # rewrite result.schema.json's enums in place

tests/test_schemas.py fails when the file and the enums disagree.
"""

from __future__ import annotations

import json
from pathlib import Path

from kernelbenchx.evaluator.reasons import Reason, Verdict

RESULT = Path(__file__).parent / "result.schema.json"


def reason_codes() -> list[str]:
    return [r.value for r in Reason]


def verdicts() -> list[str]:
    return [v.value for v in Verdict]


def reason_by_verdict() -> dict[str, list[str]]:
    return {v.value: [r.value for r in Reason if r.verdict is v] for v in Verdict}


def generated(schema: dict) -> dict:
    schema["properties"]["verdict"] = {"enum": verdicts()}
    schema["properties"]["reason"]["properties"]["code"] = {
        "enum": reason_codes(), "description": "reason codes by verdict: " + json.dumps(reason_by_verdict())}
    return schema


def main() -> None:
    schema = json.loads(RESULT.read_text())
    RESULT.write_text(json.dumps(generated(schema), indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
