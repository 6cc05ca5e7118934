"""How a task differs from the seed paper's (upstream KernelBench-X) version of it, as data.

Every task declares ``deviations`` (an empty tuple when kbx tests exactly what upstream tests). Each record
says what upstream does, what kbx does, which kind of change it is, and why. The records are rendered in
docs/tasks.md, published in the dataset's ``tasks`` config, and the ones marked ``in_prompt`` are stated in
the prompt, where a model that knows the upstream task would otherwise be misled.

A task is *faithful* when no deviation changes its semantics or its judging; documented tolerance fixes,
extra coverage of the same semantics and perf sizes keep a task faithful. ``--task-set faithful`` is the
subset a paper can compare with the seed paper's numbers.

kbx-wide differences (secret per-run seeds, strided-view cases, anti-cheat rules, live baselines) apply to
every task and are described once, in docs/tasks.md, not per task.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Kind(str, Enum):
    UPSTREAM_BUG = "fixes_upstream_bug"  # upstream's reference contradicts its own description/catalogue
    SATISFIABLE = "contract_satisfiable"  # upstream's check cannot be met by a correct kernel (RNG streams, ...)
    SEMANTICS = "semantics"  # another deliberate change of what is computed or how it is called
    DIFFERENT_TASK = "different_task"  # kbx tests a different operation under the upstream id
    TOLERANCE = "tolerance"  # how close is close enough, with the error analysis as the reason
    COVERAGE = "coverage"  # cases or dtypes added or dropped; the semantics are the same
    PERF = "perf"  # perf sizes or dtypes only

    @property
    def changes_judging(self) -> bool:
        """Whether a kernel faithful to upstream's semantics could be judged differently by kbx."""
        return self in (Kind.UPSTREAM_BUG, Kind.SATISFIABLE, Kind.SEMANTICS, Kind.DIFFERENT_TASK)


@dataclass(frozen=True)
class Deviation:
    kind: Kind
    upstream: str  # what upstream's reference / catalogue / perf script does
    kbx: str  # what kbx does instead
    reason: str  # why
    in_prompt: bool = False  # also stated in the prompt

    def __post_init__(self) -> None:
        for name in ("upstream", "kbx", "reason"):
            if not getattr(self, name).strip():
                raise ValueError(f"a deviation needs a non-empty {name!r}")
        if not isinstance(self.kind, Kind):
            raise TypeError(f"deviation kind must be a deviation.Kind, got {self.kind!r}")

    def to_json(self) -> dict:
        return {"kind": self.kind.value, "upstream": self.upstream, "kbx": self.kbx, "reason": self.reason,
                "in_prompt": self.in_prompt}

    def describe(self) -> str:
        return f"{self.kbx} (upstream: {self.upstream}). Why: {self.reason}"


NONE: tuple[Deviation, ...] = ()  # audited: kbx tests what upstream tests


def faithful(deviations: tuple[Deviation, ...]) -> bool:
    return not any(d.kind.changes_judging for d in deviations)
