"""Verdicts and result records: every candidate ends in exactly one Verdict with a machine-readable reason."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any


class Verdict(str, Enum):
    INPUT_ERROR = "input_error"  # the submission line itself is unusable (malformed, unknown task, empty code)
    COMPILE_ERROR = "compile_error"
    MISSING_ENTRY = "missing_entry"
    NO_TRITON_KERNEL = "no_triton_kernel"
    FORBIDDEN = "forbidden"
    RUNTIME_ERROR = "runtime_error"
    TIMEOUT = "timeout"
    CRASH = "crash"
    INCORRECT = "incorrect"
    UNSUPPORTED_ON_CPU = "unsupported_on_cpu"
    IMPLAUSIBLE = "implausible"
    CORRECT = "correct"

    @property
    def compiled(self) -> bool:
        return self not in (Verdict.INPUT_ERROR, Verdict.COMPILE_ERROR, Verdict.MISSING_ENTRY,
                            Verdict.NO_TRITON_KERNEL)


@dataclass
class Outcome:
    """A verdict with its reason code (e.g. 'torch_compute', 'stage2') and a human message."""

    verdict: Verdict
    code: str
    message: str
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict.value, "reason": {"code": self.code, "message": self.message,
                                                          **({"details": self.details} if self.details else {})}}


class Rejected(Exception):
    """Raised inside the pipeline to end a candidate with an outcome."""

    def __init__(self, verdict: Verdict, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.outcome = Outcome(verdict, code, message, details)


@dataclass
class StageLog:
    """What each stage saw, kept in the result record whatever the verdict."""

    compile: dict[str, Any] = field(default_factory=dict)
    correct: dict[str, Any] = field(default_factory=dict)
    perf: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
