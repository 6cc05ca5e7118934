"""The perf stage, driven from the trusted parent: baseline and candidate timed in turn on one GPU lane.

For each perf case: the trusted baseline process and the candidate process build the same input sets from
the same seeds; the baseline is timed, then the candidate, with the same protocol; the parent checks that
both saw the same inputs (fingerprints), that the candidate launched Triton kernels and computed nothing in
PyTorch, that its timed outputs and one fresh post-timing call match the baseline's at secret positions,
that event time is consistent with host time, and that no case beats the roofline. Speedup per case is
baseline median / candidate median; the task's speedup is the geometric mean over its cases.

The lane is the run's bottleneck, so a candidate holds it for a bounded time: RunConfig.perf_timeout_s from
when it gets the lane (queueing is not counted), and a candidate at least SLOW_FACTOR times slower than the
baseline is timed with one call (perf.time_slow) instead of the full protocol.
"""

from __future__ import annotations

import math
import secrets
import time
from typing import Any

import torch

from kernelbenchx.dataset.contract import compare
from kernelbenchx.evaluator import roofline
from kernelbenchx.evaluator.golden import golden_deviation
from kernelbenchx.evaluator.perf import SLOW_FACTOR, SLOW_METHODS
from kernelbenchx.evaluator.sandbox import Child, ChildFailed
from kernelbenchx.evaluator.verdict import Rejected, Verdict


def perf_case_count(task) -> int:
    with torch._subclasses.fake_tensor.FakeTensorMode(allow_non_fake_inputs=True):
        return sum(1 for _ in task.perf_cases(torch.Generator().manual_seed(0)))


def perf_stage(child: Child, task, candidate, ctx) -> dict:
    gpu = ctx.gpu_for(candidate)
    cases: list[dict] = []
    warnings: list[str] = []
    count = perf_case_count(task)
    queued = time.perf_counter()
    with ctx.gpu_guards[gpu].exclusive():
        lane_wait_s = time.perf_counter() - queued
        child.restart_clock(ctx.config.perf_timeout_s)
        try:
            for index in range(count):
                cases.append(time_case(child, task, index, ctx, ctx.lanes[gpu], warnings))
            verify = child.call({"op": "verify"})
        except ChildFailed as failed:
            if failed.kind != "timeout":
                raise
            raise Rejected(Verdict.TIMEOUT, "perf_timeout", f"passed stages 1 and 2, but its perf stage did not "
                           f"finish in {ctx.config.perf_timeout_s:.0f} s ({len(cases)} of {count} cases timed; "
                           "the re-checks of the other cases' timed outputs never ran)") from None
    if verify.get("changed"):
        raise Rejected(Verdict.FORBIDDEN, "monkeypatch", f"trusted functions replaced during timing: "
                       f"{', '.join(verify['changed'])}")
    return {**finish(cases, warnings, ctx.config.baselines), "lane_wait_s": round(lane_wait_s, 3)}


def time_case(child: Child, task, index: int, ctx, lane, warnings: list[str]) -> dict:
    """One perf case on the lane: the eager baseline, then the candidate, then any other baselines."""
    from kernelbenchx.evaluator.run import derive_seed

    request = {"task_id": task.id, "case": index, "cost": True,
               "seeds": [derive_seed(ctx.seed, task.id, "perf", index, k) for k in range(3)],
               "positions_seed": secrets.randbits(40), "recheck_seed": secrets.randbits(40),
               "protocol": ctx.protocol}
    base = lane.call({**request, "op": "baseline", "baseline": "eager"}, timeout=600)
    if not base.get("ok"):
        raise Rejected(Verdict.CRASH, "baseline_failed", f"perf case {index}: baseline failed: {base.get('error')}")
    mine = child.call({**request, "op": "perf", "baseline_ms": base["timing"]["median_ms"]}, timeout=600)
    row = judge_case(task, index, base, mine, ctx.peaks)
    for name in ctx.config.baselines:
        if name != "eager":
            other = lane.call({**request, "op": "baseline", "baseline": name}, timeout=900)
            row["baselines"][name] = other.get("timing") if other.get("ok") else None
    deviation = golden_deviation(ctx.target, task.id, index, base.get("name", ""), base["timing"]["median_ms"])
    if deviation is not None:
        row["golden_deviation"] = deviation
        if abs(deviation) > 0.25:
            warnings.append(f"case {index}: live eager baseline differs from the {ctx.target} golden "
                            f"by {deviation:+.0%} (throttling, wrong GPU or a noisy neighbour?)")
    return row


def judge_case(task, index: int, base: dict, mine: dict, peaks) -> dict:
    where = f"perf case {index}"
    if not mine.get("ok"):
        error = mine.get("error", {})
        raise Rejected(Verdict.RUNTIME_ERROR, "perf_exception", f"{where}: {error.get('type')}: "
                       f"{error.get('message')}")
    if mine["fingerprints"] != base["fingerprints"]:
        raise Rejected(Verdict.FORBIDDEN, "input_tampering", f"{where}: the candidate process saw different "
                       "inputs than the trusted process (input generation was altered)")
    if mine["launches"] == 0:
        raise Rejected(Verdict.NO_TRITON_KERNEL, "no_launch", f"{where}: no Triton kernel launched at perf size")
    if mine["compute_ops"]:
        raise Rejected(Verdict.FORBIDDEN, "torch_compute", f"{where}: PyTorch computed outside Triton at perf "
                       f"size: {', '.join(mine['compute_ops'])}")
    if task.check is None:  # elementwise contracts can be re-checked on sampled positions
        tol = task.contract.tolerance
        for k, (got, want) in enumerate(zip(mine["samples"], base["samples"])):
            reason = compare(got, want, tol, f"timed output (input set {k})")
            if reason:
                raise Rejected(Verdict.INCORRECT, "perf_recheck", f"{where}: {reason}")
        if not slow_enough_to_skip_recheck(mine["timing"], base["timing"]):
            reason = compare(mine["recheck"], base["recheck"], tol, "post-timing call on fresh inputs")
            if reason:
                raise Rejected(Verdict.INCORRECT, "perf_recheck", f"{where}: {reason}")
    timing = mine["timing"]
    if timing["event_total_ms"] > timing["host_total_ms"] * 1.05 + 1.0:
        raise Rejected(Verdict.FORBIDDEN, "timer_tampering", f"{where}: device events report "
                       f"{timing['event_total_ms']:.1f} ms inside {timing['host_total_ms']:.1f} ms of host time")
    row = {"case": index, "candidate": timing, "baselines": {"eager": base["timing"]},
           "speedup": {"eager": base["timing"]["median_ms"] / timing["median_ms"]}, "cost": base.get("cost"),
           "phases_s": {"candidate": mine.get("phases"), "baseline": base.get("phases")}}
    if peaks and base.get("cost"):
        cost = base["cost"]
        row["roofline"] = roofline.roofline(cost["flops"], cost["bytes"], cost["unit"], timing["median_ms"], peaks)
        row["baseline_roofline"] = roofline.roofline(cost["flops"], cost["bytes"], cost["unit"],
                                                     base["timing"]["median_ms"], peaks)
    return row


def slow_enough_to_skip_recheck(mine: dict, base: dict) -> bool:
    """A candidate timed by one call skips the fresh-input re-check (its set-0 output is still checked); the
    claim must hold up: at least SLOW_FACTOR times the baseline, or the reply was forged."""
    if mine["method"] not in SLOW_METHODS:
        return False
    if mine["median_ms"] < SLOW_FACTOR * base["median_ms"]:
        raise Rejected(Verdict.FORBIDDEN, "timer_tampering", f"a one-call timing of {mine['median_ms']:.3f} ms is "
                       f"reported, but only candidates {SLOW_FACTOR:.0f}x slower than the baseline "
                       f"({base['median_ms']:.3f} ms) are timed that way")
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
