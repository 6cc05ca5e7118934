"""GPU measurement logic on the CPU, with fakes of the GPU processes: statistics, roofline arithmetic, the
plausibility gate, the perf-case judgement and one-timing-per-GPU scheduling."""

import threading
import time
from dataclasses import replace

import numpy as np
import pytest
import torch

from kernelbenchx.dataset.registry import all_tasks, get_task
from kernelbenchx.evaluator import messages as m
from kernelbenchx.evaluator.measure import perf_case, perf_stage, roofline
from kernelbenchx.evaluator.measure import protocol as timing
from kernelbenchx.evaluator.parent.gpu_guard import GpuGuard
from kernelbenchx.evaluator.process import ChildFailed
from kernelbenchx.evaluator.reasons import Reason, Rejected, Verdict

GELU = get_task("Activation/gelu")


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
    fast = {"case": 0, "candidate": {"median_ms": 0.01, "budget_exhausted": False},
            "baselines": {"eager": {"median_ms": 1.0}}, "speedup": {},
            "roofline": {"roofline_fraction": 30.0, "t_min_ms": 0.3}}
    result = perf_stage.finish([fast], [], ("eager",))
    assert result["status"] == "implausible" and "below the roofline floor" in result["reason"]
    assert result["speedup_geomean"]["eager"] == pytest.approx(100.0)


def observation(launches=1, ops=None, intact=True, threads=(5, 5)):
    return m.Observation(launches, ops or {"empty_like": 1}, threads[0], threads[1], intact)


def perf_reply(samples, recheck, fingerprints=((1.0, 2.0),), obs=None, event=1.0, host=5.0, candidate=True):
    timing_ = {"median_ms": 0.1, "event_total_ms": event, "host_total_ms": host, "budget_exhausted": False,
               "count": 10, "method": "cuda_graph"}
    return m.PerfReport("n", tuple(fingerprints), timing_, tuple(samples), {},
                        (obs or observation()) if candidate else None, recheck,
                        None if candidate else {"flops": 1e6, "bytes": 8e6, "unit": "fp32"})


def lane(calls=None, peaks=None, judge=None):
    return perf_stage.Lane(calls or (lambda req, timeout: None), judge or (lambda req, timeout: None),
                           lambda *parts: 1, timing.Protocol(), peaks, None, ("eager",), 90.0)


def test_judge_case_checks_inputs_observations_outputs_and_timer():
    good = [[torch.ones(4)]]
    base = perf_reply(good, [torch.ones(4)], candidate=False)
    row = perf_stage.judge_case(GELU, 0, base, perf_reply(good, [torch.ones(4)]), lane(peaks=roofline.PEAKS["h100"]),
                                [])
    assert row["speedup"]["eager"] == pytest.approx(1.0) and 0 < row["roofline"]["roofline_fraction"] < 1
    cases = [(perf_reply(good, [torch.ones(4)], fingerprints=((9.0, 9.0),)), Reason.INPUT_TAMPERING),
             (perf_reply(good, [torch.ones(4)], obs=observation(launches=0)), Reason.NO_LAUNCH),
             (perf_reply(good, [torch.ones(4)], obs=observation(ops={"mm": 1})), Reason.TORCH_COMPUTE),
             (perf_reply(good, [torch.ones(4)], obs=observation(intact=False)), Reason.OBSERVER_DISABLED),
             (perf_reply(good, [torch.ones(4)], obs=observation(threads=(5, 7))), Reason.THREADS),
             (perf_reply([[torch.zeros(4)]], [torch.ones(4)]), Reason.PERF_RECHECK),
             (perf_reply(good, [torch.zeros(4)]), Reason.PERF_RECHECK),
             (perf_reply(good, [torch.ones(4)], event=50.0, host=5.0), Reason.TIMER_TAMPERING),
             (replace(perf_reply(good, [torch.ones(4)]), observation=None), Reason.OBSERVER_DISABLED),
             (m.Failed(m.ErrorInfo("RuntimeError", "boom")), Reason.PERF_EXCEPTION)]
    for mine, reason in cases:
        with pytest.raises(Rejected) as info:
            perf_stage.judge_case(GELU, 0, base, mine, lane(), [])
        assert info.value.reason is reason, info.value.message


def test_custom_check_tasks_are_judged_whole_by_a_judge_process_after_the_timing():
    task = get_task("LinearAlgebra/qr")
    asked, timed, fetched = [], [], []
    held = (torch.eye(3), torch.eye(3))

    def judge_call(request, timeout):
        asked.append(request)
        return m.CheckResult("Q is not orthogonal")

    def fetch(index):
        fetched.append(index)
        return tuple(t.clone() for t in held)

    mine = replace(perf_reply([[torch.ones(4)]], [torch.ones(4)]), output_digest=timing.output_digest(held))
    base = perf_reply([[torch.ones(4)]], [torch.ones(4)], candidate=False)
    pending: list = []
    the_lane = lane(lambda request, timeout: timed.append(request), judge=judge_call)
    perf_stage.judge_case(task, 0, base, mine, the_lane, pending)  # set aside, not judged while timing
    assert pending == [(0, mine.output_digest)] and not asked and not timed and not fetched
    with pytest.raises(Rejected) as info:
        perf_stage.judge_pending(task, pending, the_lane, fetch)
    assert info.value.reason is Reason.PERF_RECHECK and "orthogonal" in info.value.message
    assert fetched == [0] and isinstance(asked[0], m.PerfCheck) and not timed
    assert torch.equal(asked[0].output[0], held[0])


def test_a_held_output_that_changed_after_its_timing_is_deferred_work_and_never_judged():
    task = get_task("LinearAlgebra/qr")
    asked = []
    timed_output = (torch.eye(3), torch.eye(3))
    repaired = (torch.eye(3), torch.eye(3) * (1 + 1e-7))  # one ulp-scale change is enough
    the_lane = lane(judge=lambda request, timeout: asked.append(request) or m.CheckResult(None))
    pending = [(0, timing.output_digest(timed_output))]
    with pytest.raises(Rejected) as info:
        perf_stage.judge_pending(task, pending, the_lane, lambda index: repaired)
    assert info.value.reason is Reason.DEFERRED_WORK and not asked
    seconds, notes, phases = perf_stage.judge_pending(task, pending, the_lane, lambda index: timed_output)
    assert len(asked) == 1 and notes == []  # unchanged: judged
    assert set(phases) == {"fetch_s", "digest_s", "call_s", *perf_stage.JUDGE_PHASES}
    assert 0 <= phases["fetch_s"] + phases["digest_s"] + phases["call_s"] <= seconds + 1e-3
    the_lane = lane(judge=lambda request, timeout: m.CheckResult(None, "", {"turn_s": 2.0, "host_s": 0.5, "x": 9}))
    phases = perf_stage.judge_pending(task, pending * 2, the_lane, lambda index: timed_output)[2]
    assert phases["turn_s"] == 4.0 and phases["host_s"] == 1.0 and "x" not in phases  # summed over outputs
    mine = perf_reply([[torch.ones(4)]], [torch.ones(4)])  # asked to hold its output, reports no digest
    with pytest.raises(Rejected) as info:
        perf_stage.judge_case(task, 0, perf_reply([[torch.ones(4)]], [torch.ones(4)], candidate=False), mine,
                              the_lane, [])
    assert info.value.reason is Reason.PROTOCOL


def test_the_output_digest_sees_dtype_shape_and_every_byte():
    a = torch.randn(4, 6)
    assert timing.output_digest(a) == timing.output_digest(a.clone()) == timing.output_digest((a,))
    assert timing.output_digest(a) != timing.output_digest(a.reshape(6, 4))
    assert timing.output_digest(a) != timing.output_digest(a.view(torch.int32))
    assert timing.output_digest(a.T) == timing.output_digest(a.T.contiguous())
    b = a.clone()
    b.view(torch.int32)[3, 5] ^= 1  # the lowest mantissa bit of one element
    assert timing.output_digest(a) != timing.output_digest(b)


def slow_reply(samples, median_ms):
    reply = perf_reply(samples, None, event=median_ms, host=median_ms + 1)
    return replace(reply, timing={**reply.timing, "median_ms": median_ms, "count": 1, "method": "single_call",
                                  "budget_exhausted": True})


def test_a_very_slow_candidate_is_timed_once_and_still_checked_on_its_timed_output():
    base = perf_reply([[torch.ones(4)]] * 3, [torch.ones(4)], candidate=False)  # baseline median 0.1 ms
    row = perf_stage.judge_case(GELU, 0, base, slow_reply([[torch.ones(4)]], 50.0), lane(), [])
    assert row["speedup"]["eager"] == pytest.approx(0.002)
    with pytest.raises(Rejected) as info:  # its output on input set 0 is still compared
        perf_stage.judge_case(GELU, 0, base, slow_reply([[torch.zeros(4)]], 50.0), lane(), [])
    assert info.value.reason is Reason.PERF_RECHECK
    with pytest.raises(Rejected) as info:  # claiming the one-call path without being that slow is forged
        perf_stage.judge_case(GELU, 0, base, slow_reply([[torch.ones(4)]], 0.5), lane(), [])
    assert info.value.reason is Reason.TIMER_TAMPERING


class FakeProcess:
    """Stands in for a GPU timing process (lane or candidate): records when it is busy, per GPU."""

    def __init__(self, gpu, log, hang_after=None):
        self.gpu, self.log, self.hang_after = gpu, log, hang_after
        self.clock_restarted_at = None
        self.timed = 0

    def restart_clock(self, wall_s):
        self.clock_restarted_at = time.perf_counter()

    def call(self, request, timeout=None, interim=None):
        if isinstance(request, m.Verify):
            return m.Symbols(())
        if self.hang_after is not None and self.timed >= self.hang_after:
            raise ChildFailed("timeout", "no reply within 90 s")
        self.timed += 1
        start = time.perf_counter()
        time.sleep(0.01)
        self.log.append((self.gpu, start, time.perf_counter(), self))
        return perf_reply([[torch.ones(4)]] * 3, [torch.ones(4)], fingerprints=((1.0, 2.0),) * 3,
                          candidate=request.baseline_ms is not None)


def test_timings_never_overlap_on_one_gpu_and_queueing_is_not_the_candidates_time():
    log, gpus = [], 2
    guards = [GpuGuard() for _ in range(gpus)]
    lanes = [FakeProcess(g, log) for g in range(gpus)]
    children = [FakeProcess(i % gpus, log) for i in range(8)]

    def one(child):
        with guards[child.gpu].exclusive():
            perf_stage.perf_stage(child, GELU, lane(lambda req, timeout, g=child.gpu: lanes[g].call(req)))

    threads = [threading.Thread(target=one, args=(c,)) for c in children]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(log) == 8 * 2 * perf_stage.perf_case_count(GELU)
    for gpu in range(gpus):
        spans = sorted((s, e) for g, s, e, _ in log if g == gpu)
        assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:]))
    for child in children:  # a perf allowance starts once the candidate holds its lane
        mine_end = max(e for _, _, e, who in log if who is child)
        for other in children:
            if other is not child and other.gpu == child.gpu:
                theirs = [(s, e) for _, s, e, who in log if who is other]
                assert all(e <= child.clock_restarted_at for _, e in theirs) or all(s >= mine_end for s, _ in theirs)


def test_a_perf_stage_past_its_allowance_is_a_timeout_not_a_pass():
    log = []
    lane_process = FakeProcess(0, log)
    with pytest.raises(Rejected) as info:
        perf_stage.perf_stage(FakeProcess(0, log, hang_after=1), GELU, lane(lambda req, t: lane_process.call(req)))
    assert info.value.verdict is Verdict.TIMEOUT and info.value.reason is Reason.PERF_TIMEOUT
    assert "1 of" in info.value.message


def test_golden_deviation_uses_the_shipped_h100_data_and_matching_case_names():
    from kernelbenchx.evaluator.measure.golden import golden_deviation, load_golden

    rows = load_golden("h100")["tasks"]["Activation/gelu"]
    first = rows[0]
    assert golden_deviation("h100", "Activation/gelu", 0, first["name"], first["eager_ms"] * 1.5) == pytest.approx(0.5)
    assert golden_deviation("h100", "Activation/gelu", 0, "renamed", 1.0) is None
    assert golden_deviation("a100", "Activation/gelu", 0, first["name"], 1.0) is None


def test_golden_file_validates_against_its_schema():
    from kernelbenchx.evaluator.measure.golden import golden_path
    from kernelbenchx.validate import validate_file

    assert validate_file(golden_path("h100")) == []


@pytest.mark.parametrize("task_id", ["Loss/cross_entropy", "Fusion/fused_cross_entropy_log_softmax"])
def test_a_judge_process_judges_a_perf_size_output(task_id):
    """The judge rebuilds the case from its seed and judges it (on the GPU where there is one, else on the
    CPU; on an H200 these tasks' checks once mixed devices there)."""
    from kernelbenchx.dataset.cases import run_reference
    from kernelbenchx.dataset.task import map_tensors
    from kernelbenchx.evaluator.measure import perf_case
    from kernelbenchx.evaluator.trusted import server

    task = get_task(task_id)
    _, call = perf_case.build_case(task, 0, 11, "cpu")
    right = map_tensors(run_reference(task, call), lambda t: t.clone())
    assert server.check(m.PerfCheck(task_id, 0, 11, right)).reason is None
    wrong = map_tensors(right, lambda t: t + 1.0 if t.is_floating_point() else t)
    assert server.check(m.PerfCheck(task_id, 0, 11, wrong)).reason
    assert server.check(m.PerfCheck(task_id, 0, 11, wrong, device="cpu")).reason


def test_the_baseline_timed_is_the_task_s_timed_reference_where_it_has_one(monkeypatch):
    """Random/rand's reference seeds a generator from the seed tensor's value (a read back to the host, which no
    CUDA graph holds): the trusted server times its `timed_reference` (the fill from the device's default
    generator) instead, for the eager baseline and the compiled one; other tasks time their reference."""
    from kernelbenchx.evaluator.measure import perf_case
    from kernelbenchx.evaluator.trusted import server

    timed = []
    monkeypatch.setattr(perf_case, "measure_case", lambda req, task, fn, device, quiet_host=None: timed.append(fn))
    monkeypatch.setattr(server, "release_memory", lambda: None)
    monkeypatch.setattr(torch, "compile", lambda fn: ("compiled", fn))
    monkeypatch.setattr(torch._dynamo, "reset", lambda: None)
    rand, relu = get_task("Random/rand"), get_task("Activation/relu")
    for task_id in (rand.id, relu.id):
        for baseline in ("eager", "compile"):
            server.baseline(m.TimeCase(task_id, 0, (1,), 2, 3, {}, baseline=baseline))
    assert timed == [rand.timed_reference, ("compiled", rand.timed_reference),
                     relu.reference, ("compiled", relu.reference)]
    assert rand.baseline is rand.timed_reference and relu.baseline is relu.reference


def test_host_reads_are_limited_per_call_not_summed_over_a_perf_case():
    """A perf case merges every call's observation; a few reads per call over 64 eager calls is no host loop
    (on an H200 fused_svd_reconstruct was rejected for 2538 reads summed over its calls)."""
    from kernelbenchx.evaluator.measure.perf_case import merge
    from kernelbenchx.evaluator.parent import observations

    per_call = observation(ops={"_local_scalar_dense": 40})
    observations.judge(merge([per_call] * 64), "perf case 0", empty_output=False)
    with pytest.raises(Rejected) as info:
        observations.judge(observation(ops={"_local_scalar_dense": 2000}), "stage1 case x", empty_output=False)
    assert info.value.reason is Reason.HOST_COMPUTE and "2000 scalar reads to the host per call" in info.value.message
    with pytest.raises(Rejected):
        observations.judge(merge([observation(ops={"_local_scalar_dense": 2000})] * 3), "perf", empty_output=False)


def test_a_perf_output_is_judged_on_the_gpu_under_the_guard_and_on_the_cpu_only_when_that_fails_and_it_is_small():
    from contextlib import contextmanager

    from kernelbenchx.evaluator.parent.context import CPU_JUDGE_BYTES, judge_gpu_first

    held, asked = [False], []

    @contextmanager
    def shared():
        held.append(True)
        yield
        held.append(False)

    def judge(answers):
        def call(request, interim):  # a judge server: asks for the guard around its GPU work only
            if request.guarded:
                assert interim(m.GpuAcquire()) == m.GpuGranted()
            asked.append((request.device, held[-1]))
            if request.guarded:
                interim(m.GpuRelease())
                assert held[-1] is False
            return answers[request.device]
        return call

    failed = m.Failed(m.ErrorInfo("RuntimeError", "Expected all tensors to be on the same device"))
    small = m.PerfCheck("Random/rand", 0, 1, torch.zeros(8))
    verdict = judge_gpu_first(judge({"cuda": m.CheckResult(None)}), small, shared)
    assert verdict == m.CheckResult(None) and asked == [("cuda", True)]
    asked.clear()
    verdict = judge_gpu_first(judge({"cuda": failed, "cpu": m.CheckResult("bad mask")}), small, shared)
    assert verdict.reason == "bad mask" and "judged on the CPU" in verdict.note and "same device" in verdict.note
    assert asked == [("cuda", True), ("cpu", False)]  # the CPU judgement does not hold the GPU's guard
    asked.clear()
    large = m.PerfCheck("Random/rand", 0, 1, torch.empty(CPU_JUDGE_BYTES // 4 + 1))
    verdict = judge_gpu_first(judge({"cuda": failed, "cpu": m.CheckResult(None)}), large, shared)
    assert isinstance(verdict, m.Failed) and "not judged on the CPU" in verdict.error.message
    assert asked == [("cuda", True)]


class FakeEvent:
    """torch.cuda.Event on the host clock: each timed call of a slow candidate spends `sleep_s`."""

    def __init__(self, enable_timing: bool = False) -> None:
        self.t = 0.0

    def record(self) -> None:
        self.t = time.perf_counter()

    def elapsed_time(self, end: "FakeEvent") -> float:
        return (end.t - self.t) * 1e3

    def query(self) -> bool:
        return False  # the host has always submitted in time


@pytest.fixture
def host_clock_gpu(monkeypatch):
    """The protocol's GPU calls on the host: events read the host clock, nothing to synchronize or flush."""
    monkeypatch.setattr(timing, "CLOCK", timing.DeviceClock.of(FakeEvent, lambda: None, lambda cycles: None))
    monkeypatch.setattr(torch.cuda, "synchronize", lambda *a, **k: None)
    monkeypatch.setattr(timing, "L2Flusher", lambda: (lambda: None))


def test_a_slow_eager_timing_still_runs_every_input_set_whose_output_is_rechecked(host_clock_gpu):
    # On the H200 a 2 GiB convolution spent the time budget on its first two samples; the third input set was
    # never called, its "timed output" was None, and a correct candidate was rejected (expected 3 items, got 0).
    called = []

    def slow(x):
        called.append(int(x))
        time.sleep(0.03)
        return (x + 1, x * 2)

    protocol = timing.Protocol(warmup=1, budget_s=0.01, use_graphs=False)
    stats, outputs = timing.time_case(slow, [((torch.tensor(k),), {}) for k in range(3)], protocol)
    assert stats["method"] == "eager" and stats["budget_exhausted"] is True
    assert sorted(set(called)) == [0, 1, 2]
    assert [int(o[0]) for o in outputs] == [1, 2, 3]
    assert all(len(timing.sample_values(o, 7)) == 2 for o in outputs)


def test_the_candidate_process_sends_a_held_output_once():
    from kernelbenchx.evaluator.child.harness import Harness

    harness = Harness()
    harness.held_outputs[2] = torch.arange(5)
    reply = harness.fetch_output(m.FetchOutput(2))
    assert isinstance(reply, m.HeldOutput) and reply.case == 2 and torch.equal(reply.output, torch.arange(5))
    again = harness.fetch_output(m.FetchOutput(2))  # sent once: nothing is kept alive after the judgement
    assert isinstance(again, m.Failed) and "perf case 2" in again.error.message
    assert isinstance(m.decode(m.encode(reply)[m.HEADER.size:]), m.HeldOutput)


def test_one_slow_call_does_not_make_a_case_slow(host_clock_gpu):
    """Slow work (every call over the budget) is warmed up by one call, then timed one call per input set. Work
    whose first call alone was slow (NVRTC compiling a jiterator kernel on a server's first use of an op) is
    warmed up and timed like any quick work: run 30 timed 10-microsecond Math/* baselines one eager call at a time
    because their first call had compiled."""
    called = []

    def slow(x):
        called.append(int(x))
        time.sleep(0.02)
        return x + 1

    protocol = timing.Protocol(warmup=3, budget_s=0.01, use_graphs=False, min_reps=3, max_reps=3)
    sets = [((torch.tensor(k),), {}) for k in range(3)]
    stats, _ = timing.time_case(slow, sets, protocol)
    assert called == [0, 0, 1, 2] and stats["method"] == "eager"  # one warm-up call, one timed call per set

    def compiles_once(x, seen=[]):
        called.append(int(x))
        if not seen:
            seen.append(1)
            time.sleep(0.5)  # the one-off
        return x + 1

    called.clear()
    compiles_once(*sets[0][0])  # the caller's untimed first call (perf_case.Measurement)
    stats, _ = timing.time_case(compiles_once, sets, timing.Protocol(warmup=3, budget_s=0.25, use_graphs=False,
                                                                     min_reps=3, max_reps=3, batch_ms=0.001))
    assert called == [0, 0, 1, 2, 0, 1, 2] and stats["budget_exhausted"] is False  # three warm-ups, three samples


def test_eager_batches_are_powers_of_two_that_move_only_with_a_factor_near_two():
    """Batch sizes come from a host time that varies with load; rounded to powers of two, a 20% change in the
    call's time leaves most cases batched the same way, and the bounds hold."""
    protocol = timing.Protocol(batch_ms=1.0, max_batch=64)
    sizes = {ms: timing.batch_size(ms, protocol) for ms in (0.0001, 0.01, 0.02, 0.03, 0.1, 0.3, 0.6, 1.0, 5.0)}
    assert sizes == {0.0001: 64, 0.01: 64, 0.02: 32, 0.03: 32, 0.1: 8, 0.3: 2, 0.6: 1, 1.0: 1, 5.0: 1}
    assert timing.batch_size(0.21, protocol) == timing.batch_size(0.186, protocol) == 4
    assert timing.batch_size(0.0, replace(protocol, max_batch=48)) == 32


def test_each_timing_says_why_it_was_timed_that_way(host_clock_gpu, monkeypatch):
    """`why` names what chose the method: graphs off, slow work, a call that synchronizes with the host (capture
    never tried), a capture that failed. The published schema accepts each."""
    from kernelbenchx.evaluator.parent import reported

    sets = [((torch.ones(2),), {})]
    quick = timing.Protocol(warmup=1, min_reps=3, max_reps=3, budget_s=5.0)

    def slow(x):
        time.sleep(0.02)
        return x

    seen = {}
    seen["graphs_off"] = timing.time_case(lambda x: x + 1, sets, replace(quick, use_graphs=False))[0]
    seen["slow"] = timing.time_case(slow, sets, replace(quick, budget_s=0.01))[0]
    monkeypatch.setattr(timing, "syncs_host", lambda fn, args, kwargs: True)
    seen["syncs_host"] = timing.time_case(lambda x: x + 1, sets, quick)[0]
    monkeypatch.setattr(timing, "syncs_host", lambda fn, args, kwargs: False)
    monkeypatch.setattr(torch.cuda, "Stream", lambda: (_ for _ in ()).throw(RuntimeError("no capture here")))
    seen["capture_failed"] = timing.time_case(lambda x: x + 1, sets, quick)[0]
    for why, stats in seen.items():
        assert stats["why"] == why and stats["method"] in ("eager", "eager_batched"), (why, stats["method"])
        assert reported.timing_problem(stats) is None
        assert stats["host_probe_us"] > 0  # an eager timing says how fast its process's interpreter ran
    assert reported.timing_problem({**seen["slow"], "why": "because"}) is not None
    assert reported.timing_problem({**seen["slow"], "host_probe_us": -1.0}) is not None


def test_each_input_set_keeps_its_own_median(host_clock_gpu):
    """One set of buffers can time apart from the others of its shape (run 33: 11% in some processes); the
    summary keeps each set's median in set order, and the published schema takes it (NaN in it does not pass)."""
    from kernelbenchx.evaluator.parent import reported

    runners = [lambda s=s: time.sleep(s) for s in (0.001, 0.05, 0.001)]  # far apart: a loaded host oversleeps
    stats = timing.sample_loop(runners, lambda: None, timing.Protocol(min_reps=6, max_reps=6), 1)
    fast, slow, again = stats["set_medians_ms"]
    assert slow > 2 * max(fast, again) and stats["count"] == 6
    summary = {**stats, "method": "eager", "why": "graphs_off", "calls_per_sample": 1}
    assert reported.timing_problem(summary) is None
    assert "set_medians_ms holds nan" in reported.timing_problem({**summary, "set_medians_ms": [1.0, float("nan")]})
    assert "set_medians_ms" not in timing.sample_loop(runners[:1], lambda: None, timing.Protocol(min_reps=3,
                                                                                                 max_reps=3), 1)


def test_graph_samples_are_padded_until_the_host_submits_in_time(host_clock_gpu, monkeypatch):
    """A replay submitted after the device had passed the start event may time host time: the sample is dropped
    and the device's spin before the start event doubled, until the submission fits inside it; at the largest
    pad, late samples are kept and counted. Each timing starts from a quarter of the pad the last one learned.
    Eager loops are neither padded nor watched."""
    answers, spins = [], []
    monkeypatch.setattr(FakeEvent, "query", lambda self: answers.pop(0) if answers else False)
    monkeypatch.setattr(timing, "CLOCK", timing.DeviceClock.of(FakeEvent, lambda: None, spins.append))
    monkeypatch.setattr(timing, "PAD_CYCLES", [1000])
    monkeypatch.setattr(timing, "PAD_CYCLES_MIN", 1000)
    protocol = timing.Protocol(min_reps=4, max_reps=4)
    answers[:] = [True, False, True, False]
    stats = timing.sample_loop([lambda: None], lambda: None, protocol, 1, watch_late=True)
    assert stats["late_samples"] == 2 and stats["count"] == 4 and stats["pad_cycles"] == 4000
    from kernelbenchx.evaluator.parent import reported  # what a graph timing sends is a well-formed summary

    assert reported.timing_problem({**stats, "method": "cuda_graph", "why": "captured", "calls_per_sample": 1}) is None
    slow = {**timing.summarize([400.0], "single_call", True, 0.4), "why": "slow_candidate"}  # perf_case.time_slow
    assert reported.timing_problem(slow) is None
    assert spins == [1000, 2000, 2000, 4000, 4000, 4000]
    spins.clear()  # the next timing starts from a quarter of the pad learned (a passing load's pad fades)
    timing.sample_loop([lambda: None], lambda: None, protocol, 1, watch_late=True)
    assert spins == [1000] * 4
    monkeypatch.setattr(timing, "PAD_CYCLES", [timing.PAD_CYCLES_MAX * 4])
    monkeypatch.setattr(timing, "PAD_CYCLES_MIN", timing.PAD_CYCLES_MAX)
    answers[:] = [True, True]
    stats = timing.sample_loop([lambda: None], lambda: None, protocol, 1, watch_late=True)
    assert stats["late_samples"] == 2 and stats["count"] == 4  # kept and counted
    spins.clear()
    answers[:] = [True] * 4
    assert "late_samples" not in timing.sample_loop([lambda: None], lambda: None, protocol, 1)
    assert len(answers) == 4 and spins == []


def test_a_timed_call_that_replaces_the_event_clock_forges_nothing(host_clock_gpu):
    """An eager sample runs candidate code between its events. A call that replaces the event's elapsed_time for
    the next read, and is put back by it (so no symbol check sees it), does not change what the protocol reads:
    its clock was bound before candidate code ran."""
    original = FakeEvent.elapsed_time

    def forged(self, end):
        FakeEvent.elapsed_time = original  # one shot: gone before anyone looks
        return 1e-6

    def call(x):
        time.sleep(0.005)
        FakeEvent.elapsed_time = forged
        return x + 1

    try:
        stats, _ = timing.time_case(call, [((torch.ones(1),), {})], timing.Protocol(warmup=1, min_reps=3, max_reps=3,
                                                                                   use_graphs=False))
    finally:
        FakeEvent.elapsed_time = original
    assert stats["method"] == "eager" and stats["min_ms"] >= 4.0


def test_a_case_whose_first_call_was_a_one_off_is_warmed_up(host_clock_gpu):
    """The same through measure_case: the untimed first call's one-off does not stand for the warm-up."""
    from kernelbenchx.evaluator.measure import perf_case

    task, calls = get_task("Activation/relu"), []

    def relu(x):
        calls.append(x.shape)
        if len(calls) == 1:
            time.sleep(0.5)
        return torch.relu(x)

    # a budget far above a relu's time on a loaded machine, far under the one-off
    protocol = {**timing.Protocol(use_graphs=False, budget_s=0.25, min_reps=3, max_reps=3, max_batch=1).__dict__}
    report = perf_case.measure_case(m.TimeCase(task.id, 0, (1, 2, 3), 5, 6, protocol, recheck=False), task, relu,
                                    "cpu")
    assert isinstance(report, m.PerfReport) and len(calls) == 1 + 3 + 3  # first call, warm-ups, samples


def test_no_post_timing_call_where_the_output_is_judged_whole(host_clock_gpu):
    """The post-timing call on fresh inputs is compared on sampled positions only; a task whose timed output a
    judge checks whole (custom checks) does not make it (it was a wasted call on the lane, seconds for slow
    linear algebra)."""
    from kernelbenchx.evaluator.measure import perf_case

    task = get_task("Activation/relu")
    calls = []

    def relu(x):
        calls.append(x.shape)
        return torch.relu(x)

    protocol = {**timing.Protocol(use_graphs=False, min_reps=3, max_reps=3, max_batch=1).__dict__}
    made = {}
    for recheck in (True, False):
        calls.clear()
        req = m.TimeCase(task.id, 0, (1, 2, 3), 5, 6, protocol, recheck=recheck)
        report = perf_case.measure_case(req, task, relu, "cpu")
        assert isinstance(report, m.PerfReport), report
        assert (report.recheck is not None) is recheck
        made[recheck] = len(calls)
    assert made == {True: 1 + 3 + 3 + 1, False: 1 + 3 + 3}  # first call, warm-ups, samples, post-timing call
    assert perf_stage.judged_by_lane(get_task("LinearAlgebra/eig")) and not perf_stage.judged_by_lane(task)


def test_big_perf_cases_are_timed_over_fewer_input_sets():
    """Three rotating input sets where they fit in INPUT_SETS_BYTES together, down to one for cases of several
    GiB a set (three 8 GiB sets ran an 80 GB H100 out of memory beside the run's other processes)."""
    from kernelbenchx.evaluator.measure.perf_case import INPUT_SETS_BYTES, input_sets

    big = get_task("Fusion/fused_layer_norm_relu_linear")  # case 2: an 8 GiB weight
    assert input_sets(big, 2, 3) == 1
    assert input_sets(GELU, 0, 3) == 3 and input_sets(GELU, 0, 2) == 2  # small: as many as the protocol asks
    assert INPUT_SETS_BYTES // (2 << 30) == 2 and input_sets(get_task("Reduce/min"), 3, 3) == 2  # 2 GiB a set


class RecordingLease:
    def __init__(self):
        self.calls = []

    def give_back(self):
        self.calls.append("give_back")

    def take(self):
        self.calls.append("take")

    def answer(self, message):
        return None


class OutOfMemoryOnce(FakeProcess):
    """A timing process whose first `failures` timings run out of memory (another process held the GPU's)."""

    def __init__(self, failures):
        super().__init__(0, [])
        self.failures = failures

    def call(self, request, timeout=None, interim=None):
        if isinstance(request, m.TimeCase) and self.failures:
            self.failures -= 1
            return m.Failed(m.ErrorInfo("OutOfMemoryError", "CUDA out of memory. Tried to allocate 8.00 GiB"))
        return super().call(request, timeout, interim)


@pytest.mark.parametrize("who", ["baseline", "candidate"])
def test_a_timing_out_of_memory_beside_other_processes_is_timed_again_with_the_gpu_lent_to_checks(monkeypatch, who):
    monkeypatch.setattr(perf_stage, "MEMORY_RETRY_WAITS_S", (0.0, 0.0))
    lane_process, child = (OutOfMemoryOnce(1), FakeProcess(0, [])) if who == "baseline" else \
        (FakeProcess(0, []), OutOfMemoryOnce(1))
    lease = RecordingLease()
    result = perf_stage.perf_stage(child, GELU, lane(lambda req, t: lane_process.call(req)), lease)
    assert lease.calls == ["give_back", "take"]  # checks ran (and gave their memory back) during the wait
    assert any(f"the {who} ran out of GPU memory" in w for w in result["warnings"])
    assert len(result["cases"]) == perf_stage.perf_case_count(GELU)


def test_a_timing_out_of_memory_waits_for_the_gpu_s_judges_to_finish_before_its_retry(monkeypatch):
    """The judges' perf-size tensors stay allocated between the turns of a judgement: a timing that ran out of
    memory retries once they are done (the lane's drain), its wait bounded by MEMORY_RETRY_WAITS_S; the error may
    come wrapped in a RuntimeError (Optimizer/AdamW on a full H200, run 48)."""
    from contextlib import contextmanager

    monkeypatch.setattr(perf_stage, "MEMORY_RETRY_WAITS_S", (0.5, 7.0))
    monkeypatch.setattr(perf_stage, "MEMORY_SETTLE_S", 0.0)
    lease, drained = RecordingLease(), []

    @contextmanager
    def drain(timeout):
        drained.append((timeout, list(lease.calls)))
        yield True

    class Wrapped(FakeProcess):
        failures = 2

        def call(self, request, timeout=None, interim=None):
            if isinstance(request, m.TimeCase) and self.failures:
                self.failures -= 1
                return m.Failed(m.ErrorInfo("RuntimeError", "OutOfMemoryError: CUDA out of memory. Tried to "
                                                            "allocate 1024.00 MiB"))
            return super().call(request, timeout, interim)

    lane_process = FakeProcess(0, [])
    run = perf_stage.Lane(lambda req, t: lane_process.call(req), lambda req, t: None, lambda *parts: 1,
                          timing.Protocol(), None, None, ("eager",), 90.0, drain=drain)
    result = perf_stage.perf_stage(Wrapped(0, []), GELU, run, lease)
    assert drained == [(0.5, ["give_back"]), (7.0, ["give_back", "take", "give_back"])]  # the lane lent meanwhile
    assert sum("the candidate ran out of GPU memory" in w for w in result["warnings"]) == 2
    assert not perf_stage.out_of_memory(m.Failed(m.ErrorInfo("RuntimeError", "shape mismatch")))


def test_a_baseline_that_keeps_running_out_of_memory_fails_after_the_retries(monkeypatch):
    monkeypatch.setattr(perf_stage, "MEMORY_RETRY_WAITS_S", (0.0, 0.0))
    lane_process, lease = OutOfMemoryOnce(10), RecordingLease()
    with pytest.raises(Rejected) as info:
        perf_stage.perf_stage(FakeProcess(0, []), GELU, lane(lambda req, t: lane_process.call(req)), lease)
    assert info.value.reason is Reason.BASELINE_FAILED and "OutOfMemoryError" in info.value.message
    assert lane_process.failures == 10 - 1 - len(perf_stage.MEMORY_RETRY_WAITS_S)


def test_a_timing_records_the_gpu_memory_free_when_it_ran(monkeypatch):
    """cuDNN and cuBLAS pick algorithms by the workspace they can get, so the free memory is part of a timing's
    conditions (a conv baseline read 75.6 vs 328 ms in two runs on the same H100)."""
    from kernelbenchx.evaluator.measure import perf_case

    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda device=None: (int(12.5 * 2 ** 30), 80 * 2 ** 30))
    assert perf_case.free_memory_gib("cuda") == 12.5 and perf_case.free_memory_gib("cuda:0") == 12.5
    assert perf_case.free_memory_gib("cpu") is None


def test_the_perf_plan_is_computed_once_per_task_and_before_the_lane(monkeypatch):
    """Counting perf cases and sizing their input sets runs on fake tensors in the parent: CPU work that held
    the lane 0.3-3 s per candidate (10 s for a run's first) when it ran inside the lease."""
    from kernelbenchx.evaluator.measure import perf_case

    perf_stage._PLANS.clear()
    counted = []
    real = perf_stage.perf_case_count
    monkeypatch.setattr(perf_stage, "perf_case_count", lambda task: counted.append(task.id) or real(task))
    plan = perf_stage.case_plan(GELU, 3)
    assert plan == tuple(perf_case.input_sets(GELU, i, 3) for i in range(real(GELU))) and len(plan) >= 2
    lane_process = FakeProcess(0, [])
    perf_stage.perf_stage(FakeProcess(0, []), GELU, lane(lambda req, t: lane_process.call(req)))
    assert counted == ["Activation/gelu"]  # the stage used the plan made before it


def test_a_thread_left_behind_is_named_in_the_verdict():
    """A thread that outlives a call is named (/proc comm): a driver's helper and a candidate's pool read
    differently in the record (run 28 had "2 extra threads" and nothing to tell which)."""
    import ctypes
    import threading as th

    from kernelbenchx.evaluator.child.harness import Harness
    from kernelbenchx.evaluator.parent import observations

    stop, named = th.Event(), th.Event()

    def linger():
        ctypes.CDLL(None).prctl(15, b"kbx-leftover", 0, 0, 0)  # PR_SET_NAME
        named.set()
        stop.wait(10)

    def call():
        th.Thread(target=linger, daemon=True).start()
        named.wait(5)
        return torch.ones(2)

    try:
        obs, _, error = Harness().observed_call((), {}, call)
    finally:
        stop.set()
    assert error is None and obs.threads_after == obs.threads_before + 1
    assert obs.new_threads == ("kbx-leftover",)
    with pytest.raises(Rejected) as info:
        observations.judge_tampering(obs, "stage1 case x")
    assert info.value.reason is Reason.THREADS and "(kbx-leftover)" in info.value.message
    quiet, _ = Harness().observed_call((), {}, lambda: torch.ones(2))[:2]
    assert quiet.new_threads == ()


def test_a_judgement_out_of_memory_on_the_gpu_is_tried_there_again_before_the_cpu(monkeypatch):
    """Another process's big judgement holds its memory for seconds; the CPU fallback takes minutes at perf size
    and refuses outputs over CPU_JUDGE_BYTES, so the GPU is tried again first."""
    from contextlib import nullcontext

    from kernelbenchx.evaluator.parent.context import judge_gpu_first

    monkeypatch.setattr(perf_stage, "JUDGE_MEMORY_WAITS_S", (0.0, 0.0))
    oom = m.Failed(m.ErrorInfo("OutOfMemoryError", "CUDA out of memory. Tried to allocate 12.00 GiB"))
    replies, asked = [oom, m.CheckResult(None)], []

    def call(request, interim):
        asked.append(request.device)
        return replies.pop(0) if request.device == "cuda" else m.CheckResult("the CPU was not needed")

    check = m.PerfCheck("Random/rand", 0, 1, torch.zeros(8))
    assert judge_gpu_first(call, check, nullcontext) == m.CheckResult(None) and asked == ["cuda", "cuda"]
    replies[:], asked[:] = [oom, oom, oom], []
    verdict = judge_gpu_first(call, check, nullcontext)  # still out of memory after the waits: the CPU, as before
    assert asked == ["cuda", "cuda", "cuda", "cpu"] and "OutOfMemoryError" in verdict.note


def test_a_malformed_timing_summary_from_the_candidate_is_a_protocol_breach():
    """The candidate's process sends its own timing summary: anything off the published $defs/timing (a forged
    field, NaN, a count of 0, a missing total) is rejected with PROTOCOL, never copied into a record that then
    fails the schema (or read as a harness error)."""
    good = [[torch.ones(4)]]
    base = perf_reply(good, [torch.ones(4)], candidate=False)
    honest = perf_reply(good, [torch.ones(4)])
    row = perf_stage.judge_case(GELU, 0, base, replace(honest, timing={**honest.timing, "free_gib": 12.5}), lane(), [])
    assert row["candidate"]["free_gib"] == 12.5
    forged = [{"free_gib": -3.0}, {"free_gib": float("nan")}, {"free_gib": "lots"}, {"free_gib": True},
              {"median_ms": float("inf")}, {"median_ms": 0.0}, {"count": 0}, {"count": 2.5}, {"method": "magic"},
              {"rel_ci95": float("nan")}, {"budget_exhausted": "no"}, {"speedup": 100.0}, {"late_samples": -1}]
    for change in forged:
        mine = perf_reply(good, [torch.ones(4)])
        with pytest.raises(Rejected) as err:
            perf_stage.judge_case(GELU, 0, base, replace(mine, timing={**mine.timing, **change}), lane(), [])
        assert err.value.reason is Reason.PROTOCOL and "malformed timing" in str(err.value), change
    for missing in ("median_ms", "event_total_ms", "host_total_ms"):
        mine = perf_reply(good, [torch.ones(4)])
        with pytest.raises(Rejected) as err:
            perf_stage.judge_case(GELU, 0, base, replace(mine, timing={k: v for k, v in mine.timing.items()
                                                                       if k != missing}), lane(), [])
        assert err.value.reason is Reason.PROTOCOL and missing in str(err.value)
    with pytest.raises(Rejected, match="not a mapping"):
        perf_stage.judge_case(GELU, 0, base, replace(perf_reply(good, [torch.ones(4)]), timing=[1.0]), lane(), [])
    for phases in ({"timing_s": float("nan")}, {"timing_s": -1.0}, {"timing_s": "fast"}, [0.1],
                   {f"p{i}": 0.1 for i in range(17)}, {"x" * 41: 0.1}):
        with pytest.raises(Rejected) as err:
            perf_stage.judge_case(GELU, 0, base, replace(perf_reply(good, [torch.ones(4)]), phases=phases), lane(), [])
        assert err.value.reason is Reason.PROTOCOL and "phases" in str(err.value), phases


def test_a_malformed_observation_is_a_protocol_breach():
    """An observation whose counts are not counts would slip past the rules (NaN > n is false) or break the
    parent; any such is PROTOCOL wherever observations are judged."""
    good = [[torch.ones(4)]]
    base = perf_reply(good, [torch.ones(4)], candidate=False)
    fine = observation()
    forged = [replace(fine, threads_after=float("nan")), replace(fine, launches="3"), replace(fine, ops=[1]),
              replace(fine, ops={"mm": -1}), replace(fine, observer_intact=1), replace(fine, refused=(5,)),
              replace(fine, calls=True), replace(fine, new_threads="x"), m.Symbols(())]
    for obs in forged:
        with pytest.raises(Rejected) as err:
            perf_stage.judge_case(GELU, 0, base, perf_reply(good, [torch.ones(4)], obs=obs), lane(), [])
        assert err.value.reason is Reason.PROTOCOL and "malformed observation" in str(err.value), obs


def test_the_protocol_summary_is_a_well_formed_timing(host_clock_gpu):
    """What the timing protocol itself writes passes the candidate-summary check and the published schema."""
    from kernelbenchx.evaluator.parent import reported

    protocol = timing.Protocol(warmup=1, min_reps=3, max_reps=3, use_graphs=False)
    stats, _ = timing.time_case(lambda x: x + 1, [((torch.ones(2),), {})], protocol)
    assert reported.timing_problem({**stats, "free_gib": 3.5}) is None
    assert reported.timing_problem({**stats, "surprise": 1}) is not None


def test_what_reads_a_timed_output_ignores_replaced_public_names(monkeypatch):
    """A candidate that replaces `hashlib.sha256` (an update() that rewrites the buffer it is given) or
    `torch.Tensor.numpy` / `.to` / `__getitem__` / `.sum` changes neither the digest, the host copy, the sampled
    values nor the fingerprint the harness reads; the symbol snapshot names each replacement."""
    import hashlib

    from kernelbenchx.evaluator.child import observe

    out = (torch.arange(64, dtype=torch.float32).reshape(8, 8), torch.ones(3, dtype=torch.int64))
    digest, copy, sampled = timing.output_digest(out), timing.host_copy(out), timing.sample_values(out, 7, 16)
    fingerprint, raw = timing.fingerprint(out), out[0].clone()
    before = observe.symbol_snapshot()
    real = hashlib.sha256

    class Repairing:
        def __init__(self, *args):
            self.inner = real(*args)

        def update(self, data):
            view = memoryview(data)
            if not view.readonly and view.nbytes:
                view.cast("B")[0] = 0x55
            self.inner.update(data)

        def hexdigest(self):
            return self.inner.hexdigest()

    monkeypatch.setattr(hashlib, "sha256", Repairing)
    monkeypatch.setattr(torch.Tensor, "numpy", lambda self, *a, **k: np.zeros(1, dtype=np.uint8))
    monkeypatch.setattr(torch.Tensor, "to", lambda self, *a, **k: torch.zeros_like(self))
    monkeypatch.setattr(torch.Tensor, "__getitem__", lambda self, idx: torch.zeros(1))
    monkeypatch.setattr(torch.Tensor, "sum", lambda self, *a, **k: torch.zeros(()))
    assert timing.output_digest(out) == digest and timing.fingerprint(out) == fingerprint
    assert all(torch.equal(a, b) for a, b in zip(timing.host_copy(out), copy))
    assert all(torch.equal(a, b) for a, b in zip(timing.sample_values(out, 7, 16), sampled))
    assert torch.equal(out[0], raw)  # nothing rewritten in place
    changed = observe.changed_symbols(before)
    assert {"hashlib.sha256", "torch.Tensor.numpy", "torch.Tensor.to", "torch.Tensor.__getitem__",
            "torch.Tensor.sum"} <= set(changed)


def test_a_held_output_goes_into_the_staged_buffer_of_its_shape_and_dtype(monkeypatch):
    """host_copy fills a staged buffer of the tensor's shape and dtype (through the bound copy, whatever
    `Tensor.copy_` is now), allocates for a tensor with none, and never copies into a tensor subclass (its own
    code would run in the copy); the digest of the copy is the digest of the output."""
    out = (torch.arange(6, dtype=torch.float32).reshape(2, 3), torch.ones(4, dtype=torch.int64))

    class Sly(torch.Tensor):
        pass

    float_buf, sly = torch.empty(2, 3), torch.empty(4, dtype=torch.int64).as_subclass(Sly)
    monkeypatch.setattr(torch.Tensor, "copy_", lambda self, src, *a, **k: self.zero_())
    copy = timing.host_copy(out, [torch.empty(3, 2), sly, float_buf])
    assert copy[0] is float_buf and torch.equal(float_buf, out[0])
    assert type(copy[1]) is torch.Tensor and copy[1] is not sly and torch.equal(copy[1], out[1])
    digest = timing.output_digest(copy)
    assert digest == timing.output_digest(out)
    float_buf[0, 0] = 99.0  # whoever kept the staged buffer rewrites it after the hold: the fetch's digest differs
    assert timing.output_digest(copy) != digest


def test_host_buffers_keep_to_their_budget_and_give_up_without_page_locked_memory(monkeypatch):
    layouts = (((4, 4), "float32"), ((1000,), "float64"), ((3,), "no_such_dtype"), ((2,), "int8"))
    pinned: list = []
    monkeypatch.setattr(timing, "_empty",
                        lambda shape, dtype, pin_memory: pinned.append(pin_memory) or torch.empty(shape, dtype=dtype))
    buffers, left = timing.host_buffers(layouts, 100)
    assert [tuple(b.shape) for b in buffers] == [(4, 4), (2,)] and left == 100 - 64 - 2 and pinned == [True, True]

    def refuse(*args, **kwargs):
        raise RuntimeError("pin_memory=True requires a CUDA or other accelerator backend")

    monkeypatch.setattr(timing, "_empty", refuse)
    assert timing.host_buffers(layouts, 1 << 30) == ([], 1 << 30)


def test_output_layouts_are_the_timed_calls_outputs_on_fake_tensors():
    """The reference's output per perf case, with the mutated arguments a mutating task's timed call returns
    too; empty where the reference cannot run on fake tensors."""
    from kernelbenchx.dataset.registry import get_task

    task = get_task("Math/reciprocal")
    for index in range(perf_case.perf_case_count(task)):
        call = perf_case.build_case(task, index, 0, "cpu")[1]
        assert perf_case.output_layouts(task, index) == ((tuple(call.args[0].shape), "float32"),)
    mutating = next(t for t in all_tasks().values() if t.contract.mutates)
    assert len(perf_case.output_layouts(mutating, 0)) == 1 + len(mutating.contract.mutates)
    data_dependent = replace(task, reference=lambda x: x[: int(x.sum().item() > 0)])
    assert perf_case.output_layouts(data_dependent, 0) == ()


def test_a_slow_candidate_with_a_short_first_call_is_timed_by_the_median_of_three_calls(host_clock_gpu):
    """One warm call of a slow candidate read 12x its usual time once (run 60): when the first call was short, three
    calls are timed and the median counts; a long first call keeps one timed call (the lane's time); a median under
    the slow threshold hands the case back to the full protocol (the parent rejects fast one-call timings)."""
    from kernelbenchx.dataset.task import Call
    from kernelbenchx.evaluator.measure.perf_case import SLOW_CALLS, time_slow

    def candidate(durations):
        calls = iter(durations)

        def fn():
            time.sleep(next(calls))
            return torch.zeros(1)
        return fn

    stats, outputs = time_slow(candidate([0.4, 0.06, 0.065]), Call(), 0.06, None, slow_s=0.03)
    assert stats["count"] == SLOW_CALLS == 3 and stats["method"] == "single_call" and len(outputs) == 1
    assert 60 <= stats["median_ms"] < 150 and stats["p90_ms"] >= 400
    stats, _ = time_slow(candidate([0.05]), Call(), 2.0, None, slow_s=0.03)
    assert stats["count"] == 1 and stats["median_ms"] >= 50
    assert time_slow(candidate([0.2, 0.01, 0.01]), Call(), 0.2, None, slow_s=0.1) is None
    assert time_slow(candidate([0.01]), Call(), 0.2, None, slow_s=0.1) is None


def test_a_perf_case_observation_keeps_every_calls_tampering_facts():
    """perf_case.merge: the observations of a timing's calls become one, judged like a correctness call's; refusals,
    thread attempts and timers or handlers left set in any call stay in it (refusals and attempts were dropped)."""
    from kernelbenchx.evaluator.parent import observations
    from kernelbenchx.evaluator.reasons import Reason, Rejected

    clean = m.Observation(1, {"empty": 1}, 3, 3, True)
    odd = m.Observation(2, {}, 3, 3, True, thread_attempts=1, refused=("socket.__new__",), armed=("ITIMER_REAL",))
    merged = perf_case.merge([clean, odd, clean])
    assert (merged.launches, merged.calls, merged.thread_attempts) == (4, 3, 1)
    assert merged.refused == ("socket.__new__",) and merged.armed == ("ITIMER_REAL",)
    assert merged.ops == {"empty": 2}
    for obs, reason in ((odd, Reason.SANDBOX_VIOLATION), (replace(odd, refused=(), thread_attempts=0),
                                                         Reason.SANDBOX_VIOLATION),
                        (replace(odd, refused=(), armed=()), Reason.THREADS)):
        with pytest.raises(Rejected) as rejected:
            observations.judge(perf_case.merge([clean, obs]), "perf case 0", empty_output=False)
        assert rejected.value.reason == reason


def test_a_process_that_outlives_the_call_is_named_and_judged():
    """observe.processes_left: a process started after the snapshot and still there (running, or a zombie nobody
    reaped) is named; once reaped it is not. The parent rejects an observation that names one."""
    import subprocess

    from kernelbenchx.evaluator.child import observe
    from kernelbenchx.evaluator.parent import observations
    from kernelbenchx.evaluator.reasons import Reason, Rejected

    before = observe.processes()
    assert observe.processes_left(before) == ()
    def soon(expected: tuple) -> tuple:
        deadline = time.monotonic() + 10
        while (left := observe.processes_left(before)) != expected:  # exec and exit take a moment
            assert time.monotonic() < deadline, left
            time.sleep(0.05)
        return left

    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        left = soon((f"sleep ({sleeper.pid})",))
        sleeper.kill()
        soon((f"sleep ({sleeper.pid}) [Z]",))  # exited, not reaped: a zombie still counts
    finally:
        sleeper.kill()
        sleeper.wait()
    assert observe.processes_left(before) == ()
    with pytest.raises(Rejected) as rejected:
        observations.judge_tampering(m.Observation(1, {}, 1, 1, True, processes=left), "stage1 case x")
    assert rejected.value.reason == Reason.SANDBOX_VIOLATION and "sleep" in rejected.value.message


PROCESSES_CONFINED = r"""
import json, os, subprocess, sys, time
import landlock
from kernelbenchx.evaluator.child import observe
from kernelbenchx.evaluator.child.boot import become_subreaper

become_subreaper()
before = observe.processes()
# a child that starts a grandchild and exits at once: the grandchild comes back to this subreaper
subprocess.run([sys.executable, "-c", "import subprocess; subprocess.Popen(['sleep', '30'])"], check=True)
time.sleep(0.5)
orphaned = observe.processes_left(before)
rules = landlock.Ruleset()
for path in [f"/proc/{os.getpid()}", sys.prefix, sys.base_prefix] + [p for p in sys.path if os.path.isdir(p)]:
    rules.allow(path, rules=landlock.FSAccess.READ_FILE | landlock.FSAccess.READ_DIR)
rules.apply()
confined = observe.processes_left(before)
for pid in observe.processes() - before:
    os.kill(pid, 9)
print(json.dumps({"orphaned": orphaned, "confined": confined}))
"""


def test_an_orphaned_grandchild_comes_back_and_is_named_under_landlock():
    """The harness is a subreaper: a process started by a candidate's short-lived child is its child again; with
    Landlock in force (other processes' /proc files denied) it is still listed, by its pid."""
    import json
    import subprocess
    import sys

    pytest.importorskip("landlock")
    done = subprocess.run([sys.executable, "-c", PROCESSES_CONFINED], capture_output=True, text=True, timeout=60)
    if "landlock" in done.stderr.lower() and done.returncode:
        pytest.skip(f"Landlock unavailable here: {done.stderr.strip()[-200:]}")
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    assert len(seen["orphaned"]) == 1 and seen["orphaned"][0].startswith("sleep (")
    pid = seen["orphaned"][0].split("(")[1].split(")")[0]
    assert seen["confined"] == [f"process ({pid})"]
