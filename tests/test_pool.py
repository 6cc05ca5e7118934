"""The warm-process pool: a start that fails (a run being interrupted) is dropped quietly, not raised in the
refill thread, and the pool never hands out a process it could not start."""

from kernelbenchx.evaluator.parent.pool import ProcessPool
from kernelbenchx.evaluator.process import ChildFailed


class FailingChild:
    closed = False

    def start(self):
        raise ChildFailed("crash", "the run is being interrupted")

    def close(self):
        self.closed = True


def test_refill_drops_a_child_whose_start_fails():
    made = []
    pool = ProcessPool(lambda key: made.append(FailingChild()) or made[-1], depth=2)
    pool.warm([None])
    assert len(made) == 2 and all(c.closed for c in made)
    assert not pool.idle[None]


class QuietChild:
    def __init__(self, key):
        self.key, self.closed = key, False

    def start(self):
        pass

    def restart_clock(self, wall_s):
        pass

    def close(self):
        self.closed = True


def test_a_pool_with_a_budget_never_holds_more_processes_than_candidates_left():
    """A run of 5 candidates on 2 GPUs with room for 8 per GPU starts 5 processes, spread over the GPUs; a take
    starts no replacement while every candidate left has one, except for a GPU left with none (the next candidate
    may go there); without a budget the pool fills and refills."""
    import time

    made = []

    def make(key):
        made.append(QuietChild(key))
        return made[-1]

    def settle():
        time.sleep(0.2)  # the refill threads have decided

    pool = ProcessPool(make, depth=8, budget=5)
    pool.warm([0, 1])
    assert [c.key for c in made] == [0, 1, 0, 1, 0]
    for key in (0, 1, 0):
        with pool.take(key, 60.0) as child:
            assert child.key == key
        settle()
        assert len(made) == 5
    with pool.take(1, 60.0):  # GPU 1's last, one take to come: GPU 1 gets a spare
        pass
    settle()
    assert len(made) == 6 and made[-1].key == 1
    with pool.take(0, 60.0):
        pass
    settle()
    assert len(made) == 6 and pool.unclaimed == 0 and sum(c.closed for c in made) == 5
    with pool.take(1, 60.0) as extra:  # a take beyond the budget still gets a process
        assert extra is made[-1]
    pool.close()
    made.clear()
    unbounded = ProcessPool(make, depth=2)
    unbounded.warm([None])
    with unbounded.take(None, 60.0):
        pass
    time.sleep(0.2)
    assert len(made) == 3 and len(unbounded.idle[None]) == 2
    unbounded.close()


def test_waiting_for_the_gpu_guard_is_given_back_to_the_candidates_clock():
    from kernelbenchx.evaluator.process import Child

    child = Child.__new__(Child)
    child.restart_clock(60.0)
    before = child.deadline
    child.extend_clock(12.5)
    child.extend_clock(-3.0)  # never shortened
    assert child.deadline == before + 12.5


def test_the_parent_keeps_its_threads_off_the_timing_cores_and_gives_its_cores_back():
    import os
    import threading

    from kernelbenchx.evaluator.parent.context import pin_to

    everything = os.sched_getaffinity(0)
    one = {min(everything)}
    seen = []
    before = pin_to(one)
    try:
        thread = threading.Thread(target=lambda: seen.append(os.sched_getaffinity(0)))
        thread.start()
        thread.join()
        assert os.sched_getaffinity(0) == one and seen == [one]  # threads started later inherit it
    finally:
        pin_to(before)
    assert before == everything and os.sched_getaffinity(0) == everything
    assert pin_to(()) is None  # no plan (the CPU path, small hosts): nothing moves


def test_each_gpu_times_on_whole_physical_cores_at_the_end_of_the_affinity(monkeypatch):
    """Two CPUs per GPU for its lane and the candidate it times, every other CPU for the rest; on an SMT host both
    threads of one core (a timing loop beside a compile on its core's other thread runs slower by up to half)."""
    import os

    from kernelbenchx.evaluator.parent.context import CpuPlan, core_siblings

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(32)))
    alone = lambda cpu: frozenset({cpu})  # noqa: E731
    plan = CpuPlan.for_host(2, alone)
    assert plan.timing == ((28, 29), (30, 31)) and plan.work == tuple(range(28))
    split = lambda cpu: frozenset({cpu % 16, cpu % 16 + 16})  # noqa: E731 - siblings 0 and 16, 1 and 17, ...
    plan = CpuPlan.for_host(2, split)
    assert plan.timing == ((14, 30), (15, 31)) and set(plan.work) == set(range(32)) - {14, 15, 30, 31}
    adjacent = lambda cpu: frozenset({cpu - cpu % 2, cpu - cpu % 2 + 1})  # noqa: E731 - siblings 0 and 1, ...
    assert CpuPlan.for_host(1, adjacent).timing == ((30, 31),)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(16)))  # one thread of each core (taskset)
    assert CpuPlan.for_host(1, split).timing == ((14, 15),)
    assert CpuPlan.for_host(4, alone) == CpuPlan()  # too few cores to reserve any
    quad = lambda cpu: frozenset(range(cpu - cpu % 8, cpu - cpu % 8 + 8))  # noqa: E731 - 8 threads a core
    assert CpuPlan.for_host(2, quad) == CpuPlan()  # reserving whole cores would leave the work too few CPUs
    assert 0 in core_siblings(0)  # sysfs, or the CPU alone where it says nothing


def test_automatic_workers_scale_with_the_gpus_used_and_the_cores(monkeypatch):
    """--workers 0: 20 per GPU used, at most 5 per 4 cores; one per core (at most 8) on the CPU; a number given
    is kept."""
    import os

    import torch

    from kernelbenchx.evaluator.parent.context import RunConfig

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 4)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(64)))
    assert RunConfig().resolved_workers() == 80
    assert RunConfig(device="cuda:2").resolved_workers() == 20
    assert RunConfig(device="cpu").resolved_workers() == 8
    assert RunConfig(workers=3).resolved_workers() == 3
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(16)))
    assert RunConfig().resolved_workers() == 20
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 8)
    assert RunConfig(device="cuda").resolved_workers() == 20
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(2)))
    assert RunConfig(device="cpu").resolved_workers() == 2
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert RunConfig().resolved_workers() == 2


def test_compile_slots_let_the_first_candidates_compile_first_and_never_block_for_long(monkeypatch):
    """Automatic slots: the cores over each warm-up's compile threads. A candidate without a slot waits for one;
    past COMPILE_SLOT_WAIT_S it compiles without one (and gives back nothing it did not take)."""
    import os
    import threading
    import time

    import pytest

    from kernelbenchx.errors import UsageError
    from kernelbenchx.evaluator.parent import context
    from kernelbenchx.evaluator.parent.context import Slots, RunConfig

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(16)))
    assert RunConfig().resolved_compile_slots() == 4 and RunConfig(compile_threads=1).resolved_compile_slots() == 16
    assert RunConfig(compile_slots=2).resolved_compile_slots() == 2
    monkeypatch.setattr(os, "cpu_count", lambda: 32)  # a two-GPU host, this run under taskset on 16 cores
    assert RunConfig().resolved_compile_slots() == 4
    with pytest.raises(UsageError):
        RunConfig(compile_slots=-1).resolved_compile_slots()
    for bad in (RunConfig(compile_slots=-2), RunConfig(compile_threads=-1), RunConfig(compile_threads=33)):
        with pytest.raises(UsageError):
            bad.check()
    RunConfig(compile_slots=8, compile_threads=0).check()

    slots, order = Slots(1), []
    first_in, release = threading.Event(), threading.Event()

    def first() -> None:
        with slots.slot() as waited:
            order.append(("first", waited))
            first_in.set()
            release.wait(5)

    holder = threading.Thread(target=first)
    holder.start()
    first_in.wait(5)
    threading.Timer(0.3, release.set).start()
    with slots.slot() as waited:
        order.append(("second", waited))
    holder.join()
    assert order[0] == ("first", 0.0) and order[1][0] == "second" and order[1][1] >= 0.25

    monkeypatch.setattr(context, "COMPILE_SLOT_WAIT_S", 0.1)
    with slots.slot():
        started = time.perf_counter()
        with slots.slot() as waited:  # none free: compiles without one after the wait
            assert 0.09 <= waited and time.perf_counter() - started < 1
    with slots.slot() as waited, slots.slot() as then:  # the slot-less one gave nothing back: still one slot
        assert waited < 0.05 and then >= 0.09


def test_candidates_go_to_the_gpu_with_the_fewest_in_flight():
    """Spread by key alone, one GPU of two got 52 of 89 candidates (run 42). In flight counts decide; a
    candidate's key only breaks ties, and a finished candidate frees its GPU."""
    from contextlib import ExitStack

    from kernelbenchx.evaluator.parent.context import GpuSpread

    spread = GpuSpread(2)
    with ExitStack() as held:
        placed = [held.enter_context(spread.take(f"key{k}")) for k in range(10)]
        assert sorted(placed.count(g) for g in (0, 1)) == [5, 5] and spread.busy == [5, 5]
        with spread.take("one more") as extra:
            assert spread.busy[extra] == 6
        assert spread.busy == [5, 5]
    assert spread.busy == [0, 0]
    with spread.take("a") as first:
        with spread.take("b") as second:
            assert {first, second} == {0, 1}
    firsts = set()
    for k in range(40):  # on an idle host the key picks: first candidates go to both GPUs
        with spread.take(f"k{k}") as gpu:
            firsts.add(gpu)
    assert firsts == {0, 1}
    with GpuSpread(0).take("cpu") as none:
        assert none is None


def test_device_opens_take_turns_in_the_order_they_asked_and_the_wait_is_recorded():
    """RunConfig.device_opens: with one turn, a second process's open waits for the first one's to end; its wait
    is recorded apart from the open and given back to its clock. Without a limit nothing waits or is recorded."""
    import threading
    import time
    from types import SimpleNamespace

    import pytest

    from kernelbenchx.errors import UsageError
    from kernelbenchx.evaluator import messages as m
    from kernelbenchx.evaluator.parent.candidate import StageLog, open_device
    from kernelbenchx.evaluator.parent.context import DEVICE_OPEN_WAIT_S, RunConfig, Slots

    class Child:
        def __init__(self, name: str, seconds: float, order: list) -> None:
            self.name, self.seconds, self.order, self.extended = name, seconds, order, 0.0

        def extend_clock(self, seconds: float) -> None:
            self.extended += seconds

        def call(self, request):
            assert isinstance(request, m.OpenDevice)
            self.order.append(("in", self.name))
            time.sleep(self.seconds)
            self.order.append(("out", self.name))
            return m.DeviceOpened()

    order: list = []
    run = SimpleNamespace(device="cuda", device_opens=Slots(1, wait_s=DEVICE_OPEN_WAIT_S))
    first, second = Child("first", 0.3, order), Child("second", 0.0, order)
    logs = {name: StageLog() for name in ("first", "second")}
    holder = threading.Thread(target=open_device, args=(first, run, logs["first"]))
    holder.start()
    while not order:
        time.sleep(0.01)
    open_device(second, run, logs["second"])
    holder.join()
    assert order == [("in", "first"), ("out", "first"), ("in", "second"), ("out", "second")]
    assert logs["first"].compile["device_open_wait_s"] == 0.0 and logs["first"].compile["device_open_s"] >= 0.25
    assert logs["second"].compile["device_open_wait_s"] >= 0.2 and second.extended >= 0.2
    alone = StageLog()
    open_device(Child("alone", 0.0, []), SimpleNamespace(device="cuda"), alone)
    assert "device_open_wait_s" not in alone.compile and "device_open_s" in alone.compile
    for wrong in (-1, 65):
        with pytest.raises(UsageError):
            RunConfig(device_opens=wrong).check()
    RunConfig(device_opens=4).check()
