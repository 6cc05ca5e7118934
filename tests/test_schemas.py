"""The published schemas enumerate exactly the verdicts and reason codes the evaluator can produce."""

import json

from kernelbenchx.schemas.generate import RESULT, generated, reason_codes
from kernelbenchx.evaluator.reasons import Reason, Verdict


def test_result_schema_enums_are_generated_from_the_code():
    schema = json.loads(RESULT.read_text())
    assert schema == generated(json.loads(RESULT.read_text())), \
        "regenerate with: python -m kernelbenchx.schemas.generate"
    assert schema["properties"]["reason"]["properties"]["code"]["enum"] == reason_codes()


def test_every_reason_has_one_verdict_and_codes_are_unique():
    codes = [r.value for r in Reason]
    assert len(codes) == len(set(codes))
    assert {r.verdict for r in Reason} == set(Verdict)
    assert Reason("torch_compute").verdict is Verdict.FORBIDDEN and Reason.PASSED.verdict is Verdict.CORRECT


def test_every_static_denial_is_a_reason():
    from kernelbenchx.evaluator.parent import allowlist

    for code in set(allowlist.NAMED_DENIALS.values()):
        assert Reason(code).verdict is Verdict.FORBIDDEN
