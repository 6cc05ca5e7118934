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
