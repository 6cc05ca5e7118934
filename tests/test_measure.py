"""GPU measurement logic on the CPU, with fakes of the GPU timer: statistics, roofline arithmetic, the
plausibility gate, the perf-case judgement and one-timing-per-GPU scheduling."""

import threading
import time
from types import SimpleNamespace

import pytest
import torch

from kernelbenchx.dataset.registry import get_task
from kernelbenchx.evaluator import measure, roofline, timing
from kernelbenchx.evaluator.gpu_guard import GpuGuard
from kernelbenchx.evaluator.sandbox import ChildFailed
from kernelbenchx.evaluator.verdict import Rejected, Verdict


def test_median_ci_shrinks_with_more_samples():
    few = [1.0, 1.1, 0.9, 1.05, 0.95, 1.0, 1.02]
    many = few * 40
    m1, ci1 = timing.median_ci(few)
    m2, ci2 = timing.median_ci(many)
    assert m1 == m2 == pytest.approx(1.0)
    assert ci2 < ci1 and ci2 < 0.06
    assert timing.median_ci([1.0, 2.0])[1] == float("inf")


def test_roofline_arithmetic_on_h100():
    h100 = roofline.PEAKS["h100"]
    # 1 GiB read + 1 GiB written at the datasheet's 3.35 TB/s takes 0.641 ms.
    r = roofline.roofline(flops=2 ** 28, nbytes=2 ** 31, unit="fp32", ms=0.8, peaks=h100)
    assert r["bound"] == "memory" and r["t_min_ms"] == pytest.approx(2 ** 31 / 3.35e12 * 1e3)
    assert r["gbs"] == pytest.approx(2 ** 31 / 0.8e-3 / 1e9) and r["roofline_fraction"] == pytest.approx(0.801, 1e-3)
    mm = roofline.roofline(flops=2 * 4096 ** 3, nbytes=3 * 4096 ** 2 * 2, unit="bf16", ms=0.2, peaks=h100)
    assert mm["bound"] == "compute" and mm["tflops"] == pytest.approx(687.2, 0.01)
    assert roofline.target_for("NVIDIA H100 80GB HBM3") == "h100" and roofline.target_for("NVIDIA H200") == "h200"


def test_gate_rejects_faster_than_the_floor_with_margin():
    assert not roofline.implausible(1.1) and roofline.implausible(1.2) and not roofline.implausible(None)
    fast = {"case": 0, "candidate": {"median_ms": 0.01, "budget_exhausted": False}, "baselines": {"eager": {"median_ms": 1.0}},
            "speedup": {}, "roofline": {"roofline_fraction": 30.0, "t_min_ms": 0.3}}
    result = measure.finish([fast], [], ("eager",))
    assert result["status"] == "implausible" and "below the roofline floor" in result["reason"]
    assert result["speedup_geomean"]["eager"] == pytest.approx(100.0)


def perf_reply(samples, recheck, fingerprints=([1.0, 2.0],), launches=1, ops=(), event=1.0, host=5.0):
    return {"ok": True, "fingerprints": list(fingerprints), "launches": launches, "compute_ops": list(ops),
            "samples": samples, "recheck": recheck, "cost": {"flops": 1e6, "bytes": 8e6, "unit": "fp32"},
            "timing": {"median_ms": 0.1, "event_total_ms": event, "host_total_ms": host, "budget_exhausted": False,
                       "count": 10, "method": "cuda_graph"}}


def test_judge_case_checks_inputs_launches_outputs_and_timer():
    task = get_task("Activation/gelu")
    good = [[torch.ones(4)]]
    base = perf_reply(good, [torch.ones(4)])
    row = measure.judge_case(task, 0, base, perf_reply(good, [torch.ones(4)]), roofline.PEAKS["h100"])
    assert row["speedup"]["eager"] == pytest.approx(1.0) and 0 < row["roofline"]["roofline_fraction"] < 1
    cases = [(perf_reply(good, [torch.ones(4)], fingerprints=([9.0, 9.0],)), "input_tampering"),
             (perf_reply(good, [torch.ones(4)], launches=0), "no_launch"),
             (perf_reply(good, [torch.ones(4)], ops=("mm",)), "torch_compute"),
             (perf_reply([[torch.zeros(4)]], [torch.ones(4)]), "perf_recheck"),
             (perf_reply(good, [torch.zeros(4)]), "perf_recheck"),
             (perf_reply(good, [torch.ones(4)], event=50.0, host=5.0), "timer_tampering")]
    for mine, code in cases:
        with pytest.raises(Rejected) as info:
            measure.judge_case(task, 0, base, mine, None)
        assert info.value.outcome.code == code


def slow_reply(samples, median_ms):
    reply = perf_reply(samples, None, event=median_ms, host=median_ms + 1)
    del reply["recheck"]  # a candidate timed by one call has no fresh-input re-check
    reply["timing"].update(median_ms=median_ms, count=1, method="single_call", budget_exhausted=True)
    return reply


def test_a_very_slow_candidate_is_timed_once_and_still_checked_on_its_timed_output():
    task = get_task("Activation/gelu")
    base = perf_reply([[torch.ones(4)]] * 3, [torch.ones(4)])  # baseline median 0.1 ms
    row = measure.judge_case(task, 0, base, slow_reply([[torch.ones(4)]], 50.0), None)
    assert row["speedup"]["eager"] == pytest.approx(0.002)
    with pytest.raises(Rejected) as info:  # its output on input set 0 is still compared
        measure.judge_case(task, 0, base, slow_reply([[torch.zeros(4)]], 50.0), None)
    assert info.value.outcome.code == "perf_recheck"
    with pytest.raises(Rejected) as info:  # claiming the one-call path without being that slow is forged
        measure.judge_case(task, 0, base, slow_reply([[torch.ones(4)]], 5.0), None)
    assert info.value.outcome.code == "timer_tampering"


class FakeTimer:
    """Stands in for a GPU timing process: records when it is busy, per GPU."""

    def __init__(self, gpu, log):
        self.gpu, self.log = gpu, log
        self.clock_restarted_at = None

    def restart_clock(self, wall_s):
        self.clock_restarted_at = time.perf_counter()

    def call(self, message, timeout=None):
        if message["op"] == "verify":
            return {"ok": True, "changed": []}
        start = time.perf_counter()
        time.sleep(0.01)
        self.log.append((self.gpu, start, time.perf_counter(), self))
        return perf_reply([[torch.ones(4)]] * 3, [torch.ones(4)], fingerprints=([1.0, 2.0],) * 3)


def fake_context(gpus, log):
    ctx = SimpleNamespace(seed=1, lanes=[FakeTimer(g, log) for g in range(gpus)],
                          gpu_guards=[GpuGuard() for _ in range(gpus)], peaks=None, target=None,
                          protocol={}, config=SimpleNamespace(baselines=("eager",), perf_timeout_s=90.0))
    ctx.gpu_for = lambda cand: cand % gpus
    return ctx


def test_timings_never_overlap_on_one_gpu_and_queueing_is_not_the_candidates_time():
    task = get_task("Activation/gelu")
    log = []
    gpus = 2
    ctx = fake_context(gpus, log)
    children = [FakeTimer(i % gpus, log) for i in range(8)]
    threads = [threading.Thread(target=measure.perf_stage, args=(child, task, i, ctx))
               for i, child in enumerate(children)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(log) == 8 * 2 * measure.perf_case_count(task)
    for gpu in range(gpus):
        spans = sorted((s, e) for g, s, e, _ in log if g == gpu)
        assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:]))
    # a candidate's perf allowance starts once it holds its lane: no other candidate of that GPU is mid-stage
    for child in children:
        mine_end = max(e for _, _, e, who in log if who is child)
        for other in children:
            if other is not child and other.gpu == child.gpu:
                theirs = [(s, e) for _, s, e, who in log if who is other]
                assert all(e <= child.clock_restarted_at for _, e in theirs) or all(s >= mine_end for s, _ in theirs)
    assert {g for g, _, _, _ in log} == {0, 1}


class HangingCandidate(FakeTimer):
    """Times its first perf case, then never answers (a kernel far too slow to time)."""

    def call(self, message, timeout=None):
        if message["op"] == "perf" and message["case"] > 0:
            raise ChildFailed("timeout", "no reply within 90 s")
        return super().call(message, timeout)


def test_a_perf_stage_past_its_allowance_is_a_timeout_not_a_pass():
    ctx = fake_context(1, [])
    with pytest.raises(Rejected) as info:
        measure.perf_stage(HangingCandidate(0, []), get_task("Activation/gelu"), 0, ctx)
    assert info.value.outcome.verdict == Verdict.TIMEOUT
    assert info.value.outcome.code == "perf_timeout"
    assert "1 of" in info.value.outcome.message


def test_golden_deviation_uses_the_shipped_h100_data_and_matching_case_names():
    from kernelbenchx.evaluator.golden import golden_deviation, load_golden

    rows = load_golden("h100")["tasks"]["Activation/gelu"]
    assert len(load_golden("h100")["tasks"]) == 176
    first = rows[0]
    assert golden_deviation("h100", "Activation/gelu", 0, first["name"], first["eager_ms"] * 1.5) == pytest.approx(0.5)
    assert golden_deviation("h100", "Activation/gelu", 0, "renamed", 1.0) is None
    assert golden_deviation("a100", "Activation/gelu", 0, first["name"], 1.0) is None


def test_golden_file_validates_against_its_schema():
    from kernelbenchx.evaluator.golden import golden_path
    from kernelbenchx.validate import validate_file

    assert validate_file(golden_path("h100")) == []
