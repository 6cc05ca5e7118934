"""The GPU guard: timing holds a GPU alone, and neither timings nor checks starve the other."""

import threading
import time

from kernelbenchx.evaluator.parent.gpu_guard import GpuGuard


class Log:
    def __init__(self) -> None:
        self.spans: list[tuple[str, float, float]] = []
        self.lock = threading.Lock()

    def work(self, kind: str, seconds: float) -> None:
        start = time.perf_counter()
        time.sleep(seconds)
        with self.lock:
            self.spans.append((kind, start, time.perf_counter()))


def run_threads(targets, stop: threading.Event | None = None) -> None:
    threads = [threading.Thread(target=t, daemon=True) for t in targets]  # daemons: a failure must not hang
    for t in threads:
        t.start()
    deadline = time.perf_counter() + 10
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
