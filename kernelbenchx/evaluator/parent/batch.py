"""Evaluation as a reward function: processes and trusted servers stay warm across calls, and results come back
as they finish.

    with kbx.Evaluator(kbx.RunConfig(perf=False)) as ev:
        for result in ev.submit([("Activation/gelu", code_a), ("Reduce/sum", code_b)]):
            reward = 1.0 if result.correct else 0.0

Each batch gets a fresh secret seed by default (`reseed=True`), so a policy trained against the evaluator
never sees the same stage-2 inputs twice; expected outputs are computed once per task per batch. Nothing is
written to disk. `evaluate_batch` is the one-shot form.
"""

from __future__ import annotations

import json
import secrets
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import Iterable, Iterator

from kernelbenchx.evaluator.parent.candidate import evaluate_candidate
from kernelbenchx.evaluator.parent.references import ExpectedOutputs
from kernelbenchx.evaluator.parent.context import Run, RunConfig
from kernelbenchx.evaluator.parent.submission import Candidate, parse_line
from kernelbenchx.evaluator.result import Result

Item = tuple[str, str] | dict  # (task_id, code) or a submission line as a dict


class Evaluator:
    """A warm evaluation service: one Run (reference servers, timing lanes, a pool of started processes)."""

    def __init__(self, config: RunConfig | None = None, seed: int | None = None) -> None:
        self.config = config or RunConfig()
        self.config.check()
        self.seed_fixed = seed is not None
        self.run = Run(self.config, seed if seed is not None else secrets.randbits(62), "batch", self.seed_fixed)
        self.batches = 0

    def __enter__(self) -> "Evaluator":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def reseed(self) -> None:
        """A new secret seed: new stage-2 inputs (expected outputs are recomputed on demand)."""
        if self.seed_fixed:
            return
        self.run.seed = secrets.randbits(62)
        self.run.outputs = ExpectedOutputs(self.run.outputs.servers, self.run.device, self.run.outputs.shared)

    def submit(self, items: Iterable[Item], reseed: bool = True) -> Iterator[Result]:
        """Evaluate `items` in parallel; yields each Result as soon as it is ready (not in input order)."""
        if reseed and self.batches:
            self.reseed()
        self.batches += 1
        parsed = [parse_line(json.dumps(as_line(item, i)).encode(), f"batch:{i + 1}") for i, item in enumerate(items)]
        workers = self.config.resolved_workers()
        self.run.prefetch([item.task_id for item in parsed if isinstance(item, Candidate)])
        with ThreadPoolExecutor(workers) as pool:
            pending = set()
            queue = list(reversed(parsed))
            while queue or pending:
                while queue and len(pending) < 2 * workers:
                    pending.add(pool.submit(evaluate_candidate, queue.pop(), self.run))
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    yield future.result()

    def evaluate(self, task_id: str, code: str) -> Result:
        return next(iter(self.submit([(task_id, code)], reseed=False)))

    def close(self) -> None:
        self.run.close()


def as_line(item: Item, index: int) -> dict:
    if isinstance(item, dict):
        return {"sample_id": index, **item}
    task_id, code = item
    return {"task_id": task_id, "code": code, "sample_id": index}


def evaluate_batch(items: Iterable[Item], config: RunConfig | None = None, seed: int | None = None
                   ) -> Iterator[Result]:
    """Evaluate a batch once (processes are started for it and stopped after); yields results as they finish."""
    with Evaluator(config, seed) as evaluator:
        yield from evaluator.submit(items)
