"""Where a run is now: each worker's candidate and stage, and each GPU guard's state. `kill -USR1 <kbx pid>`
prints it to stderr, with every thread's stack (faulthandler), to see what a run that makes no progress waits on.
"""

from __future__ import annotations

import faulthandler
import sys
import threading
import time
from typing import Any

WORKERS: dict[int, list] = {}  # thread id → [candidate key, stage, since (monotonic)]
GUARDS: list[Any] = []  # the run's GPU guards (gpu_guard.GpuGuard)


def begin(key: str) -> None:
    WORKERS[threading.get_ident()] = [key, "start", time.monotonic()]


def at(stage: str) -> None:
    entry = WORKERS.get(threading.get_ident())
    if entry is not None:
        entry[1:] = [stage, time.monotonic()]


def doing() -> tuple[str, str]:
    """The calling worker's stage and task ("" outside a candidate's worker)."""
    entry = WORKERS.get(threading.get_ident())
    return (entry[1], entry[0].split("|")[0]) if entry is not None else ("", "")


def end() -> None:
    WORKERS.pop(threading.get_ident(), None)


def report() -> str:
    now = time.monotonic()
    lines = [f"{len(WORKERS)} candidates in progress:"]
    for key, stage, since in sorted(WORKERS.values(), key=lambda e: e[2]):
        lines.append(f"  {key.split('|')[0]:48s} {stage:24s} for {now - since:7.1f} s")
    for gpu, guard in enumerate(GUARDS):
        lines.append(f"  gpu {gpu} guard: sharers={guard.sharers} timing={guard.timing} "
                     f"timings_waiting={guard.timings_waiting} sharers_waiting={guard.sharers_waiting} "
                     f"sharers_turn={guard.sharers_turn}")
    return "\n".join(lines)


def dump(*_: Any) -> None:
    print(report(), file=sys.stderr, flush=True)
    faulthandler.dump_traceback(sys.stderr, all_threads=True)
