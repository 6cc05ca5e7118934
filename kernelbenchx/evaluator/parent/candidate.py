"""One candidate, from its source to its Result: static checks, the sandboxed correctness stages, the perf stage.

Every way a candidate can end is a Rejected with a Reason raised somewhere below; a fault on the trusted side
ends the candidate with crash/harness_error, never the run.
"""

from __future__ import annotations

import errno
import math
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import partial
from typing import Any, Callable, ContextManager

from kernelbenchx.dataset.registry import get_task
from kernelbenchx.dataset.task import Task
from kernelbenchx.dataset.views import MALLOC_POISON  # CPU children: fresh allocations hold poison
from kernelbenchx.evaluator import bulk
from kernelbenchx.evaluator import messages as m
from kernelbenchx.evaluator.measure import perf_stage
from kernelbenchx.evaluator.isolation import LAYERS
from kernelbenchx.evaluator.parent import judge, reported, static, warm_up, watch
from kernelbenchx.evaluator.parent.gpu_guard import Lease, TimingLease
from kernelbenchx.evaluator.parent.submission import Candidate, InputProblem
from kernelbenchx.evaluator.forkserver import ForkServer
from kernelbenchx.evaluator.process import Child, ChildFailed, Limits
from kernelbenchx.evaluator.reasons import Reason, Rejected
from kernelbenchx.evaluator.result import Result

HARNESS = "kernelbenchx.evaluator.child"


@dataclass
class StageLog:
    """What each stage saw, kept in the result record whatever the verdict."""

    compile: dict[str, Any] = field(default_factory=dict)
    correct: dict[str, Any] = field(default_factory=dict)
    perf: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, dict]:
        return {"compile": self.compile, "correct": self.correct, "perf": self.perf}


def evaluate_candidate(item: Candidate | InputProblem, run: Any) -> Result:
    """The Result of one submission item (`run` is the parent's run.Run)."""
    started = time.perf_counter()
    log = StageLog()
    if isinstance(item, InputProblem):
        return make_result(item, item.reason, item.message, {}, log, run, started)
    watch.begin(item.key)
    try:
        reason, message = run_stages(item, run, log)
        details: dict = {}
    except Rejected as rejected:
        reason, message, details = rejected.reason, rejected.message, rejected.details
    except Exception as exc:  # a fault on the trusted side ends this candidate, never the run
        reason, message, details = Reason.HARNESS_ERROR, f"{type(exc).__name__}: {exc}"[:2000], {}
    finally:
        watch.end()
    return make_result(item, reason, message, details, log, run, started)


def make_result(item: Candidate | InputProblem, reason: Reason, message: str, details: dict, log: StageLog,
                run: Any, started: float) -> Result:
    return Result(run_id=run.run_id, key=item.key, candidate=item.info(), reason=reason, message=message,
                  stages=log.to_json(), elapsed_s=round(time.perf_counter() - started, 3),
                  finished_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                  environment=run.environment(log.compile.get("isolation")), details=details)


def run_stages(candidate: Candidate, run: Any, log: StageLog) -> tuple[Reason, str]:
    task = get_task(candidate.task_id)
    clock = time.perf_counter()
    limits: list[str] = []
    if run.config.static_checks:
        report = static.check_source(candidate.code, task.entry)
        limits = report.interpreter_limits
        log.compile["static"] = {"kernels": report.kernels, "reachable": report.reachable,
                                 "launch_sites": report.launches, "interpreter_limits": limits}
    log.compile["static_s"] = round(time.perf_counter() - clock, 4)
    threads = run.config.compile_threads if run.device.startswith("cuda") and run.config.warm_up else 0
    with run.place(candidate) as gpu:
        try:
            return in_process(candidate, task, run, log, gpu, limits, threads)
        except warm_up.PoolLeftThreads as left:
            # one of the harness's own compile threads outlived its join (runs 28, 43, 65, 66: why is not known):
            # a fresh process without the pool decides, under the thread rule every other call has
            log.correct["pool_retry"] = left.message
            return in_process(candidate, task, run, log, gpu, limits, 0)


def in_process(candidate: Candidate, task: Task, run: Any, log: StageLog, gpu: int | None, limits: list[str],
               threads: int) -> tuple[Reason, str]:
    """The stages that run in the candidate's process: with `threads` compile threads for its correctness
    warm-up."""
    watch.at("process")
    with run.candidate_process(gpu) as child:
        try:
            # the load and the correctness warm-up need no expected outputs: they go on while those are computed
            watch.at("load")
            load(child, candidate, task, run, log, run.shared(gpu), threads)
            warmed = warm_correctness(child, task, run, log, pooled=threads > 0)
            expected = reference(child, task, run, log)
            if not warmed:
                warm_correctness(child, task, run, log, expected, pooled=threads > 0)
            clock = time.perf_counter()
            for stage in ("stage1", "stage2"):
                watch.at(stage)
                log.correct[stage] = correct_stage(child, task, stage, expected[stage],
                                                   limits if run.on_cpu else [], run.shared(gpu),
                                                   lease=not run.on_cpu, contended=run.contended(gpu),
                                                   contract=run.contract_judge())
                verify_symbols(child, f"during {stage}")
            log.correct["seconds"] = round(time.perf_counter() - clock, 3)
            log.perf = perf(child, task, run, gpu)
        except ChildFailed as failed:
            raise child_failure(failed) from None
    if log.perf.get("status") == "implausible":
        return Reason.FASTER_THAN_ROOFLINE, log.perf["reason"]
    status = log.perf.get("status")
    return Reason.PASSED, "passed stage 1 and stage 2" + ("" if status == "measured" else f"; perf {status}")


def needs_bf16(expected: dict) -> bool:
    return any(judge.has_dtype(row.call, "bfloat16") or judge.has_dtype(row.expected, "bfloat16")
               for rows in expected.values() for row in rows)


def new_process(run: Any, gpu: int | None) -> Child:
    """A candidate process for `gpu` (not started): its limits, isolation plan and environment."""
    from kernelbenchx.evaluator.parent.references import device_env

    timeout = run.config.timeout_s
    limits = Limits(wall_s=timeout, cpu_s=int(timeout * 2) + 60, address_space=(16 << 30) if run.on_cpu else None)
    env = device_env(run.device, gpu)
    if run.on_cpu:
        env["GLIBC_TUNABLES"] = MALLOC_POISON
    if run.cpus.work:
        env["KBX_CPUS"] = ",".join(map(str, run.cpus.work))
    if run.triton_modules is not None:
        env.update(run.triton_modules.env())
    # held perf outputs (gigabytes) come back through shared memory; a CPU process's region counts against its
    # address-space limit, and its outputs are small
    region = (bulk.REPLIES, (1 << 30) if run.on_cpu else bulk.REGION_BYTES)
    return Child(HARNESS, limits, run.plan, env=env, candidate=True, bulk_region=region,
                 forks=getattr(run, "forks", {}).get(gpu))


def start_fork_servers(run: Any, keys: list[int | None]) -> dict[int | None, ForkServer]:
    """A zygote per GPU (or the CPU), each started for the environment its candidate processes get; they import
    while the run starts its servers, and the pool's first forks wait for them."""
    servers = {}
    for key in keys:
        template = new_process(run, key)
        servers[key] = ForkServer(template.environment(), run.plan)
        template.close()  # never started: only its directory to remove
        servers[key].start()
    return servers


def open_device(child: Child, run: Any, log: StageLog) -> m.DeviceOpened:
    """The process's CUDA context and Triton driver, in its turn among the run's opens (RunConfig.device_opens;
    its wait is not the candidate's time)."""
    opens = getattr(run, "device_opens", None)
    with opens.slot() if opens is not None else nullcontext(0.0) as waited:
        child.extend_clock(waited)
        clock = time.perf_counter()
        opened = child.call(m.OpenDevice(run.device))
    if not isinstance(opened, m.DeviceOpened):
        raise Rejected(Reason.PROTOCOL, f"unexpected reply to open_device: {type(opened).__name__}")
    log.compile["device_open_s"] = round(time.perf_counter() - clock, 3)
    if opens is not None:
        log.compile["device_open_wait_s"] = waited
    return opened


def load(child: Child, candidate: Candidate, task: Task, run: Any, log: StageLog,
         shared: Callable[[], ContextManager], threads: int = 0) -> None:
    """Open the device (CUDA context, Triton's driver: no kernel, no candidate code, so beside timings), then
    import the candidate under the GPU's shared guard: import-time code must not run on a GPU while another
    candidate is timed there. The process starts `threads` compile threads before it confines itself."""
    opened = open_device(child, run, log)
    log.compile["boot"] = boot_phases(opened, child.spawned_at)
    log.compile["process"] = "forked" if child.forked else "exec"
    with Lease(shared) as gpu:
        child.extend_clock(gpu.waited)
        clock = time.perf_counter()
        reply = child.call(m.Load(candidate.code, task.entry, task.id, run.device, threads))
        log.compile["process_start_s"] = round(time.perf_counter() - clock, 3)
    log.compile["guard_wait_s"] = round(gpu.waited, 3)
    if isinstance(reply, m.LoadFailed):
        if reply.stage == "entry":
            raise Rejected(Reason.MISSING_ENTRY, reply.message)
        error = reply.error or m.ErrorInfo("Error", reply.message)
        if reply.refused or error.errno in (errno.EPERM, errno.EACCES) or error.type == "PermissionError":
            raise Rejected(Reason.SANDBOX_VIOLATION, f"at import: {error.type}: {error.message}"
                           + (f" (refused: {', '.join(reply.refused)})" if reply.refused else ""))
        raise Rejected(Reason.IMPORT_FAILED, f"{error.type}: {error.message}", traceback=error.traceback)
    if not isinstance(reply, m.Loaded):
        raise Rejected(Reason.PROTOCOL, f"unexpected reply to load: {type(reply).__name__}")
    malformed = (reported.seconds_problem("import_s", reply.import_s)
                 or reported.strings_problem("isolation", reply.isolation, LAYERS))
    if malformed:
        raise Rejected(Reason.PROTOCOL, f"the reply to load is malformed ({malformed})")
    log.compile["import"] = {"ok": True, "import_s": round(reply.import_s, 3), **load_phases(opened),
                             **load_phases(reply)}
    log.compile["isolation"] = list(reply.isolation)
    verify_symbols(child, "at import")


def boot_phases(opened: m.DeviceOpened, spawned_at: float) -> dict[str, float]:
    """The candidate process's start before its device was opened (child/harness.py boot_phases): exec (the
    launcher and the interpreter's own start, up to the process's first line), imports, the warm-up's preparation,
    and the time it then waited for a candidate. A pooled process's wait is the head start the pool gave; in a
    run's first wave the device open waits for the rest of the boot instead."""
    phases = opened.phases if isinstance(opened.phases, dict) else {}
    numbers = {k: float(v) for k, v in phases.items() if k in ("started_at", "imports_s", "prepare_s", "waited_s")
               and isinstance(v, (int, float)) and math.isfinite(v)}
    boot = {k: round(max(0.0, v), 3) for k, v in numbers.items() if k != "started_at"}
    if "started_at" in numbers and spawned_at:
        boot["exec_s"] = round(max(0.0, numbers["started_at"] - spawned_at), 3)
    return boot


def load_phases(reply: m.Loaded | m.DeviceOpened) -> dict[str, float]:
    """The known phases of a load, as numbers (Loaded is sent after candidate code ran in the process)."""
    phases = reply.phases if isinstance(reply.phases, dict) else {}
    return {k: round(float(v), 4) for k, v in phases.items()
            if k in ("cuda_s", "triton_driver_s", "confine_s") and isinstance(v, (int, float)) and math.isfinite(v)}


def verify_symbols(child: Child, when: str) -> None:
    reply = child.call(m.Verify())
    if not isinstance(reply, m.Symbols):
        raise Rejected(Reason.PROTOCOL, f"unexpected reply to verify: {type(reply).__name__}")
    if reply.changed:
        raise Rejected(Reason.MONKEYPATCH, f"trusted functions were replaced {when}: {', '.join(reply.changed)}")


# A stage keeps the GPU's shared guard from case to case, and gives it back (queueing again behind the timing)
# once a timing waits and it has held the guard STAGE_YIELD_S, or after STAGE_HOLD_S in any case. Queueing per
# case made each case wait out a whole timing whenever one was waiting (on one GPU, 33 s per candidate of its
# 80); a fixed 2 s hold made every timing wait out up to 2 s of each stage in flight (run 19: the lane was
# held 29% of a one-GPU run). A timing now waits for at most STAGE_YIELD_S of a stage (plus one case), and a
# stage still advances at least that long per turn. At 0.25 s (run 78, the whole set on two GPUs) timings waited
# 93 times for a stage, a median 0.16 s (17 s in all), with the lane the run's bottleneck: now 0.1 s.
STAGE_YIELD_S = 0.1
STAGE_HOLD_S = 2.0


def correct_stage(child: Child, task: Task, stage: str, rows: tuple, interpreter_limits: list[str],
                  shared: Callable[[], ContextManager], lease: bool = False,
                  contended: Callable[[], bool] = lambda: False,
                  contract: judge.ContractJudge = judge.in_parent) -> dict:
    """Run a stage's cases one request at a time under the GPU's shared guard, given back while the candidate
    compiles (`lease`), and between cases once a timing waits (`contended`) or the hold is long, so a timing
    waiting for the GPU waits a bounded time."""
    sensitive = next((row.name for row in rows if row.reseed_sensitive), None)
    launches, case_s = [], []
    gpu = Lease(shared)
    held_since = 0.0
    try:
        for i, row in enumerate(rows):
            request = m.RunCase(row.name, row.call, repeat=i == 0, mutates=tuple(task.contract.mutates),
                                reseed=task.contract.seed_kwarg if row.name == sensitive else None, lease=lease)
            watch.at(f"{stage} {row.name} (queued)")
            if gpu.held is None:
                waited = gpu.waited
                gpu.take()
                child.extend_clock(gpu.waited - waited)  # queueing behind other candidates' timings is not its time
                held_since = time.perf_counter()
            watch.at(f"{stage} {row.name}")
            started = time.perf_counter()
            report = child.call(request, interim=gpu.answer)
            case_s.append(round(time.perf_counter() - started, 3))
            held = time.perf_counter() - held_since
            if held > STAGE_HOLD_S or (held > STAGE_YIELD_S and contended()):
                gpu.give_back()
            if not isinstance(report, m.CaseReport) or report.name != row.name:
                raise Rejected(Reason.PROTOCOL, f"{stage}: unexpected reply to case {row.name}")
            judge.judge_case(task, stage, row, report, interpreter_limits, contract)
            launches.append(report.observation.launches if report.observation else 0)
    finally:
        gpu.give_back()
    return {"cases": len(rows), "passed": len(rows), "launches": launches, "case_s": case_s,
            "guard_wait_s": round(gpu.waited, 3), "compiles_off_guard": gpu.released}


def reference(child: Child, task: Task, run: Any, log: StageLog) -> dict:
    """The expected rows per stage, waited for (the wait is given back to the candidate's clock)."""
    clock = time.perf_counter()
    watch.at("reference")
    expected = run.expected(task.id).stages
    waited = time.perf_counter() - clock
    child.extend_clock(waited)
    log.correct["reference_wait_s"] = round(waited, 3)
    if run.on_cpu and needs_bf16(expected):
        raise Rejected(Reason.BFLOAT16, "the Triton interpreter computes bfloat16 wrongly; this task needs a GPU")
    return expected


def warm_correctness(child: Child, task: Task, run: Any, log: StageLog, expected: dict | None = None,
                     pooled: bool = False) -> bool:
    """The correctness warm-up (GPU runs only), in a compile slot, on the layouts the parent builds from the
    task's case builders, or on the expected rows' when given (`pooled`: on the process's compile threads).
    False when the layouts could not be built here."""
    if not run.config.warm_up or run.on_cpu:
        return True
    calls = warm_up.case_layouts(task.id, run.stage2_seed(task.id)) if expected is None \
        else warm_up.row_layouts(expected)
    if calls is None:
        return False
    watch.at("correctness warm-up (queued)")
    with run.compile_slots.slot() as waited:
        child.extend_clock(waited)  # queueing behind other candidates' compiles is not its time
        watch.at("correctness warm-up")
        log.correct["warm"] = {**warm_up.warm_calls(child, calls, run.triton_modules, pooled),
                              "slot_wait_s": waited}
    return True


def lane_priority(held: tuple) -> float:
    """Millions of output elements the lane holds back to judge after the timing (`held`: per perf case, the
    (shape, dtype) of each output). Their judgement follows the lane: up to a minute for a dropout output of
    2^26 elements (run 44, where such candidates also waited up to 47 s for the lane and ended the run), so
    they are timed first."""
    return sum(math.prod(shape) for case in held for shape, _ in case) / 1e6


def child_failure(failed: ChildFailed) -> Rejected:
    reason = {"timeout": Reason.WALL_CLOCK, "crash": Reason.PROCESS_DIED, "protocol": Reason.PROTOCOL}[failed.kind]
    return Rejected(reason, str(failed), stderr_tail=failed.stderr[-2000:])


def perf(child: Child, task: Task, run: Any, gpu: int | None) -> dict:
    if not run.config.perf:
        return {"status": "skipped", "reason": "perf disabled (--no-perf)"}
    if run.on_cpu:
        return {"status": "skipped", "reason": "no CUDA device: kernels ran under TRITON_INTERPRET=1, which says "
                                               "nothing about speed"}
    lane = run.lane(gpu)
    warmed = None
    held = warm_up.held_layouts(task.id) if perf_stage.judged_by_lane(task) else ()
    if run.config.warm_up:
        watch.at("perf warm-up")
        warmed = warm_up.perf(child, lane.timeout_s, hold=held)
        watch.at("perf build")
        warmed["build_s"] = warm_up.build(child, task, run.shared(gpu), lane.timeout_s)
    perf_stage.case_plan(task, lane.protocol.input_sets)  # CPU work: before the lane, not inside it
    watch.at("perf guard")
    with TimingLease(run.guards[gpu], lane_priority(held)) as lane_lease, run.quiet.timing(child):
        watch.at("perf")
        wait = lane_lease.waited
        clock = time.perf_counter()
        result = perf_stage.perf_stage(child, task, lane, lane_lease)
        seconds = time.perf_counter() - clock
    pending = result.pop("pending")
    watch.at("perf judge")
    fetch = partial(perf_stage.fetch_output, child, timeout_s=lane.timeout_s)
    judge_s, notes, judge_phases = perf_stage.judge_pending(task, pending, lane, fetch) if pending else (0.0, [], {})
    return {**result, "lane_wait_s": round(wait, 3), "seconds": round(seconds, 3),
            "lane_rewait_s": round(lane_lease.waited - wait, 3), "compiles_off_lane": lane_lease.released,
            "judge_s": round(judge_s, 3), **({"judge_notes": notes} if notes else {}),
            **({"judge_phases": judge_phases} if judge_phases else {}), "gpu": run.gpu_identity(gpu),
            "stopped_s": round(child.stopped_for(), 3),  # kept stopped for other candidates' eager timings
            **({"warm": warmed} if warmed else {})}
