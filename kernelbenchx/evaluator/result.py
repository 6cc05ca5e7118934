"""The result of evaluating one candidate: one frozen type shared by results.jsonl, the summary, the report,
`kbx verify` and `kbx.evaluate`. ``to_json``/``from_json`` are the record format (schemas/result.schema.json).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from typing import Any

from kernelbenchx.evaluator.reasons import Reason, Verdict

RESULT_FORMAT = 2  # 2: reason codes enumerated, hash chain, isolation layers, record keys by content


@dataclass(frozen=True)
class CandidateInfo:
    task_id: str | None
    source: str  # "file.jsonl:LINE" or "folder/stem.py" (where it came from; not part of the key)
    code_sha256: str | None
    sample_id: int | None = None
    model: str | None = None
    method: str | None = None
    round: int | None = None

    def to_json(self) -> dict:
        return {"task_id": self.task_id, "sample_id": self.sample_id, "model": self.model, "method": self.method,
                "round": self.round, "source": self.source, "code_sha256": self.code_sha256}


@dataclass(frozen=True)
class Result:
    run_id: str
    key: str  # identity for --resume: task, sample and code hash (not the submission's file name)
    candidate: CandidateInfo
    reason: Reason
    message: str
    stages: dict[str, dict]
    elapsed_s: float
    finished_at: str
    environment: dict[str, Any]
    details: dict[str, Any] = field(default_factory=dict)
    chain: dict[str, Any] | None = None  # {"index": n, "prev": sha256 of the previous line}

    @property
    def verdict(self) -> Verdict:
        return self.reason.verdict

    @property
    def task_id(self) -> str | None:
        return self.candidate.task_id

    @property
    def correct(self) -> bool:
        return self.verdict is Verdict.CORRECT

    def speedup(self, baseline: str = "eager") -> float | None:
        return ((self.stages.get("perf") or {}).get("speedup_geomean") or {}).get(baseline)

    def chained(self, index: int, prev: str) -> "Result":
        return replace(self, chain={"index": index, "prev": prev})

    def to_json(self) -> dict:
        reason = {"code": self.reason.value, "message": self.message}
        if self.details:
            reason["details"] = self.details
        record = {"kbx_result": RESULT_FORMAT, "run_id": self.run_id, "key": self.key,
                  "candidate": self.candidate.to_json(), "verdict": self.verdict.value, "reason": reason,
                  "stages": self.stages, "elapsed_s": self.elapsed_s, "finished_at": self.finished_at,
                  "environment": self.environment}
        if self.chain is not None:
            record["chain"] = self.chain
        return record

    def line(self) -> str:
        return json.dumps(self.to_json(), sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, record: dict) -> "Result":
        reason = record["reason"]
        return cls(run_id=record["run_id"], key=record["key"], candidate=CandidateInfo(**record["candidate"]),
                   reason=Reason(reason["code"]), message=reason["message"], stages=record["stages"],
                   elapsed_s=record["elapsed_s"], finished_at=record["finished_at"],
                   environment=record["environment"], details=reason.get("details", {}),
                   chain=record.get("chain"))


def line_hash(line: str) -> str:
    """What the next record's chain.prev holds: sha256 of this record's line, newline included."""
    return hashlib.sha256(line.encode("utf-8")).hexdigest()


GENESIS = "0" * 64  # chain.prev of a run's first record
