"""The perf stage, driven from the trusted parent: baseline and candidate timed in turn on one GPU's lane.

For each perf case: the lane (trusted) and the candidate process build the same input sets from the same
seeds; the baseline is timed, then the candidate, with the same protocol; the parent checks that both saw the
same inputs (fingerprints), judges the candidate's observations (launches, PyTorch operators, threads, the
observation layer itself) over every call the protocol made, re-checks its timed outputs and one fresh
post-timing call at secret positions (elementwise contracts) or has a trusted judge process judge the whole
perf-size output with the task's own check once the timing is over (decompositions, RNG, quantization: the
candidate process holds that output back and reports its digest, and sends it once the lane is given back),
cross-checks event time against host time, and rejects any case faster than the roofline. Speedup per case is
baseline median / candidate median; the task's speedup is the geometric mean over its cases.

Baselines run under the same precision admission as the candidate (TF32 on where the contract allows it);
for such tasks the strict-fp32 baseline is timed too and both speedups are kept, labelled.
"""

from __future__ import annotations

import math
import secrets
import time
from dataclasses import asdict, dataclass
from typing import Any, Callable, ContextManager

from kernelbenchx.dataset.contract import compare
from kernelbenchx.dataset.task import Task
from kernelbenchx.evaluator import messages as m
from kernelbenchx.evaluator.measure import roofline
from kernelbenchx.evaluator.measure.golden import golden_deviation
from kernelbenchx.evaluator.measure.perf_case import SLOW_FACTOR, SLOW_METHODS, input_sets, perf_case_count
from kernelbenchx.evaluator.measure.protocol import Protocol, output_digest
from kernelbenchx.evaluator.parent import observations, reported
from kernelbenchx.evaluator.parent.gpu_guard import Lease
from kernelbenchx.evaluator.process import Child, ChildFailed
from kernelbenchx.evaluator.reasons import Reason, Rejected

STRICT = "eager_fp32"  # name of the strict-fp32 baseline kept next to the same-contract one
# waits before a timing that ran out of memory is tried again, the GPU lent to checks meanwhile: a trusted
# judge between the turns of a perf-size judgement holds its tensors (45 GiB of an 80 GB H100 in run 27, where
# a correct candidate lost its baseline to it). With the lane's `drain`, each wait lasts until the GPU's judges
# are done (none started meanwhile), at most this long: two 5 + 20 s waits were too short in run 48.
MEMORY_RETRY_WAITS_S = (5.0, 300.0)
MEMORY_SETTLE_S = 1.0  # after the judges are done, for the memory they free to come back
JUDGE_MEMORY_WAITS_S = (5.0, 20.0)  # a judgement's, before it goes to the CPU (context.judge_gpu_first)


@dataclass(frozen=True)
class Lane:
    """What the perf stage needs from the run: the GPU's trusted lane, seeds, protocol, peaks and targets."""

    call: Callable[[Any, float], Any]  # the lane server's call
    judge: Callable[[Any, float], Any]  # a trusted judge's call: PerfCheck, after the timing
    seed_of: Callable[..., int]  # derive_seed bound to the run's secret seed
    protocol: Protocol
    peaks: dict | None
    target: str | None
    baselines: tuple[str, ...]
    timeout_s: float
    cpus: tuple[int, ...] = ()  # cores reserved for this GPU's timings (the candidate moves there to be timed)
    quiet: Any = None  # the run's HostQuiet (parent/host_quiet.py): a candidate's eager sample loops ask for it
    drain: Callable[[float], ContextManager[bool]] | None = None  # the GPU's judges finished, none started


_PLANS: dict[tuple[str, int], tuple[int, ...]] = {}


def case_plan(task: Task, most: int) -> tuple[int, ...]:
    """How many input sets each perf case is timed over (its length: the task's perf case count), computed on
    fake tensors once per task and run. The parent computes it before the candidate takes the lane: inside the
    lease, on a host whose parent is busy with twenty candidates, it held the lane 0.3-3 s per candidate and
    10 s for the run's first (run 29, the first use of FakeTensorMode)."""
    key = (task.id, most)
    if key not in _PLANS:
        _PLANS[key] = tuple(input_sets(task, index, most) for index in range(perf_case_count(task)))
    return _PLANS[key]


def perf_stage(child: Child, task: Task, lane: Lane, lease: Lease | None = None) -> dict:
    """Time every perf case (the caller holds the GPU exclusively, through `lease` if given: the candidate
    gives the GPU back while Triton compiles). Raises Rejected for the first failure."""
    cases: list[dict] = []
    warnings: list[str] = []
    pending: list[tuple[int, str]] = []  # (case, digest of the output held back) for judge_pending
    plan = case_plan(task, lane.protocol.input_sets)
    count = len(plan)
    child.restart_clock(lane.timeout_s)
    try:
        for index, sets in enumerate(plan):
            cases.append(time_case(child, task, index, sets, lane, warnings, pending, lease))
        symbols = child.call(m.Verify())
    except ChildFailed as failed:
        if failed.kind != "timeout":
            raise
        raise Rejected(Reason.PERF_TIMEOUT, f"passed stages 1 and 2, but its perf stage did not finish in "
                       f"{lane.timeout_s:.0f} s ({len(cases)} of {count} cases timed; the re-checks of the "
                       "other cases' timed outputs never ran)") from None
    if isinstance(symbols, m.Symbols) and symbols.changed:
        raise Rejected(Reason.MONKEYPATCH, f"trusted functions replaced during timing: {', '.join(symbols.changed)}")
    result = finish(cases, warnings, lane.baselines + ((STRICT,) if task.contract.tf32 else ()))
    result["pending"] = pending
    return result


def time_case(child: Child, task: Task, index: int, sets: int, lane: Lane, warnings: list[str],
              pending: list[tuple[int, str]], lease: Lease | None = None) -> dict:
    """One perf case, timed over `sets` input sets: the eager baseline, then the candidate, then any other
    baselines."""
    seeds = tuple(lane.seed_of(task.id, "perf", index, k) for k in range(sets))
    # a perf-size output judged whole needs no post-timing call: recheck() compares only sampled outputs
    request = m.TimeCase(task.id, index, seeds, secrets.randbits(40), secrets.randbits(40), asdict(lane.protocol),
                         tf32=task.contract.tf32, recheck=not judged_by_lane(task), quiet_host=lane.quiet is not None)
    clock = [time.perf_counter()]
    base = with_memory(lambda: lane.call(request, 600), lending(lease, lane.drain),
                       retried(warnings, index, "the baseline"))
    if not isinstance(base, m.PerfReport):
        raise Rejected(Reason.BASELINE_FAILED, f"perf case {index}: baseline failed: {describe(base)}")
    clock.append(time.perf_counter())
    # only the candidate sends its whole output (judged later on the judge's own reference)
    quiet = lane.quiet is not None and lease is not None  # the candidate's interim messages are answered
    timed = m.TimeCase(**{**asdict_shallow(request), "tf32": False, "cpus": lane.cpus,
                          "baseline_ms": base.timing["median_ms"], "lease": lease is not None,
                          "full_output": judged_by_lane(task), "quiet_host": quiet})
    answer = lane.quiet.interim(child, lease.answer) if quiet else (lease.answer if lease else None)
    mine = with_memory(lambda: child.call(timed, timeout=600, interim=answer),
                       lending(lease, lane.drain), retried(warnings, index, "the candidate"))
    clock.append(time.perf_counter())
    row = judge_case(task, index, base, mine, lane, pending)
    clock.append(time.perf_counter())
    # wall time per step, transfers included (phases_s counts only the work inside each process)
    row["wall_s"] = {name: round(b - a, 3) for name, a, b in zip(("baseline", "candidate", "judge"), clock, clock[1:])}
    for name in lane.baselines:
        if name != "eager":
            other = lane.call(m.TimeCase(**{**asdict_shallow(request), "baseline": name}), 900)
            row["baselines"][name] = other.timing if isinstance(other, m.PerfReport) else None
    if task.contract.tf32:
        strict = lane.call(m.TimeCase(**{**asdict_shallow(request), "tf32": False}), 600)
        row["baselines"][STRICT] = strict.timing if isinstance(strict, m.PerfReport) else None
    deviation = golden_deviation(lane.target, task.id, index, base.name, base.timing["median_ms"])
    if deviation is not None:
        row["golden_deviation"] = deviation
        if abs(deviation) > 0.25:
            warnings.append(f"case {index}: live eager baseline differs from the {lane.target} golden "
                            f"by {deviation:+.0%} (throttling, wrong GPU or a noisy neighbour?)")
    return row


def with_memory(send: Callable[[], Any], wait: Callable[[float], Any] = time.sleep,
                noted: Callable[[float], None] = lambda seconds: None, waits: tuple[float, ...] | None = None) -> Any:
    """`send()`'s reply; one that ran out of GPU memory beside the run's other processes (whose memory comes
    back within seconds) is sent again after each of `waits` (MEMORY_RETRY_WAITS_S), spent in `wait`."""
    reply = send()
    for seconds in MEMORY_RETRY_WAITS_S if waits is None else waits:
        if not out_of_memory(reply):
            break
        clock = time.perf_counter()
        wait(seconds)
        noted(time.perf_counter() - clock)
        reply = send()
    return reply


def lending(lease: Lease | None, drain: Callable[[float], ContextManager[bool]] | None = None
            ) -> Callable[[float], None]:
    """A timing's wait: the GPU lent to checks (they finish and give their memory back; no other timing starts),
    for `seconds`, or with `drain` until the GPU's judges are done (at most `seconds`)."""
    def wait(seconds: float) -> None:
        if lease is not None:
            lease.give_back()
        try:
            if drain is None:
                time.sleep(seconds)
            else:
                with drain(seconds):
                    time.sleep(min(seconds, MEMORY_SETTLE_S))
        finally:
            if lease is not None:
                lease.take()

    return wait


def retried(warnings: list[str], index: int, who: str) -> Callable[[float], None]:
    return lambda seconds: warnings.append(f"case {index}: {who} ran out of GPU memory beside other processes; "
                                           f"timed again after {seconds:.0f} s")


def out_of_memory(reply: Any) -> bool:
    """A reply that ran out of GPU memory: torch's OutOfMemoryError, or the same error wrapped by code between
    (a RuntimeError naming it: Optimizer/AdamW, run 48)."""
    if not isinstance(reply, m.Failed):
        return False
    error = reply.error
    return error.type == "OutOfMemoryError" or (error.type == "RuntimeError"
                                                and "CUDA out of memory" in error.message[:300])


def asdict_shallow(msg: Any) -> dict:
    return {f: getattr(msg, f) for f in msg.__dataclass_fields__}


def describe(reply: Any) -> str:
    if isinstance(reply, m.Failed):
        return f"{reply.error.type}: {reply.error.message}"
    return f"unexpected reply {type(reply).__name__}"


def judge_case(task: Task, index: int, base: m.PerfReport, mine: Any, lane: Lane,
               pending: list[tuple[int, str]]) -> dict:
    where = f"perf case {index}"
    if not isinstance(mine, m.PerfReport):
        raise Rejected(Reason.PERF_EXCEPTION, f"{where}: {describe(mine)}")
    malformed = reported.timing_problem(mine.timing) or reported.phases_problem(mine.phases)
    if malformed:
        raise Rejected(Reason.PROTOCOL, f"{where}: the candidate process sent a malformed timing ({malformed})")
    if tuple(mine.fingerprints) != tuple(base.fingerprints):
        raise Rejected(Reason.INPUT_TAMPERING, f"{where}: the candidate process saw different inputs than the "
                                               "trusted process (input generation was altered)")
    observations.judge(mine.observation, where, empty_output=False)
    if mine.observation is None:
        raise Rejected(Reason.OBSERVER_DISABLED, f"{where}: the candidate process sent no observations")
    recheck(task, index, base, mine, where, pending)
    timing = mine.timing
    if timing["event_total_ms"] > timing["host_total_ms"] * 1.05 + 1.0:
        raise Rejected(Reason.TIMER_TAMPERING, f"{where}: device events report {timing['event_total_ms']:.1f} ms "
                                               f"inside {timing['host_total_ms']:.1f} ms of host time")
    row = {"case": index, "name": base.name, "candidate": timing, "baselines": {"eager": base.timing},
           "speedup": {"eager": base.timing["median_ms"] / timing["median_ms"]}, "cost": base.cost,
           "phases_s": {"candidate": mine.phases, "baseline": base.phases}}
    if lane.peaks and base.cost:
        cost = base.cost
        row["roofline"] = roofline.roofline(cost["flops"], cost["bytes"], cost["unit"], timing["median_ms"],
                                            lane.peaks)
        row["baseline_roofline"] = roofline.roofline(cost["flops"], cost["bytes"], cost["unit"],
                                                     base.timing["median_ms"], lane.peaks)
    return row


def judged_by_lane(task: Task) -> bool:
    """Whether a perf-size output is judged whole by the lane (which holds the inputs): custom checks, and
    tolerances whose bound is computed from the inputs. Elementwise rules compare sampled positions."""
    return task.check is not None or task.contract.tolerance.scale == "bound"


def recheck(task: Task, index: int, base: m.PerfReport, mine: m.PerfReport, where: str,
            pending: list[tuple[int, str]]) -> None:
    """Timed outputs meet the contract at perf size: sampled positions against the baseline's (elementwise
    contracts), or the whole output of input set 0, judged later by a trusted server with the task's own
    judgement (judge_pending: a full judgement can take a minute, and the GPU need not be held alone for it)."""
    slow = slow_enough_to_skip_recheck(mine.timing, base.timing)
    if judged_by_lane(task):
        if not isinstance(mine.output_digest, str):
            raise Rejected(Reason.PROTOCOL, f"{where}: no digest of the output it was asked to hold")
        pending.append((index, mine.output_digest))
        return
    tol = task.contract.tolerance
    for k, (got, want) in enumerate(zip(mine.samples, base.samples)):
        reason = compare(list(got), list(want), tol, f"timed output (input set {k})")
        if reason:
            raise Rejected(Reason.PERF_RECHECK, f"{where}: {reason}")
    if not slow:
        reason = compare(list(mine.recheck), list(base.recheck), tol, "post-timing call on fresh inputs")
        if reason:
            raise Rejected(Reason.PERF_RECHECK, f"{where}: {reason}")


JUDGE_PHASES = ("turn_s", "guard_wait_s", "yields", "host_s")  # the trusted judge's (messages.CheckResult)


def judge_pending(task: Task, pending: list[tuple[int, str]], lane: Lane,
                  fetch: Callable[[int], Any]) -> tuple[float, list[str], dict[str, float]]:
    """Judge the perf-size outputs recheck set aside, after the timing: each is fetched from the candidate
    process (`fetch`), must match the digest reported when it was timed, and is judged by a trusted server.
    Raises Rejected for the first that fails. Returns the seconds it took, the judges' notes (a judgement
    that fell back to the CPU) and where the time went, summed over the outputs: fetch_s, digest_s, call_s
    (the trusted server's call, waiting for a free judge included) and the judge's own JUDGE_PHASES."""
    started, notes = time.perf_counter(), []
    phases = dict.fromkeys(("fetch_s", "digest_s", "call_s", *JUDGE_PHASES), 0.0)
    for index, digest in pending:
        where = f"perf case {index}"
        clock = time.perf_counter()
        output = fetch(index)
        fetched = time.perf_counter()
        if output_digest(output) != digest:
            raise Rejected(Reason.DEFERRED_WORK, f"{where}: the timed output changed in the candidate process "
                                                 "between its timing and its judgement")
        digested = time.perf_counter()
        seed = lane.seed_of(task.id, "perf", index, 0)
        verdict = lane.judge(m.PerfCheck(task.id, index, seed, output), 900)
        phases["fetch_s"] += fetched - clock
        phases["digest_s"] += digested - fetched
        phases["call_s"] += time.perf_counter() - digested
        if not isinstance(verdict, m.CheckResult):
            raise Rejected(Reason.HARNESS_ERROR, f"{where}: the output could not be judged: {describe(verdict)}")
        if verdict.reason:
            raise Rejected(Reason.PERF_RECHECK, f"{where}: timed output (input set 0): {verdict.reason}")
        notes += [f"{where}: {verdict.note}"] if verdict.note else []
        for key in JUDGE_PHASES:
            phases[key] += verdict.phases.get(key, 0.0) if isinstance(verdict.phases, dict) else 0.0
    return time.perf_counter() - started, notes, {k: round(v, 3) for k, v in phases.items()}


def fetch_output(child: Child, index: int, timeout_s: float) -> Any:
    """The whole output of perf case `index` the candidate process held back (TimeCase.full_output)."""
    child.restart_clock(timeout_s)  # sending it is the harness's work, not the candidate's
    try:
        reply = child.call(m.FetchOutput(index))
    except ChildFailed as failed:
        if failed.kind != "timeout":
            raise
        raise Rejected(Reason.PERF_TIMEOUT, f"perf case {index}: its timed output was not sent back in "
                                            f"{timeout_s:.0f} s") from None
    if not isinstance(reply, m.HeldOutput) or reply.case != index:
        raise Rejected(Reason.PROTOCOL, f"perf case {index}: unexpected reply to the output fetch: {describe(reply)}")
    return reply.output


def slow_enough_to_skip_recheck(mine: dict, base: dict) -> bool:
    """A candidate timed by one call skips the fresh-input re-check (its set-0 output is still checked); the
    claim must hold up: at least SLOW_FACTOR times the baseline, or the reply was forged."""
    if mine["method"] not in SLOW_METHODS:
        return False
    if mine["median_ms"] < SLOW_FACTOR * base["median_ms"]:
        raise Rejected(Reason.TIMER_TAMPERING, f"a one-call timing of {mine['median_ms']:.3f} ms is reported, but "
                       f"only candidates {SLOW_FACTOR:.0f}x slower than the baseline ({base['median_ms']:.3f} ms) "
                       "are timed that way")
    return True


def finish(cases: list[dict], warnings: list[str], baselines: tuple[str, ...]) -> dict:
    geo: dict[str, Any] = {}
    for name in baselines:
        ratios = []
        for row in cases:
            b = row["baselines"].get(name)
            if b:
                row["speedup"][name] = b["median_ms"] / row["candidate"]["median_ms"]
                ratios.append(row["speedup"][name])
        geo[name] = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else None
    result = {"status": "measured", "cases": cases, "speedup_geomean": geo, "warnings": warnings,
              "budget_exhausted": sum(r["candidate"]["budget_exhausted"] for r in cases)}
    too_fast = [r for r in cases if roofline.implausible((r.get("roofline") or {}).get("roofline_fraction"))]
    if too_fast:
        r = too_fast[0]
        result["status"] = "implausible"
        result["reason"] = (f"perf case {r['case']}: {r['candidate']['median_ms'] * 1e3:.2f} µs is below the "
                            f"roofline floor {r['roofline']['t_min_ms'] * 1e3:.2f} µs "
                            f"(fraction {r['roofline']['roofline_fraction']:.2f} > "
                            f"{1 + roofline.IMPLAUSIBLE_MARGIN:.2f})")
    return result

