"""The pipeline: submission in, one result record per candidate out, appended as each finishes.

Candidates run in parallel worker threads, each driving its own fresh candidate process; expected outputs
come from a small pool of trusted reference processes; on GPUs, timing is serialized per GPU through a lane
that owns a trusted baseline process, and a timing holds its GPU alone (gpu_guard): no other candidate's
checks or reference work run on that GPU meanwhile.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import Any, Callable, ContextManager

import torch

from kernelbenchx.dataset.registry import get_task
from kernelbenchx.evaluator import correctness, environment, gpu_guard, roofline, timing
from kernelbenchx.evaluator.parent import static
from kernelbenchx.evaluator.sandbox import Child, ChildFailed, Limits
from kernelbenchx.evaluator.submission import Candidate, InputProblem, read_submission
from kernelbenchx.evaluator.verdict import Outcome, Rejected, StageLog, Verdict

RESULT_FORMAT = 1


@dataclass
class RunConfig:
    out_dir: Path | None = None
    device: str | None = None  # "cpu", "cuda", or None for cuda when available
    seed: int | None = None  # None: a fresh secret seed (kept on resume)
    resume: bool = False
    workers: int = max(1, min(8, (os.cpu_count() or 2)))
    timeout_s: float = 300.0  # a candidate's import and correctness stages
    perf_timeout_s: float = 90.0  # a candidate's perf stage, counted from when it gets its GPU's timing lane
    baselines: tuple[str, ...] = ("eager",)
    perf: bool = True
    task_set: str = "paper"  # paper | all | submitted
    static_checks: bool = True  # off only in tests that prove the runtime layer contains faults by itself
    progress: Callable[[int, int, dict], None] | None = None
    protocol: timing.Protocol = field(default_factory=timing.Protocol)

    def resolved_device(self) -> str:
        if self.device:
            return self.device
        return "cuda" if torch.cuda.is_available() else "cpu"


def derive_seed(*parts: Any) -> int:
    digest = hashlib.sha256("/".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:7], "little")


class TrustedServer:
    """A long-lived trusted reference process (kbx code only), restarted if it dies."""

    def __init__(self, device: str, gpu: int | None = None) -> None:
        self.device, self.gpu = device, gpu
        self.child: Child | None = None
        self.lock = threading.Lock()

    def call(self, message: dict, timeout: float) -> dict:
        with self.lock:
            for attempt in range(2):
                if self.child is None:
                    self.child = Child("kernelbenchx.evaluator.reference", Limits(wall_s=24 * 3600, cpu_s=10 ** 6,
                                       file_bytes=1 << 30, open_files=4096), env=child_env(self.device, self.gpu))
                    self.child.start()
                try:
                    return self.child.call({**message, "device": self.device}, timeout=timeout)
                except ChildFailed:
                    self.child.close()
                    self.child = None
                    if attempt:
                        raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        with self.lock:
            if self.child is not None:
                self.child.close()
                self.child = None


def child_env(device: str, gpu: int | None) -> dict[str, str]:
    if device.startswith("cuda"):
        return {"CUDA_VISIBLE_DEVICES": str(gpu if gpu is not None else 0)}
    return {"TRITON_INTERPRET": "1", "CUDA_VISIBLE_DEVICES": ""}


class RunContext:
    """State shared by the candidates of one run: the seed, trusted servers, caches, timing lanes."""

    def __init__(self, config: RunConfig, seed: int) -> None:
        self.config, self.seed = config, seed
        self.device = config.resolved_device()
        gpus = torch.cuda.device_count() if self.device.startswith("cuda") else 0
        # Expected outputs come from a few trusted processes (tasks are spread over them by id), so one slow
        # reference does not hold up every other task.
        pool = max(1, min(4 if gpus else 2, config.workers))
        self.references = [TrustedServer("cuda" if gpus else "cpu", (k % gpus) if gpus else None)
                           for k in range(pool)]
        self.lanes = [TrustedServer("cuda", g) for g in range(gpus)]
        self.gpu_guards = [gpu_guard.GpuGuard() for _ in range(gpus)]  # timing holds its GPU alone
        # KBX_TARGET (set by the container image) names the golden data; the GPU itself names the peaks.
        detected = roofline.target_for(torch.cuda.get_device_name(0) if gpus else None)
        self.target = os.environ.get("KBX_TARGET") or detected
        self.peaks = roofline.PEAKS.get(detected or "")
        self.protocol = asdict(config.protocol)
        self.expected_cache: dict[str, dict | Exception] = {}
        self.cache_lock = threading.Lock()
        self.task_locks: dict[str, threading.Lock] = {}
        self.run_id = f"{datetime.now(timezone.utc):%Y%m%dT%H%M%S}-{secrets.token_hex(3)}"

    def expected(self, task_id: str) -> dict:
        with self.cache_lock:
            lock = self.task_locks.setdefault(task_id, threading.Lock())
        with lock:
            if task_id not in self.expected_cache:
                try:
                    server = self.references[derive_seed(task_id) % len(self.references)]
                    with gpu_guard.shared(self.gpu_guards, server.gpu):
                        reply = server.call({"op": "cases", "task_id": task_id,
                                             "seed": derive_seed(self.seed, task_id, "stage2")}, timeout=900)
                    self.expected_cache[task_id] = reply if reply.get("ok") else RuntimeError(
                        f"reference failed: {reply.get('error')}")
                except ChildFailed as exc:
                    self.expected_cache[task_id] = RuntimeError(f"reference process failed: {exc}")
            value = self.expected_cache[task_id]
        if isinstance(value, Exception):
            raise value
        return value

    def gpu_for(self, candidate: Candidate) -> int:
        """Candidates are spread over GPUs by key; the candidate process and its timing lane share the GPU."""
        return derive_seed(candidate.key) % len(self.lanes) if self.lanes else 0

    def close(self) -> None:
        for server in self.references:
            server.close()
        for lane in self.lanes:
            lane.close()


# ---------------------------------------------------------------------------------------------------
# One candidate


def evaluate_candidate(candidate: Candidate | InputProblem, ctx: RunContext) -> dict:
    started = time.perf_counter()
    stages = StageLog()
    if isinstance(candidate, InputProblem):
        outcome = Outcome(Verdict.INPUT_ERROR, candidate.code, candidate.message)
        return make_record(candidate, outcome, stages, ctx, started)
    try:
        outcome = run_stages(candidate, ctx, stages)
    except Rejected as rejected:
        outcome = rejected.outcome
    except Exception as exc:  # a fault on the trusted side ends this candidate, never the run
        outcome = Outcome(Verdict.CRASH, "harness_error", f"{type(exc).__name__}: {exc}"[:2000])
    return make_record(candidate, outcome, stages, ctx, started)


def run_stages(candidate: Candidate, ctx: RunContext, stages: StageLog) -> Outcome:
    task = get_task(candidate.task_id)
    clock = time.perf_counter()
    limits: list[str] = []
    if ctx.config.static_checks:
        report = static.check_source(candidate.code, task.entry)
        limits = report.interpreter_limits
        stages.compile = {"static": {"kernels": report.kernels, "reachable": report.reachable,
                                     "launch_sites": report.launches, "interpreter_limits": limits}}
    on_cpu = not ctx.device.startswith("cuda")
    stages.compile["static_s"] = round(time.perf_counter() - clock, 4)
    clock = time.perf_counter()
    expected = ctx.expected(task.id)["stages"]
    stages.correct["reference_wait_s"] = round(time.perf_counter() - clock, 3)
    if on_cpu and any(correctness.has_dtype(row["call"], "bfloat16") or correctness.has_dtype(
            row["expected"], "bfloat16") for rows in expected.values() for row in rows):
        raise Rejected(Verdict.UNSUPPORTED_ON_CPU, "bfloat16",
                       "the Triton interpreter computes bfloat16 wrongly; this task needs a GPU")
    limits = Limits(wall_s=ctx.config.timeout_s, cpu_s=int(ctx.config.timeout_s * 2),
                    address_space=(16 << 30) if on_cpu else None)
    gpu = ctx.gpu_for(candidate) if not on_cpu else None
    with Child("kernelbenchx.evaluator.worker", limits, env=child_env(ctx.device, gpu)) as child:
        try:
            load = child.call({"op": "load", "code": candidate.code, "entry": task.entry, "task_id": task.id,
                               "device": ctx.device})
            stages.compile["import"] = judge_load(load)
            stages.compile["process_start_s"] = round(time.perf_counter() - clock, 3)
            verify_symbols(child, "at import")
            clock = time.perf_counter()
            with_gpu = partial(gpu_guard.shared, ctx.gpu_guards, gpu)
            for stage in ("stage1", "stage2"):
                stages.correct[stage] = run_correct_stage(child, task, stage, expected[stage],
                                                          limits if on_cpu else [], with_gpu)
                verify_symbols(child, f"during {stage}")
            stages.correct["seconds"] = round(time.perf_counter() - clock, 3)
            clock = time.perf_counter()
            stages.perf = run_perf(child, task, candidate, ctx) if ctx.config.perf else {
                "status": "skipped", "reason": "perf disabled (--no-perf)"}
            stages.perf["seconds"] = round(time.perf_counter() - clock - stages.perf.get("lane_wait_s", 0), 3)
        except ChildFailed as failed:
            raise child_failure(failed) from None
    if stages.perf.get("status") == "implausible":
        return Outcome(Verdict.IMPLAUSIBLE, "faster_than_roofline", stages.perf["reason"])
    return Outcome(Verdict.CORRECT, "passed", "passed stage 1 and stage 2" + (
        "" if stages.perf.get("status") == "measured" else f"; perf {stages.perf.get('status')}"))


def verify_symbols(child: Child, when: str) -> None:
    changed = child.call({"op": "verify"}).get("changed")
    if changed:
        raise Rejected(Verdict.FORBIDDEN, "monkeypatch", f"trusted functions were replaced {when}: "
                       f"{', '.join(changed)}")


def judge_load(reply: dict) -> dict:
    if reply.get("ok"):
        return {"ok": True, "import_s": round(reply["import_s"], 3)}
    if reply.get("stage") == "entry":
        raise Rejected(Verdict.MISSING_ENTRY, "missing_entry", reply["message"])
    error = reply.get("error", {})
    if "kbx sandbox:" in error.get("message", ""):
        raise Rejected(Verdict.FORBIDDEN, "sandbox_violation", f"at import: {error.get('message')}")
    raise Rejected(Verdict.COMPILE_ERROR, "import_failed", f"{error.get('type')}: {error.get('message')}",
                   traceback=error.get("traceback", ""))


def run_correct_stage(child: Child, task, stage: str, rows: list[dict], interpreter_limits: list[str],
                      with_gpu: Callable[[], ContextManager]) -> dict:
    cases = [{"name": row["name"], "call": row["call"], "repeat": i == 0} for i, row in enumerate(rows)]
    sensitive = [c for c, row in zip(cases, rows) if row.get("reseed_sensitive")]
    if sensitive:  # one call with another seed must change the output: a kernel ignoring its seed fails
        sensitive[0]["reseed"] = task.contract.seed_kwarg
    replies = []
    for case in cases:  # one case per request: a timing waiting for the GPU waits for one case at most
        with with_gpu():
            reply = child.call({"op": "run", "case": case, "mutates": list(task.contract.mutates),
                                "allowed_ops": []})
        replies.append(reply["case"])
        if not replies[-1].get("ok"):
            break
    return correctness.judge_stage(task, stage, rows, replies, interpreter_limits)


def child_failure(failed: ChildFailed) -> Rejected:
    verdict = {"timeout": Verdict.TIMEOUT, "crash": Verdict.CRASH}.get(failed.kind, Verdict.CRASH)
    code = {"timeout": "wall_clock", "crash": "process_died", "protocol": "protocol"}.get(failed.kind, failed.kind)
    return Rejected(verdict, code, str(failed), stderr_tail=failed.stderr[-2000:])


def run_perf(child: Child, task, candidate: Candidate, ctx: RunContext) -> dict:
    if not ctx.device.startswith("cuda"):
        return {"status": "skipped", "reason": "no CUDA device: kernels ran under TRITON_INTERPRET=1, "
                                               "which says nothing about speed"}
    from kernelbenchx.evaluator import measure

    return measure.perf_stage(child, task, candidate, ctx)


def make_record(candidate: Candidate | InputProblem, outcome: Outcome, stages: StageLog, ctx: RunContext,
                started: float) -> dict:
    if isinstance(candidate, Candidate):
        cand = candidate.to_json()
    else:
        cand = {"task_id": candidate.task_id, "sample_id": None, "model": None, "method": None, "round": None,
                "source": candidate.source, "code_sha256": None}
    return {
        "kbx_result": RESULT_FORMAT,
        "run_id": ctx.run_id,
        "key": candidate.key,
        "candidate": cand,
        **outcome.to_json(),
        "stages": stages.to_json(),
        "elapsed_s": round(time.perf_counter() - started, 3),
        "finished_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "environment": {**environment.fingerprint(ctx.device), "seed": ctx.seed},
    }


# ---------------------------------------------------------------------------------------------------
# A whole submission


def evaluate_submission(submission: str | Path, config: RunConfig) -> dict:
    """Evaluate every candidate of `submission`; returns the summary (also written to out_dir)."""
    from kernelbenchx.evaluator import report

    out_dir = Path(config.out_dir or "results")
    out_dir.mkdir(parents=True, exist_ok=True)
    results_path = out_dir / "results.jsonl"
    items = list(read_submission(submission))  # raises SubmissionError before anything is written
    seed, done = prepare_run(out_dir, config)
    todo = [item for item in items if item.key not in done]
    ctx = RunContext(config, seed)
    try:
        run_all(todo, ctx, results_path, config)
    finally:
        ctx.close()
    summary = report.summarize(report.read_results(results_path), config.task_set,
                               submitted=[i.task_id for i in items if i.task_id])
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def prepare_run(out_dir: Path, config: RunConfig) -> tuple[int, set[str]]:
    """The run's seed and the keys already evaluated. The seed is kept in run.json for --resume."""
    run_file, results = out_dir / "run.json", out_dir / "results.jsonl"
    done: set[str] = set()
    if config.resume and run_file.exists():
        seed = json.loads(run_file.read_text())["seed"]
        if results.exists():
            from kernelbenchx.evaluator.report import read_results

            records = read_results(results)  # drops a record torn by the interruption
            results.write_text("".join(json.dumps(r) + "\n" for r in records))
            done = {r["key"] for r in records}
        return seed, done
    if results.exists() and not config.resume:
        results.unlink()
    seed = config.seed if config.seed is not None else secrets.randbits(62)
    run_file.write_text(json.dumps({"seed": seed, "device": config.resolved_device()}) + "\n")
    os.chmod(run_file, 0o600)
    return seed, done


def run_all(items: list, ctx: RunContext, results_path: Path, config: RunConfig) -> None:
    write_lock = threading.Lock()
    with open(results_path, "a", encoding="utf-8") as sink, ThreadPoolExecutor(config.workers) as pool:
        futures = [pool.submit(evaluate_candidate, item, ctx) for item in items]
        for n, future in enumerate(as_completed(futures), start=1):
            record = future.result()
            with write_lock:
                sink.write(json.dumps(record) + "\n")
                sink.flush()
            if config.progress:
                config.progress(n, len(futures), record)


def evaluate(task_id: str, code: str, *, device: str | None = None, seed: int | None = None,
             timeout_s: float = 300.0, perf: bool = True) -> dict:
    """Evaluate one candidate in memory; returns its result record (nothing is written to disk)."""
    config = RunConfig(device=device, seed=seed, timeout_s=timeout_s, perf=perf, workers=1)
    ctx = RunContext(config, seed if seed is not None else secrets.randbits(62))
    try:
        from kernelbenchx.evaluator.submission import parse_line

        item = parse_line(json.dumps({"task_id": task_id, "code": code, "sample_id": 0}).encode(), "api:1")
        return evaluate_candidate(item, ctx)
    finally:
        ctx.close()

