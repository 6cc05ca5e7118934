"""The GPU guard: timing holds a GPU alone, and neither timings nor checks starve the other."""

import json
import subprocess
import sys
import threading
import time

import pytest
import torch

from kernelbenchx.dataset.registry import get_task
from kernelbenchx.evaluator import messages as m
from kernelbenchx.evaluator.parent.gpu_guard import GpuGuard, Lease
from kernelbenchx.evaluator.reasons import Reason, Rejected
from tests.conftest import ROOT


def benchmark(name: str):
    """A script of benchmarks/ as a module (they are run as files, not imported from a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"kbx_benchmarks_{name}", ROOT / "benchmarks" / f"{name}.py")
    tool = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = tool  # dataclasses look their module up there
    spec.loader.exec_module(tool)
    return tool


class Log:
    def __init__(self) -> None:
        self.spans: list[tuple[str, float, float]] = []
        self.lock = threading.Lock()

    def work(self, kind: str, seconds: float) -> None:
        start = time.perf_counter()
        time.sleep(seconds)
        with self.lock:
            self.spans.append((kind, start, time.perf_counter()))


def run_threads(targets, stop: threading.Event | None = None, timeout: float = 10) -> None:
    threads = [threading.Thread(target=t, daemon=True) for t in targets]  # daemons: a failure must not hang
    for t in threads:
        t.start()
    deadline = time.perf_counter() + timeout
    for t in threads:
        t.join(timeout=max(0.0, deadline - time.perf_counter()))
    if stop is not None:
        stop.set()
    assert not any(t.is_alive() for t in threads), "a guard user never got in"


def overlaps(a: tuple[str, float, float], b: tuple[str, float, float]) -> bool:
    return a[1] < b[2] and b[1] < a[2]


def test_timing_never_overlaps_other_work_but_checks_overlap_each_other():
    guard, log = GpuGuard(), Log()

    def check():
        for _ in range(5):
            with guard.shared():
                log.work("check", 0.01)

    def timing():
        for _ in range(3):
            with guard.exclusive():
                log.work("timing", 0.02)

    run_threads([check] * 6 + [timing] * 2)
    timings = [s for s in log.spans if s[0] == "timing"]
    checks = [s for s in log.spans if s[0] == "check"]
    assert len(timings) == 6 and len(checks) == 30
    assert not any(overlaps(t, other) for t in timings for other in log.spans if other is not t)
    assert any(overlaps(a, b) for a in checks for b in checks if a is not b)  # checks do share the GPU


def test_a_timing_gets_in_despite_a_steady_stream_of_checks():
    guard, log, stop = GpuGuard(), Log(), threading.Event()

    def check():
        while not stop.is_set():
            with guard.shared():
                log.work("check", 0.005)

    def timing():
        time.sleep(0.05)
        with guard.exclusive():
            log.work("timing", 0.0)
        stop.set()

    started = time.perf_counter()
    run_threads([check] * 4 + [timing], stop)
    assert time.perf_counter() - started < 5.0


def test_checks_queued_behind_a_timing_go_before_the_next_timing():
    guard, log = GpuGuard(), Log()
    first_in = threading.Event()

    def first_timing():
        with guard.exclusive():
            first_in.set()
            log.work("timing", 0.1)

    def later_timing():
        first_in.wait()
        with guard.exclusive():
            log.work("timing", 0.1)

    def check():
        first_in.wait()
        time.sleep(0.02)  # queues while the first timing runs, after the later timings queued
        with guard.shared():
            log.work("check", 0.0)

    run_threads([first_timing] + [later_timing] * 3 + [check])
    check_start = next(s for k, s, _ in log.spans if k == "check")
    timing_starts = sorted(s for k, s, _ in log.spans if k == "timing")
    assert timing_starts[0] < check_start < timing_starts[1]


def test_a_lease_gives_the_gpu_to_a_timing_while_its_holder_compiles():
    guard, log = GpuGuard(), Log()
    compiling, timing_done = threading.Event(), threading.Event()

    def check():
        with Lease(guard.shared) as lease:
            log.work("check", 0.01)
            lease.answer(m.GpuRelease())  # compiling: the GPU is free meanwhile
            compiling.set()
            timing_done.wait(5)
            assert isinstance(lease.answer(m.GpuAcquire()), m.GpuGranted)
            assert isinstance(lease.answer(m.GpuAcquire()), m.GpuGranted)  # held once, never twice
            log.work("check", 0.01)

    def timing():
        compiling.wait(5)
        with guard.exclusive():
            log.work("timing", 0.02)
        timing_done.set()

    run_threads([check, timing])
    timings = [s for s in log.spans if s[0] == "timing"]
    assert len(timings) == 1 and len(log.spans) == 3
    assert not any(overlaps(timings[0], other) for other in log.spans if other is not timings[0])
    assert guard.sharers == 0 and not guard.timing  # everything given back


def test_a_lease_retaken_after_compiling_waits_for_the_timing_in_progress():
    guard = GpuGuard()
    lease = Lease(guard.shared)
    with lease:
        lease.answer(m.GpuRelease())
        lease.answer(m.GpuRelease())  # nothing held: nothing to give
        timing = guard.exclusive()
        timing.__enter__()
        threading.Timer(0.2, lambda: timing.__exit__(None, None, None)).start()
        lease.answer(m.GpuAcquire())
        assert lease.waited >= 0.15 and lease.released == 2
    assert guard.sharers == 0


def test_a_child_call_answers_interim_messages_and_refuses_them_where_no_lease_is_held():
    from kernelbenchx.evaluator.isolation import TRUSTED
    from kernelbenchx.evaluator.process import Child, ChildFailed, Limits

    guard = GpuGuard()
    with Child("tests.lease_child", Limits(wall_s=60), TRUSTED) as child:
        with Lease(guard.shared) as lease:
            reply = child.call(m.Verify(), interim=lease.answer)
        assert reply == m.Symbols(("GpuGranted",)) and lease.released == 1
        with pytest.raises(ChildFailed) as failed:
            child.call(m.Verify())
        assert failed.value.kind == "protocol" and "unexpected GpuRelease during Verify" in str(failed.value)


class FakeChannel:
    def __init__(self, answer):
        self.sent, self.answer = [], answer

    def reply(self, msg):
        self.sent.append(type(msg).__name__)

    def ask(self, msg):
        self.reply(msg)
        return self.answer


def test_the_candidate_process_brackets_a_compile_only_where_the_request_allows_it():
    from kernelbenchx.evaluator.child.gpu_lease import CompileLease

    lease = CompileLease(FakeChannel(m.GpuGranted()))
    with lease.compiling():
        pass
    assert lease.channel.sent == []  # no lease: the request keeps the GPU
    lease.active = True
    with lease.compiling():
        with lease.compiling():  # nested (a compile inside a compile): one bracket
            assert lease.channel.sent == ["GpuRelease"]
    assert lease.channel.sent == ["GpuRelease", "GpuAcquire"] and not lease.released


def test_a_reply_larger_than_one_pipe_write_arrives_whole():
    """A raw pipe write is partial past 2 GiB; the channel must keep writing (a lost tail hung a whole run)."""
    import io

    from kernelbenchx.evaluator.process import Channel

    class Stingy(io.RawIOBase):  # accepts at most 1000 bytes per write, like a pipe past its limit
        def __init__(self):
            self.data = bytearray()

        def writable(self):
            return True

        def write(self, b):
            self.data += bytes(b[:1000])
            return min(len(b), 1000)

    channel = Channel.__new__(Channel)
    channel.out = Stingy()
    reply = m.Symbols(tuple(f"name{i}" for i in range(2000)))
    channel.reply(reply)
    frame = bytes(channel.out.data)
    (size,) = m.HEADER.unpack(frame[:m.HEADER.size])
    assert len(frame) > 1000 and size == len(frame) - m.HEADER.size and m.decode(frame[m.HEADER.size:]) == reply


def test_a_paused_timing_lets_checks_in_but_no_other_timing():
    from kernelbenchx.evaluator.parent.gpu_guard import TimingLease

    guard, order = GpuGuard(), []
    paused, check_done = threading.Event(), threading.Event()

    def first_timing():
        with TimingLease(guard) as lease:
            lease.answer(m.GpuRelease())  # compiling
            paused.set()
            check_done.wait(5)
            time.sleep(0.1)  # the other timing, queued, must still not get in
            lease.answer(m.GpuAcquire())
            order.append("first timing")

    def check():
        paused.wait(5)
        with guard.shared():
            order.append("check")
        check_done.set()

    def second_timing():
        paused.wait(5)
        with guard.exclusive():
            order.append("second timing")

    run_threads([first_timing, check, second_timing])
    assert order == ["check", "first timing", "second timing"]
    assert not guard.timing and not guard.reserved and guard.sharers == 0


def test_a_candidate_is_imported_under_the_shared_guard_never_during_a_timing():
    """Import-time code runs candidate code: not while a timing holds the GPU, and a timing waits for an import in
    flight. The process's CUDA context is created before, without the guard (no kernel, no candidate code)."""
    from types import SimpleNamespace

    from kernelbenchx.evaluator.parent.candidate import StageLog, load

    guard, seen = GpuGuard(), []

    class Child:
        spawned_at, forked = 0.0, False

        def extend_clock(self, seconds: float) -> None:
            pass

        def call(self, request, timeout=None, interim=None):
            seen.append((type(request).__name__, guard.sharers, guard.timing))
            if isinstance(request, m.OpenDevice):
                return m.DeviceOpened({"cuda_s": 0.5})
            if isinstance(request, m.Load):
                threads.append(request.compile_threads)
                return m.Loaded(0.01, (), {"confine_s": 0.02})
            return m.Symbols(())

    holding, threads = threading.Event(), []

    def timing():
        with guard.exclusive():
            holding.set()
            time.sleep(0.2)

    thread = threading.Thread(target=timing, daemon=True)
    thread.start()
    holding.wait(5)
    log = StageLog()
    load(Child(), SimpleNamespace(code="", task_id="Activation/gelu"),
         SimpleNamespace(entry="gelu", id="Activation/gelu"),
         SimpleNamespace(device="cuda", config=SimpleNamespace(warm_up=True, compile_threads=4)), log, guard.shared, 4)
    thread.join(5)
    # the device opens beside the timing (no kernel, no candidate code); the import waits for it
    assert seen == [("OpenDevice", 0, True), ("Load", 1, False), ("Verify", 0, False)] and guard.sharers == 0
    assert log.compile["guard_wait_s"] >= 0.1  # it queued behind the timing
    assert log.compile["import"] == {"ok": True, "import_s": 0.01, "cuda_s": 0.5, "confine_s": 0.02}
    assert threads == [4]  # the correctness warm-up's compile threads, as run_stages asked


def test_a_reference_server_computes_under_the_shared_guard_never_during_a_timing():
    """The trusted reference process builds a task's inputs, then asks for the GPU's shared guard for the
    reference calls (a real server process; on this CPU machine its 'GPU work' runs on the CPU)."""
    from kernelbenchx.evaluator.parent.references import ExpectedOutputs, TrustedServer

    guard, timed = GpuGuard(), threading.Event()
    server = TrustedServer("cpu")
    server.gpu = 0  # as a GPU's reference server: the parent answers its guard requests
    outputs = ExpectedOutputs([server], "cpu", lambda gpu: guard.shared)
    try:
        outputs.get("Activation/relu", 5)  # started and warm: the timing below is not its start-up
        ended = []

        def timing():
            with guard.exclusive():
                timed.set()
                time.sleep(0.5)
                ended.append(time.perf_counter())

        thread = threading.Thread(target=timing, daemon=True)
        thread.start()
        timed.wait(5)
        expected = outputs.get("Activation/gelu", 5)
        answered = time.perf_counter()
        thread.join(5)
    finally:
        server.close()
    assert set(expected.stages) == {"stage1", "stage2"} and expected.stages["stage1"]
    assert ended and answered >= ended[0]  # its reference calls waited for the timing
    assert guard.sharers == 0 and not guard.timing  # and it gave the guard back


def test_a_cpu_reference_server_asks_for_no_guard():
    from kernelbenchx.evaluator.parent.references import ExpectedOutputs

    seen = []

    class Server:
        gpu, device = None, "cpu"

        def call(self, request, timeout, interim=None):
            seen.append(request)
            return m.Expected({"stage1": (), "stage2": ()})

    ExpectedOutputs([Server()], "cpu", lambda gpu: pytest.fail("no guard on the CPU")).get("Activation/relu", 1)
    assert seen and not seen[0].guarded


def test_a_stage_keeps_the_guard_across_cases_but_lets_a_waiting_timing_in_within_its_hold(monkeypatch):
    from kernelbenchx.dataset.registry import get_task
    from kernelbenchx.evaluator.parent import candidate

    monkeypatch.setattr(candidate, "STAGE_HOLD_S", 0.3)
    monkeypatch.setattr(candidate.judge, "judge_case", lambda *args: None)
    guard, events, started = GpuGuard(), [], threading.Event()
    task = get_task("Activation/relu")

    class Child:
        def extend_clock(self, seconds: float) -> None:
            pass

        def call(self, request, timeout=None, interim=None):
            assert guard.sharers == 1 and not guard.timing  # every case runs under the shared guard
            events.append(("case", time.perf_counter()))
            if len(events) == 2:
                started.set()
            time.sleep(0.05)
            return m.CaseReport(request.name, None)

    rows = tuple(m.ExpectedRow(f"c{i}", {"args": [], "kwargs": {}}, None) for i in range(30))
    result, taken = {}, []

    def shared():
        taken.append(time.perf_counter())
        return guard.shared()

    def stage():
        result.update(candidate.correct_stage(Child(), task, "stage1", rows, [], shared))

    def timing():
        started.wait(5)
        asked = time.perf_counter()
        with guard.exclusive():
            events.append(("timing", time.perf_counter(), asked))
            time.sleep(0.1)

    run_threads([stage, timing])
    (_, got_in, asked), = [e for e in events if e[0] == "timing"]
    assert got_in - asked < 0.3 + 0.25  # within the stage's hold and one case (and some scheduling slack)
    cases = [e[1] for e in events if e[0] == "case"]
    assert len(cases) == 30 and result["cases"] == 30 and guard.sharers == 0
    assert any(t > got_in for t in cases) and any(t < asked for t in cases)
    assert 2 <= len(taken) <= 30 * 0.05 / 0.3 + 2  # re-queued when its hold ran out, not once per case
    assert result["guard_wait_s"] >= 0.05  # it waited out the timing once


def test_a_stage_gives_the_guard_back_soon_after_a_timing_starts_waiting_and_keeps_it_otherwise(monkeypatch):
    """With a long hold, a stage told that a timing waits (`contended`) gives the guard back within its yield
    time; with no timing waiting it keeps the guard from its first case to its last."""
    from kernelbenchx.dataset.registry import get_task
    from kernelbenchx.evaluator.parent import candidate

    monkeypatch.setattr(candidate, "STAGE_HOLD_S", 60.0)
    monkeypatch.setattr(candidate, "STAGE_YIELD_S", 0.1)
    monkeypatch.setattr(candidate.judge, "judge_case", lambda *args: None)
    task = get_task("Activation/relu")
    rows = tuple(m.ExpectedRow(f"c{i}", {"args": [], "kwargs": {}}, None) for i in range(20))

    def run_stage(guard: GpuGuard, taken: list, started: threading.Event | None = None) -> dict:
        class Child:
            def extend_clock(self, seconds: float) -> None:
                pass

            def call(self, request, timeout=None, interim=None):
                if started is not None and request.name == "c2":
                    started.set()
                time.sleep(0.03)
                return m.CaseReport(request.name, None)

        def shared():
            taken.append(time.perf_counter())
            return guard.shared()

        return candidate.correct_stage(Child(), task, "stage1", rows, [], shared, contended=guard.contended)

    quiet, taken_quietly = GpuGuard(), []
    assert run_stage(quiet, taken_quietly)["cases"] == 20 and len(taken_quietly) == 1

    guard, taken, started, waits = GpuGuard(), [], threading.Event(), []

    def timing():
        started.wait(5)
        asked = time.perf_counter()
        with guard.exclusive():
            waits.append(time.perf_counter() - asked)
            time.sleep(0.05)

    run_threads([lambda: run_stage(guard, taken, started), timing])
    assert len(waits) == 1 and waits[0] < 0.1 + 0.03 + 0.1  # its yield time, one case, scheduling slack
    assert len(taken) == 2 and guard.sharers == 0  # it queued again once, behind the timing


def test_the_guard_timeline_says_what_a_waiting_timing_waited_for(tmp_path):
    """KBX_GUARD_LOG's timeline: each hold with what its holder was doing, and benchmarks/guard_timeline.py
    attributes a timing's wait to the check in flight."""
    from kernelbenchx.evaluator.parent import watch
    from kernelbenchx.evaluator.parent.gpu_guard import write_timeline

    guard, holding = GpuGuard(timeline=True), threading.Event()

    def check():
        watch.begin("a check")
        watch.at("load")
        with guard.shared():
            holding.set()
            time.sleep(0.3)
        watch.end()

    def timing():
        holding.wait(5)
        watch.begin("a timing")
        watch.at("perf guard")
        with guard.exclusive():
            time.sleep(0.1)
        watch.end()

    run_threads([check, timing])
    write_timeline([guard], tmp_path / "guard.jsonl")
    spans = [json.loads(line) for line in (tmp_path / "guard.jsonl").read_text().splitlines()]
    assert sorted(tuple(s[1:4]) for s in spans) == [("exclusive", "perf guard", "a timing"),
                                                     ("shared", "load", "a check")]
    assert all(len(s) == 7 and s[4] <= s[5] <= s[6] for s in spans)  # gpu, side, doing, task, asked, granted, released
    tool = benchmark("guard_timeline")
    got = tool.breakdown([s[1:] for s in spans])
    assert got["timings"] == 1 and 0.1 <= got["timing waits for: load"] <= 0.35 and got["lane held"] >= 0.09
    # the timing got the lane once the check was done; its one window holds all of the lane's seconds
    assert got["first timing"] >= 0.2 and len(got["lane held per 30 s"]) == 1
    assert abs(got["lane held per 30 s"][0] - got["lane held"]) <= 0.1


def test_the_run_breakdown_sums_each_lane_phase_per_side():
    """benchmarks/run_breakdown.py: the lane's seconds per phase, summed over every perf case of every record, for
    the candidate's process and the baseline's (what run 33's table in docs/performance.md was made from)."""
    tool = benchmark("run_breakdown")
    case = lambda cand, base: {"phases_s": {"candidate": cand, "baseline": base}}  # noqa: E731
    records = [{"stages": {"perf": {"cases": [case({"timing_s": 1.0, "hold_s": 0.3}, {"timing_s": 0.5}),
                                              case({"timing_s": 2.0}, {"timing_s": 0.5, "loop_s": 0.4})]}}},
               {"stages": {"correct": {}}}]  # rejected before its perf stage
    assert tool.lane_phases(records) == {"candidate": {"hold_s": 0.3, "timing_s": 3.0},
                                         "baseline": {"loop_s": 0.4, "timing_s": 1.0}}


def test_the_run_breakdown_counts_records_done_by_each_minute_from_the_first_start():
    tool = benchmark("run_breakdown")
    records = [{"finished_at": "2026-11-29T10:00:30Z", "elapsed_s": 30.0},  # the first start: 10:00:00
               {"finished_at": "2026-11-29T10:01:00Z", "elapsed_s": 20.0},
               {"finished_at": "2026-11-29T10:02:05Z", "elapsed_s": 90.0}]
    assert tool.finished_by(records) == {"60s": 2, "120s": 2, "180s": 3}
    assert tool.finished_by([]) == {}


def test_the_per_timing_comparison_buckets_by_size_and_method_and_names_what_moved():
    """benchmarks/full_submission.py --compare, second line: each case's candidate and eager baseline medians of
    two runs, compared by the timing's size and method; a timing only one run has is left out."""
    from types import SimpleNamespace

    tool = benchmark("full_submission")
    timing = lambda ms, method="cuda_graph": {"median_ms": ms, "method": method}  # noqa: E731

    def run(cand_ms: float, base_ms: float, extra: bool = False) -> list:
        cases = [{"candidate": timing(cand_ms), "baselines": {"eager": timing(base_ms, "eager")}}]
        cases += [{"candidate": timing(0.005), "baselines": {"eager": None}}] if extra else []
        return [SimpleNamespace(task_id="Math/a", stages={"perf": {"cases": cases}}),
                SimpleNamespace(task_id="Math/b", stages={"correct": {}})]  # no perf stage

    got = tool.timing_repeatability(run(0.5, 2.0, extra=True), run(0.55, 2.0))
    assert got["timings_compared"] == 2 and abs(got["max_rel_diff"] - 0.1) < 1e-9
    assert got["by_size"]["0.1-1 ms"]["timings_compared"] == 1 and got["by_size"]["1 ms+"]["max_rel_diff"] == 0
    assert got["graph_replays"]["timings_compared"] == 1 and got["other_methods"]["max_rel_diff"] == 0
    assert got["moved_most"][0] == "Math/a case 0 candidate 0.5 ms (cuda_graph): +10.0%"


def test_a_lane_is_prepared_in_the_background_before_its_first_timing():
    """Run start prepares each GPU's lane (process start, CUDA): its first timing does not pay for it while
    holding the GPU alone. A real server process (on the CPU there is no CUDA to start)."""
    from kernelbenchx.evaluator.parent.references import TrustedServer

    server = TrustedServer("cpu")
    try:
        server.prepare()
        deadline = time.perf_counter() + 60
        while server.child is None and time.perf_counter() < deadline:
            time.sleep(0.01)
        assert server.child is not None  # started without anyone asking for a timing
        assert isinstance(server.call(m.Prepare(), timeout=60), m.Prepared)
    finally:
        server.close()


def test_trusted_servers_share_one_kernel_cache_only_where_candidates_cannot_write_it(tmp_path):
    """PyTorch's run-time compiled kernels (jiterator) go to one folder for all of a run's trusted servers, so
    the lane reads what a reference server compiled; with no layer keeping candidates' writes out (no
    Landlock, no other uid) there is no shared folder: a kernel planted there would run as the baseline."""
    from pathlib import Path

    from kernelbenchx.evaluator import isolation
    from kernelbenchx.evaluator.parent.context import trusted_kernel_cache
    from kernelbenchx.evaluator.parent.references import TrustedServer

    assert trusted_kernel_cache(isolation.Plan(True, None, False, True)) is None
    shared = trusted_kernel_cache(isolation.Plan(False, None, True, False))
    assert shared is not None and shared.is_dir() and (shared.stat().st_mode & 0o077) == 0
    shared.rmdir()
    server = TrustedServer("cpu", kernel_cache=tmp_path)
    try:
        assert isinstance(server.call(m.Prepare(), timeout=60), m.Prepared)
        environ = Path(f"/proc/{server.child.proc.pid}/environ").read_bytes().split(b"\0")
        assert f"PYTORCH_KERNEL_CACHE_PATH={tmp_path}".encode() in environ
    finally:
        server.close()


def test_the_timeline_keeps_each_timing_s_own_hold_when_timings_queue():
    guard = GpuGuard(timeline=True)
    def timing(delay: float) -> None:
        time.sleep(delay)
        with guard.exclusive():
            time.sleep(0.05)

    run_threads([lambda k=k: timing(0.01 * k) for k in range(4)])
    spans = [s for s in guard.spans if s[0] == "exclusive"]
    assert len(spans) == 4 and all(len(s) == 6 for s in spans)
    holds = sorted((s[4], s[5]) for s in spans)
    assert all(a[1] <= b[0] for a, b in zip(holds, holds[1:]))  # one after another, each its own release
    assert all(end - start >= 0.045 for start, end in holds)


def test_a_trusted_server_s_guarded_turn_gives_the_guard_back_between_operations(monkeypatch):
    """A judge's or reference's GPU work asks for the shared guard once, then gives it back and asks again
    every YIELD_S between two operations (a perf-size statistical battery held it tens of seconds), and gives
    it back at the end."""
    from kernelbenchx.evaluator.trusted import server

    sent = []

    class Channel:
        def ask(self, message):
            sent.append(type(message).__name__)
            return m.GpuGranted()

        def reply(self, message):
            sent.append(type(message).__name__)

    monkeypatch.setattr(server, "CHANNEL", Channel())
    monkeypatch.setattr(server, "YIELD_S", 0.05)
    x = torch.ones(4)
    with server.gpu_turn(True) as turn:
        for _ in range(3):
            x = x + 1
            time.sleep(0.06)
    assert float(x[0]) == 4.0 and turn.yields >= 2  # the trusted judge reports them (CheckResult.phases)
    assert sent[0] == "GpuAcquire" and sent[-1] == "GpuRelease"
    assert sent.count("GpuAcquire") == sent.count("GpuRelease") >= 3  # the turn was cycled between operations
    sent.clear()
    with server.gpu_turn(True) as turn:  # quick work: one turn
        x = x + 1
    assert sent == ["GpuAcquire", "GpuRelease"] and turn.yields == 0 and turn.waited >= 0


def test_a_load_s_phases_reach_the_record_only_as_known_numbers():
    """Loaded is sent after candidate code ran in the process: its phases are taken only by name and as numbers
    (import-time code could otherwise write anything into its own record)."""
    from kernelbenchx.evaluator.parent.candidate import load_phases

    forged = m.Loaded(0.01, (), {"cuda_s": 1.5, "confine_s": "fast", "triton_driver_s": float("inf"), "ok": False,
                                 "verdict": "correct"})
    assert load_phases(forged) == {"cuda_s": 1.5}
    assert load_phases(m.Loaded(0.01, (), "not a dict")) == {}


def test_a_candidate_process_reports_where_its_start_went():
    """DeviceOpened carries the real process's boot: the parent records exec (launcher and interpreter start),
    imports, the warm-up's preparation and the wait for a candidate, which together are the time since the spawn;
    anything else, or a value that is not a finite number, is not taken."""
    from kernelbenchx.evaluator.isolation import TRUSTED
    from kernelbenchx.evaluator.parent.candidate import HARNESS, boot_phases
    from kernelbenchx.evaluator.parent.references import device_env
    from kernelbenchx.evaluator.process import Child, Limits

    with Child(HARNESS, Limits(wall_s=120), TRUSTED, env=device_env("cpu", None)) as child:
        time.sleep(0.5)
        opened = child.call(m.OpenDevice("cpu"))
        since_spawn = time.time() - child.spawned_at
    boot = boot_phases(opened, child.spawned_at)
    assert set(boot) == {"exec_s", "imports_s", "prepare_s", "waited_s"} and min(boot.values()) >= 0, boot
    assert boot["imports_s"] > 0.1  # torch, at least
    assert 0.5 * since_spawn < sum(boot.values()) <= since_spawn + 0.01, (boot, since_spawn)
    forged = m.DeviceOpened({"started_at": "now", "imports_s": -1, "prepare_s": float("nan"), "verdict": 1.0})
    assert boot_phases(forged, 5.0) == {"imports_s": 0.0}
    assert boot_phases(m.DeviceOpened("not a dict"), 5.0) == {}


def test_a_malformed_load_reply_is_a_protocol_breach():
    """Loaded's load time and isolation layers go into the record: NaN, a string or a layer kbx does not know
    is PROTOCOL (import-time code could forge the reply), and an honest reply is recorded as sent."""
    from contextlib import nullcontext
    from types import SimpleNamespace

    from kernelbenchx.evaluator.parent import candidate as stages
    from kernelbenchx.evaluator.parent.submission import Candidate

    class Replies:
        spawned_at, forked = 0.0, False

        def __init__(self, loaded):
            self.replies = [m.DeviceOpened(), loaded, m.Symbols(())]

        def call(self, request, **kwargs):
            return self.replies.pop(0)

        def extend_clock(self, seconds):
            pass

    task = get_task("Activation/relu")
    run = SimpleNamespace(device="cpu", config=SimpleNamespace(compile_threads=0, warm_up=False))
    candidate = Candidate(task.id, "code", "test:1")
    for forged in (m.Loaded(float("nan"), ("seccomp",)), m.Loaded("0.1", ("seccomp",)),
                   m.Loaded(0.1, ("seccomp", "everything")), m.Loaded(0.1, "seccomp"), m.Loaded(0.1, (3,))):
        with pytest.raises(Rejected) as raised:
            stages.load(Replies(forged), candidate, task, run, stages.StageLog(), nullcontext)
        assert raised.value.reason is Reason.PROTOCOL and "malformed" in raised.value.message, forged
    log = stages.StageLog()
    stages.load(Replies(m.Loaded(0.1, ("landlock", "seccomp"))), candidate, task, run, log, nullcontext)
    assert log.compile["isolation"] == ["landlock", "seccomp"] and log.compile["import"]["import_s"] == 0.1


def test_a_timing_gets_in_while_a_real_judge_s_long_guarded_work_is_under_way():
    """A real judge process judging a 12.5M-element binomial output (seconds of statistical battery, on the CPU)
    holds the shared guard only for its GPU work, cycled every YIELD_S, and runs the battery after its guarded
    turn: a timing asked for as the judgement starts is granted long before the judgement ends, and the guard is
    free at the end."""
    from kernelbenchx.dataset.cases import run_reference
    from kernelbenchx.evaluator.measure import perf_case
    from kernelbenchx.evaluator.parent.context import judge_gpu_first
    from kernelbenchx.evaluator.parent.references import TrustedServer

    task = get_task("Math/bitwise_and_binomial")
    output = run_reference(task, perf_case.build_case(task, 1, 7, "cpu")[1])
    guard, server = GpuGuard(), TrustedServer("cpu")
    server.gpu = 0
    granted, judged = [], []
    try:
        server.call(m.Prepare(), timeout=60)  # started: the judgement below is not its start-up

        def judge():
            request = m.PerfCheck(task.id, 1, 7, output)
            verdict = judge_gpu_first(lambda req, interim: server.call(req, 300, interim), request, guard.shared)
            judged.append((verdict, time.perf_counter()))

        def timing():
            deadline = time.perf_counter() + 60
            while not guard.sharers and time.perf_counter() < deadline:  # the judge holds the guard now
                time.sleep(0.002)
            asked = time.perf_counter()
            with guard.exclusive():
                granted.append((asked, time.perf_counter()))

        run_threads([judge, timing], timeout=90)
    finally:
        server.close()
    (asked, got), = granted
    (verdict, done), = judged
    assert isinstance(verdict, m.CheckResult) and (verdict.reason, verdict.note) == (None, "")  # as if never paused
    assert verdict.phases["yields"] >= 1 and verdict.phases["turn_s"] > verdict.phases["guard_wait_s"]  # reported
    print(f"timing waited {got - asked:.2f} s; the judgement ended {done - got:.2f} s after it got in")
    # the timing waited for the guarded part, not for the judgement: the battery went on longer without the guard
    # than the timing waited (a fixed "over 1 s" failed on a loaded 2-core host at 0.95 s)
    assert got - asked < done - got
    assert guard.sharers == 0 and not guard.timing


class RecordingChannel:
    """A trusted server's channel to the parent that grants every request and records the messages sent."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    def ask(self, message):
        self.sent.append(type(message).__name__)
        return m.GpuGranted()

    def reply(self, message):
        self.sent.append(type(message).__name__)


def test_a_trusted_server_s_first_guarded_turn_makes_its_slow_imports_before_it_asks_for_the_guard():
    """A dispatch mode's first operation imports torch._dynamo (seconds): that import must not fall inside the
    first guarded turn of a fresh judge or reference server."""
    code = """
import sys, torch
from kernelbenchx.evaluator import messages as m
from kernelbenchx.evaluator.trusted import server
assert "torch._dynamo" not in sys.modules, "the test needs a process that has not imported it yet"
seen = []
class Channel:
    def ask(self, message):
        seen.append("torch._dynamo" in sys.modules)
        return m.GpuGranted()
    def reply(self, message):
        pass
server.CHANNEL = Channel()
with server.gpu_turn(True):
    torch.ones(3) + 1
print(seen)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[True]"


def test_a_perf_judgement_s_battery_runs_after_its_guarded_turn_once_its_gpu_tensors_are_dropped(monkeypatch):
    """server.check defers the statistical battery (host_work.later) until the judge has left its guarded turn
    and dropped its tensors, so that no judge's memory sits beside a timing; the verdict is the battery's."""
    from kernelbenchx.dataset import host_work
    from kernelbenchx.dataset.cases import run_reference
    from kernelbenchx.dataset.stochastic import laws
    from kernelbenchx.evaluator.measure import perf_case
    from kernelbenchx.evaluator.trusted import server

    channel = RecordingChannel()
    monkeypatch.setattr(server, "CHANNEL", channel)
    real = laws.structure_reason

    def battery(*args, **kwargs):
        channel.sent.append("battery")
        return real(*args, **kwargs)

    monkeypatch.setattr(laws, "structure_reason", battery)
    task = get_task("Fusion/fused_dropout_sigmoid_linear")
    output = run_reference(task, perf_case.build_case(task, 0, 7, "cpu")[1])
    verdict = server.check(m.PerfCheck(task.id, 0, 7, output, "cpu", True))
    assert verdict.reason is None and set(verdict.phases) == {"turn_s", "guard_wait_s", "yields", "host_s"}
    assert channel.sent[-3:] == ["GpuAcquire", "GpuRelease", "battery"]
    assert server.check(m.PerfCheck(task.id, 0, 7, torch.zeros_like(output), "cpu", True)).reason  # all dropped

    with host_work.deferring():
        step = laws.mask_reason(torch.zeros(64, dtype=torch.bool), torch.ones(64, dtype=torch.bool), 0.5, "x")
        with pytest.raises(TypeError):
            bool(step)  # a check that tested it would skip its own later steps
        assert host_work.settle(step)  # a reason: nothing dropped at p = 0.5


def test_expected_outputs_are_prefetched_in_submission_order_once_each_and_stop_when_told():
    from kernelbenchx.evaluator.parent.references import prefetch

    asked, stop, release = [], threading.Event(), threading.Event()

    def get(task_id):
        asked.append(task_id)
        if task_id == "b":
            raise RuntimeError("a broken reference is the candidate's to hear about, not the prefetch's end")
        if task_id == "d":
            release.wait(5)
            stop.set()  # the run drained or closed while "d" was computed

    prefetch(get, ["a", "b", "a", "c", "d", "e", "f"], 1, stop)
    deadline = time.monotonic() + 5
    while "d" not in asked and time.monotonic() < deadline:
        time.sleep(0.01)
    release.set()
    time.sleep(0.2)
    assert asked == ["a", "b", "c", "d"]  # in order, duplicates once, past a failure, nothing after the stop


def test_prefetch_threads_share_the_tasks():
    from kernelbenchx.evaluator.parent.references import prefetch

    asked, threads, done = [], set(), threading.Event()
    ids = [f"t{k}" for k in range(12)]

    def get(task_id):
        time.sleep(0.02)
        asked.append(task_id)
        threads.add(threading.get_ident())
        if len(asked) == len(ids):
            done.set()

    prefetch(get, ids, 3, threading.Event())
    assert done.wait(5)
    assert sorted(asked) == sorted(ids) and len(threads) == 3


def test_a_drained_server_pool_waits_for_its_lent_servers_and_lends_none_meanwhile():
    """A timing out of GPU memory drains the GPU's judges: it waits until the judgements running finish, and no
    new one starts until it is done (their perf-size tensors hold the memory it needs)."""
    from kernelbenchx.evaluator.parent.references import ServerPool

    pool, events, release = ServerPool(["a", "b"]), [], threading.Event()

    def judgement():
        with pool.lent():
            events.append("judging")
            release.wait(5)
        events.append("judged")

    def later():
        with pool.lent():
            events.append("new judgement")

    running = threading.Thread(target=judgement)
    running.start()
    while "judging" not in events:
        time.sleep(0.01)
    threading.Timer(0.3, release.set).start()
    waiting = threading.Thread(target=later)
    with pool.drained(5) as done:
        waiting.start()
        time.sleep(0.2)
        events.append("drained" if done else "timed out")
    waiting.join(5)
    running.join(5)
    assert events == ["judging", "judged", "drained", "new judgement"]
    with pool.lent():
        with pool.drained(0.1) as done:  # one still lent: bounded by the timeout
            assert not done


def test_a_server_pool_lends_whichever_server_comes_free_first():
    from kernelbenchx.evaluator.parent.references import ServerPool

    pool = ServerPool(["long", "short-1", "short-2"])
    holds = {"long": 2.0, "short-1": 0.1, "short-2": 0.1}
    got, release = [], threading.Event()

    def borrow():
        with pool.lent() as server:
            got.append(server)
            release.wait(holds[server])

    first = [threading.Thread(target=borrow) for _ in range(3)]
    for t in first:
        t.start()
    time.sleep(0.05)
    started = time.monotonic()
    with pool.lent() as fourth:  # all three lent: the next to come back, not the first in the list
        waited = time.monotonic() - started
    release.set()
    for t in first:
        t.join()
    assert fourth.startswith("short") and waited < 1.0
    assert sorted(got) == ["long", "short-1", "short-2"]


def test_waiting_timings_go_by_priority_then_arrival():
    """While a timing holds the lane, four more queue; they get it highest priority first, equal priorities in the
    order they came (the Condition alone wakes them in any order)."""
    from kernelbenchx.evaluator.parent.gpu_guard import TimingLease

    guard, order = GpuGuard(), []
    release = threading.Event()

    def holder():
        with TimingLease(guard):
            release.wait(5)

    def timing(name, priority):
        with TimingLease(guard, priority):
            order.append(name)

    first = threading.Thread(target=holder)
    first.start()
    while not guard.timing:
        time.sleep(0.001)
    waiting = []
    for name, priority in (("small a", 0.0), ("large", 300.0), ("small b", 0.0), ("medium", 2.0)):
        thread = threading.Thread(target=timing, args=(name, priority))
        thread.start()
        waiting.append(thread)
        while len(guard.queue) < len(waiting):  # queued in this order
            time.sleep(0.001)
    release.set()
    for thread in [first, *waiting]:
        thread.join(5)
    assert order == ["large", "medium", "small a", "small b"] and guard.queue == [] and not guard.timing


def test_lane_priority_counts_the_held_output_elements():
    from kernelbenchx.evaluator.parent.candidate import lane_priority

    assert lane_priority(()) == 0.0
    assert lane_priority(((((1000, 1000), "float32"), ((10,), "int64")), (((2, 500, 1000), "float16"),))) == 2.00001


def test_a_low_priority_timing_is_overtaken_at_most_overtaken_times(monkeypatch):
    """Later high-priority timings go first, but only OVERTAKEN times: then the old one goes, whatever comes."""
    from kernelbenchx.evaluator.parent import gpu_guard

    monkeypatch.setattr(gpu_guard, "OVERTAKEN", 2)
    guard, order = GpuGuard(), []
    holding = {name: threading.Event() for name in ("first", "low", "high1", "high2", "high3")}
    release = {name: threading.Event() for name in holding}

    def timing(name, priority):
        with guard.exclusive(priority):
            order.append(name)
            holding[name].set()
            release[name].wait(5)

    def start(name, priority, waiting):
        thread = threading.Thread(target=timing, args=(name, priority))
        thread.start()
        while len(guard.queue) < waiting:
            time.sleep(0.001)
        return thread

    threads = [start("first", 0.0, 0)]
    holding["first"].wait(5)
    threads += [start("low", 0.0, 1), start("high1", 9.0, 2)]
    for holder, newcomer in (("first", None), ("high1", "high2"), ("high2", "high3")):
        if newcomer:
            threads.append(start(newcomer, 9.0, 2))  # arrives while `holder` holds the lane, `low` waiting
        release[holder].set()
        nxt = "high1" if holder == "first" else ("high2" if holder == "high1" else "low")
        assert holding[nxt].wait(5), (order, nxt)
    release["low"].set()
    release["high3"].set()
    for thread in threads:
        thread.join(5)
    assert order == ["first", "high1", "high2", "low", "high3"] and guard.queue == []


def test_the_profile_summary_counts_busy_stacks_once_per_function():
    """benchmarks/spy_summary.py: a stack whose innermost frame waits is not busy; a function twice on one stack
    (recursion) counts once for it."""
    tool = benchmark("spy_summary")
    lines = ["run (a.py:1);judge (j.py:2);compare (c.py:3) 5\n",
             "run (a.py:1);judge (j.py:2);judge (j.py:9) 2\n",
             "run (a.py:1);Condition.wait (threading.py:355) 7\n", "garbage\n"]
    total, busy, inclusive = tool.busy_functions(lines)
    assert (total, busy) == (14, 7)
    assert inclusive["run a.py"] == 7 and inclusive["judge j.py"] == 7 and inclusive["compare c.py"] == 5
    assert "Condition.wait threading.py" not in inclusive


def test_gpu_clocks_places_samples_in_the_timing_windows_of_their_gpu(tmp_path):
    """benchmarks/gpu_clocks.py: a sample counts for a task only inside its exclusive hold and on its GPU (by uuid);
    the idle reason is not a reason."""
    tool = benchmark("gpu_clocks")
    (tmp_path / "run0").mkdir()
    (tmp_path / "clock_anchor.txt").write_text("2026/11/30 01:00:00.000000 100.0\n")
    rows = [("01:00:01.000", "GPU-aa", 1980, "0x0000000000000001"), ("01:00:01.500", "GPU-aa", 1755, "0x4"),
            ("01:00:01.700", "GPU-bb", 900, "0x40"), ("01:00:03.000", "GPU-aa", 600, "0x4"), ("bad line", "", 0, "")]
    (tmp_path / "gpu_clocks.csv").write_text("".join(
        f"2026/11/30 {t}, {uuid}, {sm}, 3201, 500.5, 40, {mask}\n" if uuid else f"{t}\n" for t, uuid, sm, mask in rows))
    guard = [[0, "exclusive", "perf guard", "A/x", 100.5, 100.9, 102.0], [0, "shared", "load", "A/x", 100, 100, 104]]
    (tmp_path / "guard0.jsonl").write_text("".join(json.dumps(g) + "\n" for g in guard))
    record = {"candidate": {"task_id": "A/x"},
              "stages": {"perf": {"speedup_geomean": {"eager": 1.5}, "gpu": {"uuid": "aa"}}}}
    (tmp_path / "run0" / "results.jsonl").write_text(json.dumps(record) + "\n")
    met, speedups = tool.windows(tmp_path)
    assert speedups == {"A/x": 1.5}
    assert met["A/x"] == tool.Window(2, 1755.0, 1867.5, 500.5, ("sw_power_cap",))
    assert tool.summary(met)["reasons_met"] == {"sw_power_cap": 1}


def test_startup_places_the_first_wave_and_the_first_timing_after_launch(tmp_path):
    """benchmarks/startup.py: record times (UTC) and guard times (perf_counter) land on one clock through the
    anchor; the first wave is the candidates started within WAVE_S of the first; a timing counts when granted."""
    tool = benchmark("startup")
    (tmp_path / "run0").mkdir()
    (tmp_path / "clock_anchor.txt").write_text("2026/11/30 01:00:00.000000 1000.0\n")
    usage = {"run_started_at": 1004.0, "zygotes": {"0": {"ready_at": 1012.5}}}
    (tmp_path / "usage0.json").write_text(json.dumps(usage))

    def record(start_s: float, elapsed: float, exec_s: float, open_s: float, gpu: int) -> dict:
        end = f"2026-11-30T01:00:{start_s + elapsed:02.0f}+00:00"
        return {"finished_at": end, "elapsed_s": elapsed, "stages": {
            "compile": {"boot": {"exec_s": exec_s}, "device_open_s": open_s}, "perf": {"gpu": {"index": gpu}}}}

    rows = [record(5, 30, 8, 6, 0), record(6, 30, 7, 4, 0), record(40, 10, 0.1, 1, 0)]
    (tmp_path / "run0" / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    guard = [[0, "shared", "reference (prefetch)", "A/x", 1013.0, 1013.0, 1014.0],
             [0, "shared", "load", "A/x", 1019.0, 1019.5, 1020.0],
             [0, "exclusive", "perf guard", "A/x", 1024.0, 1025.0, 1026.0]]
    (tmp_path / "guard0.jsonl").write_text("".join(json.dumps(g) + "\n" for g in guard))
    seen = tool.startup(tmp_path)
    assert seen["run_started"] == 4.0 and seen["zygote_ready"] == {"0": 12.5}
    wave = seen["first_wave"]["0"]
    assert wave["candidates"] == 2 and wave["process_ready"] == {"first": 13.0, "median": 13.0, "last": 13.0}
    assert wave["device_opened"] == {"first": 17.0, "median": 18.0, "last": 19.0}
    assert seen["guard_first"] == {"0": {"reference": 13.0, "load": 19.0, "timing": 25.0}}
