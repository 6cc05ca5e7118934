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
import os
import signal
import threading

from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ContextManager, Iterator

import torch

from kernelbenchx.errors import DeviceError, Interrupted, IsolationError, SubmissionError, UsageError
from kernelbenchx.evaluator import isolation, process
from kernelbenchx.evaluator.measure import environment, perf_stage, roofline
from kernelbenchx.evaluator.measure.protocol import Protocol
from kernelbenchx.evaluator.parent import gpu_guard
from kernelbenchx.evaluator.parent.candidate import evaluate_candidate, new_process
from kernelbenchx.evaluator.parent.pool import ProcessPool
from kernelbenchx.evaluator.parent.references import ExpectedOutputs, TrustedServer
from kernelbenchx.evaluator.parent.rundir import RunDir, sha256_file
from kernelbenchx.evaluator.parent.submission import Candidate, InputProblem, read_submission
from kernelbenchx.evaluator.parent.summary import TASK_SETS, summarize
from kernelbenchx.evaluator.reasons import Reason
from kernelbenchx.evaluator.result import Result

Progress = Callable[[int, int, "Result | None"], None]  # done, total, the result just written (None at start)


@dataclass
class RunConfig:
    """Everything a run can be told; the defaults are what `kbx eval` does."""

    out_dir: Path | None = None
    device: str | None = None  # "cpu", "cuda", "cuda:N", or None for cuda when available
    seed: int | None = None  # None: a fresh secret seed (kept on resume)
    resume: bool = False
    overwrite: bool = False
    workers: int = 0  # 0: automatic (one per core, at most 8)
    timeout_s: float = 300.0  # a candidate's import and correctness stages
    perf_timeout_s: float = 90.0  # a candidate's perf stage, counted from when it holds its GPU's lane
    baselines: tuple[str, ...] = ("eager",)
    perf: bool = True
    task_set: str = "paper"  # paper | all | faithful | submitted
    isolation: bool = True  # OS isolation layers (off only to show what the in-process layer does alone)
    require_isolation: bool = False  # refuse to run unless every isolation layer is available
    static_checks: bool = True  # off only in tests that prove the runtime layer contains faults by itself
    ray: str | None = None  # spread candidates over a Ray cluster: "auto", an address, or "local"
    progress: Progress | None = None
    protocol: Protocol = field(default_factory=Protocol)

    def resolved_device(self) -> str:
        device = self.device or ("cuda" if torch.cuda.is_available() else "cpu")
        if device != "cpu" and not (device == "cuda" or device.startswith("cuda:")):
            raise DeviceError(f"unknown device {device!r}", hint="use cpu or cuda (or cuda:N)")
        if device.startswith("cuda") and not torch.cuda.is_available():
            raise DeviceError(f"--device {device}, but no CUDA device is visible here",
                              hint="run with --device cpu (the Triton interpreter, no timing) or on a GPU machine")
        return device

    def resolved_workers(self) -> int:
        if self.workers < 0:
            raise UsageError(f"--workers must be 0 (automatic) or positive, got {self.workers}")
        return self.workers or max(1, min(8, os.cpu_count() or 2))

    def check(self) -> None:
        if self.task_set not in TASK_SETS:
            raise UsageError(f"unknown task set {self.task_set!r}", hint=f"use one of {', '.join(TASK_SETS)}")
        names = set(self.baselines)
        if not names <= {"eager", "compile", "solution"} or "eager" not in names:
            raise UsageError(f"baselines must include eager and may add compile and solution, got "
                             f"{','.join(self.baselines)}")
        if self.timeout_s <= 0 or self.perf_timeout_s <= 0:
            raise UsageError("timeouts must be positive")
        self.resolved_workers()


@dataclass(frozen=True)
class CpuPlan:
    """Cores the timing needs kept quiet: on hosts with enough cores, each GPU's lane and the candidate it
    times run on reserved cores, and every other candidate process on the rest (no process start or check
    competes with a timing loop for its core)."""

    work: tuple[int, ...] = ()
    timing: tuple[tuple[int, ...], ...] = ()  # per GPU

    @classmethod
    def for_host(cls, gpus: int) -> "CpuPlan":
        try:
            cores = sorted(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            return cls()
        if not gpus or len(cores) < 4 * gpus + 4:
            return cls()
        reserved = cores[-2 * gpus:]
        return cls(tuple(cores[:-2 * gpus]), tuple(tuple(reserved[2 * g:2 * g + 2]) for g in range(gpus)))


def derive_seed(*parts: Any) -> int:
    digest = hashlib.sha256("/".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:7], "little")


class Run:
    """The state candidates share: the seed, the isolation plan, trusted servers, GPU guards and lanes."""

    def __init__(self, config: RunConfig, seed: int, run_id: str, seed_fixed: bool) -> None:
        self.config, self.seed, self.run_id, self.seed_fixed = config, seed, run_id, seed_fixed
        self.device = config.resolved_device()
        self.on_cpu = not self.device.startswith("cuda")
        self.plan = isolation.probe(config.isolation)
        if config.require_isolation and self.plan.missing:
            raise IsolationError("--require-isolation: " + "; ".join(f"{k}: {v}" for k, v in self.plan.missing.items()))
        self.nondumpable = config.isolation and isolation.make_nondumpable()
        gpus = 0 if self.on_cpu else torch.cuda.device_count()
        pool = max(1, min(4 if gpus else 2, config.resolved_workers()))
        self.cpus = CpuPlan.for_host(gpus)
        references = [TrustedServer("cuda" if gpus else "cpu", (k % gpus) if gpus else None, self.cpus.work)
                      for k in range(pool)]
        self.outputs = ExpectedOutputs(references, self.device)
        self.lanes = [TrustedServer("cuda", g, self.cpus.timing[g] if self.cpus.timing else ()) for g in range(gpus)]
        self.guards = [gpu_guard.GpuGuard() for _ in range(gpus)]
        detected = roofline.target_for(torch.cuda.get_device_name(0) if gpus else None)
        self.target = os.environ.get("KBX_TARGET") or detected
        self.peaks = roofline.PEAKS.get(detected or "")
        keys: list[int | None] = list(range(gpus)) or [None]
        self.pool = ProcessPool(lambda gpu: new_process(self, gpu), depth=-(-config.resolved_workers() // len(keys)))
        self.pool.warm(keys)

    # -- what candidates use ------------------------------------------------------------------------------
    def expected(self, task_id: str) -> Any:
        slot = derive_seed(task_id) % len(self.outputs.servers)
        return self.outputs.get(task_id, derive_seed(self.seed, task_id, "stage2"), slot,
                                lambda gpu: gpu_guard.shared(self.guards, gpu))

    def candidate_process(self, gpu: int | None) -> ContextManager[process.Child]:
        """A started candidate process for `gpu` (from the pool), closed after its one candidate."""
        return self.pool.take(gpu, self.config.timeout_s)

    def gpu_for(self, candidate: Candidate) -> int | None:
        """Candidates are spread over GPUs by key; the candidate process and its timing lane share the GPU."""
        return derive_seed(candidate.key) % len(self.lanes) if self.lanes else None

    def shared(self, gpu: int | None) -> Callable[[], ContextManager]:
        return lambda: gpu_guard.shared(self.guards, gpu)

    def exclusive(self, gpu: int | None) -> ContextManager:
        return self.guards[gpu].exclusive()

    def lane(self, gpu: int) -> perf_stage.Lane:
        server = self.lanes[gpu]
        return perf_stage.Lane(lambda req, timeout: server.call(req, timeout=timeout),
                               lambda *parts: derive_seed(self.seed, *parts), self.config.protocol, self.peaks,
                               self.target, self.config.baselines, self.config.perf_timeout_s,
                               self.cpus.timing[gpu] if self.cpus.timing else ())

    def gpu_identity(self, gpu: int | None) -> dict | None:
        return None if gpu is None else environment.gpu_identity(gpu)

    def environment(self, applied: list[str] | None) -> dict:
        """The fingerprint of a record; `applied` are the layers the candidate process applied to itself."""
        outside = [layer for layer in self.plan.layers() if layer in ("namespaces", "uid")]
        outside += ["nondumpable"] if self.nondumpable else []
        isolation_ = {**self.plan.describe(), "applied": outside + list(applied or [])}
        return {**environment.fingerprint(self.device), "seed": self.seed, "seed_fixed": self.seed_fixed,
                "run_id": self.run_id, "isolation": isolation_}

    def close(self) -> None:
        self.pool.close()
        for server in self.outputs.servers + self.lanes:
            server.close()


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
    with rundir.writer() as writer, stop_on_signals() as stop:
        finished = run_items(todo, config, rundir, writer, stop, already=len(items) - len(todo))
    if stop.is_set():
        raise Interrupted(f"interrupted: {len(items) - len(todo) + finished} of {len(items)} candidates done "
                          f"and saved in {out}/results.jsonl",
                          hint=f"continue with: kbx eval {submission} --out {out} --resume")
    from kernelbenchx.evaluator.parent.rundir import read_results

    summary = summarize(read_results(out), config.task_set, submitted=[i.task_id for i in items if i.task_id],
                        run=rundir.info)
    rundir.write_summary(summary)
    rundir.write_manifest(submission)
    return summary


def run_items(todo: list, config: RunConfig, rundir: RunDir, writer: Any, stop: threading.Event,
              already: int) -> int:
    """Evaluate the items not done yet: here, or on a Ray cluster."""
    if config.ray:
        from kernelbenchx.evaluator.parent.distributed import run_all_ray

        return run_all_ray(todo, config, rundir.info, writer, stop, config.progress, already)
    process.reset()
    run = Run(config, rundir.seed, rundir.run_id, bool(rundir.info.get("seed_fixed")))
    try:
        return run_all(todo, run, writer, config, stop, already)
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
def stop_on_signals() -> Iterator[threading.Event]:
    """SIGINT and SIGTERM set the returned event (the first one stops new work; running children are
    killed by the run loop); handlers are restored afterwards. Outside the main thread, no handlers."""
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def run_all(items: list, run: Run, writer: Any, config: RunConfig, stop: threading.Event, already: int) -> int:
    """Evaluate `items` in parallel; returns how many were written. After `stop`, nothing new starts,
    running candidates are killed and their (interrupted) results are not written."""
    total, written = already + len(items), 0
    if config.progress:
        config.progress(already, total, None)
    with ThreadPoolExecutor(config.resolved_workers()) as pool:
        pending: set[Future] = set()
        queue = list(reversed(items))
        while (queue or pending) and not stop.is_set():
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
    run = Run(config, seed if seed is not None else secrets.randbits(62), "api", seed is not None)
    try:
        item = parse_line(json.dumps({"task_id": task_id, "code": code, "sample_id": 0}).encode(), "api:1")
        return evaluate_candidate(item, run)
    finally:
        run.close()


