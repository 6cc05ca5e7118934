"""The quiet host (parent/host_quiet.py): while a timing measures host time, the other candidate processes are
stopped and the time is given back to their clocks; trusted processes and the one being timed run on."""

import threading
import time
from pathlib import Path

from kernelbenchx.evaluator import messages as m
from kernelbenchx.evaluator.isolation import TRUSTED
from kernelbenchx.evaluator.measure import protocol as timing
from kernelbenchx.evaluator.parent.host_quiet import HostQuiet
from kernelbenchx.evaluator.process import Child, Limits


def state(child: Child) -> str:
    """The process's scheduler state letter (T: stopped)."""
    return Path(f"/proc/{child.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


def until(condition, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.01)


def child(role: str, candidate: bool = True) -> Child:
    return Child("tests.quiet_child", Limits(wall_s=60), TRUSTED, env={"KBX_TEST_ROLE": role}, candidate=candidate)


def test_bystanders_are_stopped_during_a_quiet_timing_and_get_the_time_back():
    quiet, replies = HostQuiet(), {}
    with child("timed") as timed, child("bystander") as bystander, child("trusted", candidate=False) as trusted:
        for c in (bystander, trusted):  # started: each answers a first request
            assert c.call(m.Verify(), timeout=30) == m.Symbols(("done",))

        def time_it():
            with quiet.timing(timed):
                replies["timed"] = timed.call(m.Verify(), timeout=30, interim=quiet.interim(timed))

        thread = threading.Thread(target=time_it)
        thread.start()
        until(lambda: quiet.holders)
        until(lambda: state(bystander) == "T")  # a signal takes effect a moment after it is sent
        assert state(trusted) != "T" and state(timed) != "T"
        # 0.2 s of work inside a 1.2-second limit, most of it spent stopped: still answered in time
        replies["bystander"] = bystander.call(m.Verify(), timeout=1.2)
        thread.join()
        assert replies == {"timed": m.Symbols(("done",)), "bystander": m.Symbols(("done",))}
        assert state(bystander) != "T" and not quiet.stopped and not quiet.holders
        assert 1.0 < bystander.stopped_s < 5 and timed.stopped_s == 0 and trusted.stopped_s == 0
        assert quiet.quiet_s > 2.0


def test_a_quiet_ends_after_its_cap_and_with_its_timing():
    quiet = HostQuiet(max_s=0.3)
    with child("bystander") as bystander, child("timed") as timed:
        quiet.hold("lane 0")
        until(lambda: state(bystander) == "T" and state(timed) == "T")
        with quiet.timing(timed):  # the one to be timed is continued, and never stopped while it is timed
            until(lambda: state(timed) != "T")
            until(lambda: state(bystander) != "T")  # the cap
            assert quiet.interim(timed)(m.HostQuiet(True)) == m.Quieted()
            until(lambda: state(bystander) == "T")
        until(lambda: state(bystander) != "T")  # its timing ended: so did the quiet it asked for
    assert HostQuiet(enabled=False).interim("x")(m.HostQuiet(True)) == m.Quieted()  # off: answered, nothing stopped


def test_a_candidate_that_keeps_asking_stops_no_one_past_its_allowance():
    quiet = HostQuiet(candidate_s=0.2)
    with child("timed") as timed, child("bystander") as bystander:
        with quiet.timing(timed):
            ask = quiet.interim(timed)
            ask(m.HostQuiet(True))
            until(lambda: state(bystander) == "T")
            time.sleep(0.3)
            ask(m.HostQuiet(False))
            until(lambda: state(bystander) != "T")
            assert ask(m.HostQuiet(True)) == m.Quieted()  # answered, but its allowance is spent
            time.sleep(0.2)
            assert state(bystander) != "T" and not quiet.holders
        quiet.hold("lane 0")  # a lane (trusted) has no allowance
        until(lambda: state(bystander) == "T")
        quiet.release("lane 0")


def test_only_eager_sample_loops_ask_for_a_quiet_host(monkeypatch):
    monkeypatch.setattr(timing.torch.cuda, "synchronize", lambda *a, **k: None)
    monkeypatch.setattr(timing, "L2Flusher", lambda: (lambda: None))

    from tests.test_measure import FakeEvent

    monkeypatch.setattr(timing, "CLOCK", timing.DeviceClock.of(FakeEvent, lambda: None, lambda cycles: None))
    asked = []
    protocol = timing.Protocol(warmup=1, min_reps=3, max_reps=3, use_graphs=False)
    timing.time_case(lambda x: x + 1, [((1,), {})], protocol, quiet_host=asked.append)
    assert asked == [True, False]
