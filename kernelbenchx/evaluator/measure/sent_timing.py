"""The candidate process's timing summary and phase times, checked before they enter a record.

The candidate's own process times its work and sends the summary, so a tampering candidate can send anything in
it: a field the published schema does not know, a count of 0, NaN (jsonschema's `minimum` lets NaN through), a
string where a number belongs. Each of those is a breach of the reply protocol, rejected with a specific message;
it must never become a record that fails the published schema, or a harness error in the parent.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from typing import Any

import jsonschema

from kernelbenchx.validate import SCHEMA_DIR, FILES

# judge_case reads these: the schema requires fewer (a baseline's summary comes from the trusted process)
REQUIRED = ("median_ms", "count", "method", "budget_exhausted", "event_total_ms", "host_total_ms")


@lru_cache(maxsize=1)
def validator() -> jsonschema.Draft202012Validator:
    """$defs/timing of the published result schema, closed: no field it does not name."""
    defs = json.loads((SCHEMA_DIR / FILES["result"]).read_text())["$defs"]
    return jsonschema.Draft202012Validator({"$defs": defs, "$ref": "#/$defs/timing", "unevaluatedProperties": False})


def problem(timing: Any) -> str | None:
    """What is wrong with a timing summary sent by a candidate process, or None when it is well formed."""
    if not isinstance(timing, dict):
        return f"a {type(timing).__name__}, not a mapping"
    missing = [key for key in REQUIRED if key not in timing]
    if missing:
        return f"no {', '.join(missing)}"
    for key, value in timing.items():
        if isinstance(value, float) and not math.isfinite(value):
            return f"{str(key)[:40]} is {value}"
    errors = sorted(validator().iter_errors(timing), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        where = "/".join(map(str, errors[0].absolute_path)) or "(summary)"
        return f"{where[:40]}: {errors[0].message[:160]}"
    return None


def phases_problem(phases: Any) -> str | None:
    """What is wrong with the seconds per phase a candidate process sent (a few named, finite, non-negative
    numbers), or None. A NaN written into a record is not even JSON."""
    if not isinstance(phases, dict):
        return f"phases: a {type(phases).__name__}, not a mapping"
    if len(phases) > 16:
        return f"phases: {len(phases)} entries"
    for key, value in phases.items():
        if not isinstance(key, str) or len(key) > 40:
            return f"phases: a key {str(key)[:40]!r}"
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
            return f"phases: {key} is {str(value)[:40]}"
    return None
