"""What a candidate process reports about itself (its timing summary and phase times; its warm-ups' counts; its
load time and isolation layers; what its observers saw), checked before it is judged or enters a record.

Candidate code runs in the process that sends these replies, so a tampering candidate can send anything in them:
a field the published schema does not know, a count of 0, NaN (jsonschema's `minimum` lets NaN through, and every
comparison with it is false), a string where a number belongs. Each of those is a breach of the reply protocol,
rejected with a specific message; it must never slip past a rule, become a record that fails the published schema
(or is not JSON), or be a harness error in the parent.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from typing import Any

import jsonschema

from kernelbenchx.evaluator.messages import Observation
from kernelbenchx.validate import SCHEMA_DIR, FILES

# judge_case reads these: the schema requires fewer (a baseline's summary comes from the trusted process)
REQUIRED = ("median_ms", "count", "method", "budget_exhausted", "event_total_ms", "host_total_ms")


@lru_cache(maxsize=1)
def validator() -> jsonschema.Draft202012Validator:
    """$defs/timing of the published result schema, closed: no field it does not name."""
    defs = json.loads((SCHEMA_DIR / FILES["result"]).read_text())["$defs"]
    return jsonschema.Draft202012Validator({"$defs": defs, "$ref": "#/$defs/timing", "unevaluatedProperties": False})


def timing_problem(timing: Any) -> str | None:
    """What is wrong with a timing summary sent by a candidate process, or None when it is well formed."""
    if not isinstance(timing, dict):
        return f"a {type(timing).__name__}, not a mapping"
    missing = [key for key in REQUIRED if key not in timing]
    if missing:
        return f"no {', '.join(missing)}"
    for key, value in timing.items():
        for item in value if isinstance(value, list) else (value,):  # NaN passes the schema's number type
            if isinstance(item, float) and not math.isfinite(item):
                return f"{str(key)[:40]} is {item}" if item is value else f"{str(key)[:40]} holds {item}"
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
        problem = seconds_problem(f"phases: {key}", value)
        if problem:
            return problem
    return None


def counts_problem(counts: dict[str, Any]) -> str | None:
    """The first of `counts` that is not a non-negative integer, named."""
    return next((f"{name} is {str(value)[:40]}" for name, value in counts.items()
                 if isinstance(value, bool) or not isinstance(value, int) or value < 0), None)


def seconds_problem(name: str, value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
        return f"{name} is {str(value)[:40]}"
    return None


def strings_problem(name: str, values: Any, allowed: tuple[str, ...] | None = None) -> str | None:
    if not isinstance(values, (tuple, list)) or not all(isinstance(v, str) for v in values):
        return f"{name}: not a list of strings"
    unknown = [v for v in values if allowed is not None and v not in allowed]
    return f"{name}: unknown {str(unknown[0])[:40]!r}" if unknown else None


def observation_problem(obs: Any) -> str | None:
    """What is wrong with an Observation's types (counts that are not counts, a NaN thread count that every
    comparison would let through, ops that are not a mapping of counts), or None."""
    if not isinstance(obs, Observation):
        return f"a {type(obs).__name__}, not an observation"
    counts = {"launches": obs.launches, "threads_before": obs.threads_before, "threads_after": obs.threads_after,
              "thread_attempts": obs.thread_attempts, "calls": obs.calls}
    problem = counts_problem(counts)
    if problem:
        return problem
    if not isinstance(obs.observer_intact, bool):
        return "observer_intact is not a boolean"
    if not isinstance(obs.ops, dict) or len(obs.ops) > 4096:
        return "ops: not a mapping of counts"
    bad = [k for k, v in obs.ops.items() if not isinstance(k, str) or counts_problem({"n": v})]
    if bad:
        return f"ops: {str(bad[0])[:40]!r}"
    return (strings_problem("refused", obs.refused) or strings_problem("new_threads", obs.new_threads)
            or strings_problem("armed", obs.armed) or strings_problem("processes", obs.processes))
