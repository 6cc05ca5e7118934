"""The pipeline: submission in, one result record per candidate out, appended as each finishes.

Candidates run in parallel worker threads, each driving its own fresh, confined candidate process; expected
outputs come from a small pool of trusted reference processes; on GPUs, timing is serialized per GPU through
a trusted lane, and a timing holds its GPU alone (gpu_guard). The parent owns the run directory: it writes the
chained records, then the summary (computed from its own records) and the manifest.

Follow a candidate: evaluate_submission → run_all → candidate.evaluate_candidate (static checks, the child's
stages, perf) → RecordWriter.append. Follow the seed: RunDir.prepare keeps it in run.json → Run.seed →
derive_seed(seed, task, ...) per stage-2 task and perf case; it is never sent to a candidate process.
"""

from __future__ import annotations

import hashlib
import signal
import threading

from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from kernelbenchx.errors import Interrupted, SubmissionError
from kernelbenchx.evaluator import process
from kernelbenchx.evaluator.parent import watch
from kernelbenchx.evaluator.parent.candidate import evaluate_candidate
from kernelbenchx.evaluator.parent.context import Run, RunConfig, derive_seed  # noqa: F401  (public here too)
from kernelbenchx.evaluator.parent.rundir import RunDir, sha256_file
from kernelbenchx.evaluator.parent.schedule import in_start_order
from kernelbenchx.evaluator.parent.submission import Candidate, InputProblem, read_submission
from kernelbenchx.evaluator.parent.summary import summarize
from kernelbenchx.evaluator.reasons import Reason
from kernelbenchx.evaluator.result import Result


# -------------------------------------------------------------------------------------------------------------
# A whole submission


def evaluate_submission(submission: str | Path, config: RunConfig) -> dict:
    """Evaluate every candidate of `submission`; returns the summary (also written to out_dir).
    Raises KbxError subclasses for unusable input, Interrupted (exit 130) when stopped by a signal."""
    config.check()
    submission = Path(submission)
    items = dedupe(list(read_submission(submission)))  # SubmissionError before anything is written
    if not items:
        raise SubmissionError(f"{submission} holds no candidates", hint="one JSON object per line: "
                              '{"task_id": "Category/stem", "code": "..."}')
    out = Path(config.out_dir or "results")
    rundir = RunDir.prepare(out, sha256_file(submission) if submission.is_file() else folder_hash(submission),
                            config.seed, config.resolved_device(), config.resume, config.overwrite)
    done = rundir.done()
    todo = [item for item in items if item.key not in done]
    with rundir.writer() as writer, stop_on_signals() as (stop, drain):
        finished = run_items(todo, config, rundir, writer, stop, already=len(items) - len(todo), drain=drain)
    if stop.is_set() or finished < len(todo):
        how = "interrupted" if stop.is_set() else "drained (SIGUSR2)"
        raise Interrupted(f"{how}: {len(items) - len(todo) + finished} of {len(items)} candidates done "
                          f"and saved in {out}/results.jsonl",
                          hint=f"continue with: kbx eval {submission} --out {out} --resume")
    from kernelbenchx.evaluator.parent.rundir import read_results

    summary = summarize(read_results(out), config.task_set, submitted=[i.task_id for i in items if i.task_id],
                        run=rundir.info)
    rundir.write_summary(summary)
    rundir.write_manifest(submission)
    return summary


def run_items(todo: list, config: RunConfig, rundir: RunDir, writer: Any, stop: threading.Event,
              already: int, drain: threading.Event | None = None) -> int:
    """Evaluate the items not done yet: here, or on a Ray cluster. After `drain`, no new candidate starts
    here and the running ones finish (Ray runs ignore it)."""
    todo = in_start_order(todo, config.order, config.resolved_workers())  # parent/schedule.py
    if config.ray:
        from kernelbenchx.evaluator.parent.distributed import run_all_ray

        return run_all_ray(todo, config, rundir.info, writer, stop, config.progress, already)
    process.reset()
    run = Run(config, rundir.seed, rundir.run_id, bool(rundir.info.get("seed_fixed")),
              candidates=sum(isinstance(item, Candidate) for item in todo))
    try:
        return run_all(todo, run, writer, config, stop, already, drain)
    finally:
        run.close()


def dedupe(items: list[Candidate | InputProblem]) -> list[Candidate | InputProblem]:
    """A line with the same task, sample, model, method and code as an earlier one is an input error."""
    seen: dict[str, str] = {}
    out = []
    for item in items:
        if item.key in seen:
            item = InputProblem(item.info().source, Reason.BAD_FIELD, f"duplicate of {seen[item.key]} (same task, "
                                "sample_id and code): give distinct sample_ids", item.task_id)
        else:
            seen[item.key] = item.info().source
        out.append(item)
    return out


def folder_hash(folder: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(folder)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


@contextmanager
def stop_on_signals() -> Iterator[tuple[threading.Event, threading.Event]]:
    """Returns (stop, drain). SIGINT and SIGTERM set `stop` (nothing new starts; running children are killed
    by the run loop); SIGUSR2 sets `drain` (nothing new starts; running candidates finish and are saved, so a
    time-limited run loses no work to its limit); SIGUSR1 prints where the run is. Handlers are restored
    afterwards. Outside the main thread, no handlers."""
    stop, drain = threading.Event(), threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop, drain
        return
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    previous[signal.SIGUSR2] = signal.signal(signal.SIGUSR2, lambda *_: drain.set())
    previous[signal.SIGUSR1] = signal.signal(signal.SIGUSR1, watch.dump)  # where the run is (parent/watch.py)
    try:
        yield stop, drain
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def run_all(items: list, run: Run, writer: Any, config: RunConfig, stop: threading.Event, already: int,
            drain: threading.Event | None = None) -> int:
    """Evaluate `items` in parallel; returns how many were written. After `stop`, nothing new starts,
    running candidates are killed and their (interrupted) results are not written. After `drain`, nothing
    new starts and the running candidates finish and are written."""
    total, written = already + len(items), 0
    drain = drain or threading.Event()
    if config.progress:
        config.progress(already, total, None)
    run.prefetch([item.task_id for item in items if isinstance(item, Candidate)])
    with ThreadPoolExecutor(config.resolved_workers()) as pool:
        pending: set[Future] = set()
        queue = list(reversed(items))
        while (queue or pending) and not stop.is_set():
            if drain.is_set():
                run.stop_prefetch()
                queue.clear()
                pending = {future for future in pending if not future.cancel()}  # those not started yet go
            while queue and len(pending) < config.resolved_workers() * 2:
                pending.add(pool.submit(evaluate_candidate, queue.pop(), run))
            finished, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            for future in finished:
                if stop.is_set():
                    break
                result = writer.append(future.result())
                written += 1
                if config.progress:
                    config.progress(already + written, total, result)
        if stop.is_set():
            kill_children()
            for future in pending:
                future.cancel()
    return written


def kill_children() -> None:
    """Kill every process of this run (their sessions), so interrupted workers return at once."""
    process.kill_all()


def evaluate(task_id: str, code: str, *, device: str | None = None, seed: int | None = None,
             timeout_s: float = 300.0, perf: bool = True) -> Result:
    """Evaluate one candidate in memory; returns its Result (nothing is written to disk)."""
    import json
    import secrets

    from kernelbenchx.evaluator.parent.submission import parse_line

    config = RunConfig(device=device, seed=seed, timeout_s=timeout_s, perf=perf, workers=1)
    config.check()
    run = Run(config, seed if seed is not None else secrets.randbits(62), "api", seed is not None, candidates=1)
    try:
        item = parse_line(json.dumps({"task_id": task_id, "code": code, "sample_id": 0}).encode(), "api:1")
        return evaluate_candidate(item, run)
    finally:
        run.close()


