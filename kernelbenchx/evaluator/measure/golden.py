"""Golden baseline timings shipped with the package, per GPU target: a machine-health cross-check.

They are never the denominator of a speedup (that is always the live baseline); a live baseline far from
the golden of the same target points at throttling, a different GPU SKU or a noisy neighbour.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

GOLDEN_DIR = Path(__file__).resolve().parents[2] / "golden"


def golden_path(target: str) -> Path:
    return GOLDEN_DIR / f"{target}.json"


@lru_cache(maxsize=None)
def load_golden(target: str | None) -> dict:
    if not target or not golden_path(target).exists():
        return {}
    return json.loads(golden_path(target).read_text())


def golden_deviation(target: str | None, task_id: str, case: int, name: str, live_ms: float) -> float | None:
    """(live − golden) / golden for the eager baseline of a perf case, or None without a golden for it
    (none for the target, or the task's perf case changed since the golden was measured)."""
    rows = load_golden(target).get("tasks", {}).get(task_id)
    if not rows or case >= len(rows) or not rows[case].get("eager_ms") or rows[case].get("name") != name:
        return None
    return (live_ms - rows[case]["eager_ms"]) / rows[case]["eager_ms"]
