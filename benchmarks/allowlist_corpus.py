"""The static allowlist against the upstream corpus: every unique generated kernel that upstream's own harness
ran (call_ok and exe_ok), cut at the upstream test code appended after a '#####' line, is checked statically
against its kbx task; rejections are counted by reason and listed, to be read for false positives (an honest
kernel, Triton doing the work, that the allowlist refuses).

    python benchmarks/allowlist_corpus.py [../shared/upstream/all_records.jsonl]
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

from kernelbenchx.dataset.registry import get_task, normalize_id
from kernelbenchx.evaluator.parent.static import check_source
from kernelbenchx.evaluator.reasons import Rejected

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "upstream" / "all_records.jsonl"


def passing_kernels(corpus: Path) -> dict[str, str]:
    """Unique kernel code → upstream task id, for the sides upstream's harness called and executed."""
    seen: dict[str, str] = {}
    for line in corpus.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for side in ("before", "after"):
            code = record.get(f"{side}_code")
            if code and record[side].get("exe_ok") and record[side].get("call_ok"):
                seen.setdefault(re.split(r"\n#{20,}", code)[0], record["task_id"])
    return seen


def main(corpus: Path) -> None:
    kernels = passing_kernels(corpus)
    reasons: Counter[str] = Counter()
    rows = []
    for code, upstream_id in kernels.items():
        try:
            task = get_task(normalize_id(upstream_id))
        except Exception:  # a task upstream has and kbx does not
            reasons["no kbx task"] += 1
            continue
        try:
            check_source(code, task.entry)
            reasons["accepted"] += 1
        except Rejected as exc:
            reasons[exc.reason.value] += 1
            rows.append(f"{task.id} | {exc.reason.value} | {str(exc)[:140]}")
    print(f"{len(kernels)} unique kernels upstream ran: " + ", ".join(f"{n} {k}" for k, n in reasons.most_common()))
    print("\n".join(sorted(rows)))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else CORPUS)
