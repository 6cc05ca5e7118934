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
