"""A check's host-only last step, handed back so that a judge under the GPU's shared guard runs it after its
guarded turn.

The trusted server judges perf-size outputs under that guard (evaluator/trusted/server.py, gpu_turn), so that
no GPU work runs beside a timing. A stochastic task's statistical battery then ran single-threaded on the CPU
for up to half a minute inside the turn (run 24: dropout judges held the guard 40-60 s per candidate while
timings queued), and giving the guard back during it would leave the judge's GPU tensors beside the timing that
took it (tens of GB at perf size: out of memory on an H100, run 26). So checks end with `later(step)`: inside the
server's `deferring()` the step is handed back, and `settle()` runs it once the judge has dropped its tensors and
left its turn. Nothing here imports the evaluator: outside `deferring()`, `later` runs the step at once.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator

_deferring = False


class Deferred:
    """A check's host-only last step, handed back to run later; it must be returned as the check's result (a
    check that tests it as a reason would skip its own later steps: that raises)."""

    def __init__(self, step: Callable[[], Any]) -> None:
        self.step = step

    def __bool__(self) -> bool:
        raise TypeError("a deferred check step must be returned, not tested")


def later(step: Callable[[], Any]) -> Any:
    """`step()` (host-only work, the check's last): now, or inside deferring() handed back for settle()."""
    return Deferred(step) if _deferring else step()


@contextlib.contextmanager
def deferring() -> Iterator[None]:
    """Checks called in this block hand their host-only last steps back (Deferred) for settle()."""
    global _deferring
    before, _deferring = _deferring, True
    try:
        yield
    finally:
        _deferring = before


def settle(result: Any) -> Any:
    """A check's result, its deferred last step run now."""
    return result.step() if isinstance(result, Deferred) else result
