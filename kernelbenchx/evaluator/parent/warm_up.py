"""The compile warm-ups, driven from the parent; the candidate's side is child/warm.py.

Right after its import the candidate process compiles what its correctness cases will launch, and after stage 2
what its perf cases will launch, calling its entry on fake tensors. Nothing runs on the GPU meanwhile, so no side
of the GPU's guard is held: on a one-GPU host, compiles inside the correctness cases gave the guard back and
queued again behind every waiting timing, and that queueing was most of a run's time. A warm-up decides no
verdict of correctness or speed; only the tampering rules apply to what its calls did.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterable
from dataclasses import replace
from typing import Any, Callable, ContextManager

import torch

from kernelbenchx.dataset.cases import build_cases
from kernelbenchx.dataset.registry import get_task
from kernelbenchx.dataset.task import Task, map_tensors
from kernelbenchx.evaluator import messages as m
from kernelbenchx.evaluator.measure import perf_case
from kernelbenchx.evaluator.parent import observations, reported
from kernelbenchx.evaluator.parent.triton_modules import TritonModules
from kernelbenchx.evaluator.process import Child, ChildFailed
from kernelbenchx.evaluator.reasons import Reason, Rejected

STAGES = ("stage1", "stage2")
WARM_BUILD_BYTES = 1 << 30  # a larger perf case 0 is not built before the lane


def correctness(child: Child, stages: dict) -> dict:
    """Warm the kernels of the correctness cases in `stages` (stage → ExpectedRows), once per distinct input
    layout. Returns the record's `correct.warm`; raises Rejected for tampering. A timeout is the candidate's."""
    return warm_calls(child, row_layouts(stages))


def row_layouts(stages: dict) -> tuple[dict, ...]:
    """The distinct input layouts of the expected rows in `stages`."""
    return distinct(layouts(row.call) for stage in STAGES for row in stages.get(stage, ()))


class PoolLeftThreads(Exception):
    """A correctness warm-up on the compile threads left a thread behind, and nothing else was wrong."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def warm_calls(child: Child, calls: tuple[dict, ...], modules: TritonModules | None = None,
               pooled: bool = False) -> dict:
    """The correctness warm-up on these call layouts (see correctness). The launcher signatures it reports go to
    `modules`, which builds them for later candidates. When the warm-up ran on the process's compile threads
    (`pooled`), a thread left running and nothing else raises PoolLeftThreads instead of a verdict: under the
    seccomp filter only the pool's own threads can be there, and under no filter the candidate is judged again
    in a process without them, by the same rule."""
    started = time.perf_counter()
    reply = child.call(m.WarmCases(calls))
    if pooled and only_left_threads(reply):
        raise PoolLeftThreads(f"the correctness warm-up on the compile threads left "
                              f"{reply.observation.threads_after - reply.observation.threads_before} thread(s) "
                              f"running ({', '.join(map(str, reply.observation.new_threads[:5]))})"[:300])
    stats = record(reply, "correctness warm-up", started)
    if modules is not None and isinstance(reply.launchers, (tuple, list)):
        stats["launchers"], stats["launchers_shared"] = modules.learn(reply.launchers)
    return stats


@functools.lru_cache(maxsize=256)
def case_layouts(task_id: str, seed: int) -> tuple[dict, ...] | None:
    """The distinct input layouts of a task's correctness cases for stage-2 seed `seed`, built here from the
    task's case builders, as the reference server builds them (dataset/cases.py build_cases, the same seeds): the
    warm-up need not wait for the expected outputs. At a run's start the first candidates waited 13 s for them
    (run 38). None where a builder fails here: the warm-up then takes the layouts of the expected rows."""
    try:
        task = get_task(task_id)
        built = [call for stage_seed in (None, seed) for _, call in build_cases(task, stage_seed)]
    except Exception:
        return None
    return distinct(layouts(call.to_payload()) for call in built)


def distinct(calls: Iterable[dict]) -> tuple[dict, ...]:
    unique: dict[str, dict] = {}
    for call in calls:
        unique.setdefault(repr(call), call)
    return tuple(unique.values())


def perf(child: Child, timeout_s: float, hold: tuple = ()) -> dict:
    """Warm the kernels of the perf cases, before the candidate queues for the lane (with `hold`, per perf case the
    layouts of the outputs it will hold, the process also stages host buffers for them). Returns the record's
    `perf.warm`; raises Rejected for tampering, or when it did not finish in `timeout_s`."""
    child.restart_clock(timeout_s)
    started = time.perf_counter()
    try:
        reply = child.call(m.WarmPerf(hold))
    except ChildFailed as failed:
        if failed.kind != "timeout":
            raise
        raise Rejected(Reason.PERF_TIMEOUT, f"passed stages 1 and 2, but compiling the kernels of its perf cases "
                                            f"(on fake inputs, before timing) did not finish in {timeout_s:.0f} s")
    return record(reply, "perf warm-up", started)


@functools.lru_cache(maxsize=256)
def held_layouts(task_id: str) -> tuple:
    """Per perf case of a task whose perf outputs are held, the layouts of those outputs (computed here, trusted:
    the candidate process only allocates what it is told)."""
    task = get_task(task_id)
    return tuple(perf_case.output_layouts(task, index) for index in range(perf_case.perf_case_count(task)))


def build(child: Child, task: Task, shared: Callable[[], ContextManager], timeout_s: float) -> float:
    """Have the candidate process build its first perf case's inputs once under the GPU's shared guard (they run
    kernels), so that loading the generator's kernels is not the lane's time; not a case 0 over WARM_BUILD_BYTES
    (its memory would wait for the lane with it). Returns the seconds it took. An error is left to the lane's own
    build of the case, which decides; a hang is the candidate's."""
    started = time.perf_counter()
    if perf_case.case_bytes(task, 0) > WARM_BUILD_BYTES:
        return 0.0
    try:
        with shared():
            child.call(m.WarmBuild(), timeout=timeout_s)
    except ChildFailed as failed:
        if failed.kind != "timeout":
            raise
        raise Rejected(Reason.PERF_TIMEOUT, f"passed stages 1 and 2, but building its first perf case's inputs "
                                            f"(before timing) did not finish in {timeout_s:.0f} s")
    return round(time.perf_counter() - started, 3)


def only_left_threads(reply: Any) -> bool:
    """The reply is well formed and its observation breaks no tampering rule but the threads left running."""
    obs = reply.observation if isinstance(reply, m.Warmed) else None
    if obs is None or reported.observation_problem(obs) or obs.threads_after <= obs.threads_before:
        return False
    try:
        observations.judge_tampering(replace(obs, threads_after=obs.threads_before), "")
    except Rejected:
        return False
    return True


def record(reply: Any, what: str, started: float) -> dict:
    if not isinstance(reply, m.Warmed):
        raise Rejected(Reason.PROTOCOL, f"unexpected reply to the {what}: {type(reply).__name__}")
    malformed = (reported.counts_problem({"cases": reply.cases, "warmed": reply.warmed, "compiles": reply.compiles})
                 or reported.seconds_problem("seconds", reply.seconds)
                 or reported.strings_problem("skipped", reply.skipped)
                 or reported.phases_problem(reply.phases))
    if malformed:
        raise Rejected(Reason.PROTOCOL, f"the {what} reply is malformed ({malformed})")
    observations.judge_tampering(reply.observation or m.Observation(0, {}, 0, 0, False), what)
    return {"seconds": round(time.perf_counter() - started, 3), "child_s": round(reply.seconds, 3),
            "cases": reply.cases, "warmed": reply.warmed, "compiles": reply.compiles,
            "skipped": [line[:300] for line in reply.skipped[:20]],
            **({"phases": phases} if (phases := {k: round(reply.phases[k], 3) for k in m.WARM_PHASES
                                                 if k in reply.phases}) else {})}


def layouts(call: dict) -> dict:
    """A call payload with each tensor replaced by its layout (no values cross the channel twice)."""
    return map_tensors(call, layout)


def layout(t: torch.Tensor) -> m.TensorLayout:
    return m.TensorLayout(str(t.dtype), tuple(t.shape), tuple(t.stride()), t.storage_offset(),
                          t.untyped_storage().nbytes() // t.element_size())
