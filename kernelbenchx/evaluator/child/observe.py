"""What the candidate process watches while candidate code runs. It records raw facts; the parent judges.

- ``LaunchCounter``: counts Triton launches (JIT, autotuned and interpreted kernels alike) by wrapping the
  `run` method every launch goes through. Triton's own work inside `run` is not candidate compute, so the
  recorder is paused there — but a grid given as a callable is candidate code, so it runs observed.
- ``OpRecorder``: every aten operator (overload packet) that runs during a call, with its count. Which of
  them count as compute is the parent's decision (parent/observations.py).
- ``intact``: after each call, whether the recorder was still the innermost dispatch mode and the launch
  counter still wrapped Triton; anything else means candidate code reached the observation layer.
- ``left_running``: the threads a call left behind that candidate code could have started (/proc/self/task,
  compared by id before and after; new threads are refused by seccomp as well).
- ``armed``: interval timers and Python signal handlers a call left set: code that would run later, between
  the harness's requests, where no guard holds the GPU for it (a SIGALRM handler could launch work during
  another process's timing, or during this candidate's own baseline's).
- ``processes_left``: processes present after a call that were not there before candidate code ran (a process
  outlives the call that started it and runs between requests as a signal handler would).
- ``install_audit_hook`` / ``block_imports``: in-process guards kept as a second layer below the OS one.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import Any, Callable

import torch
from torch.utils._python_dispatch import TorchDispatchMode, _disable_current_modes

from kernelbenchx.dataset.views import guard_allocation

SYNC_SYMBOLS = ("torch.cuda.synchronize", "torch.cuda.Event.record", "torch.cuda.Event.elapsed_time",
                "torch.cuda.Event.synchronize", "torch.cuda.Event.query", "torch.cuda._sleep",
                "torch.cuda.current_stream", "torch.Tensor.clone", "torch.Tensor.copy_", "torch.Tensor.fill_",
                "torch.equal", "time.perf_counter")
# What the harness reads a timed output through: its digest (a held output's, compared with what is fetched
# later), its sampled values and its fingerprint. A replaced one could hand the harness repaired bytes: a
# `hashlib.sha256` whose update() rewrites the buffer it is given makes the held copy and its digest agree on
# an output the timed kernel never produced.
OUTPUT_SYMBOLS = ("hashlib.sha256", "builtins.memoryview", "torch.Tensor.numpy", "torch.Tensor.to",
                  "torch.Tensor.detach", "torch.Tensor.contiguous", "torch.Tensor.reshape", "torch.Tensor.view",
                  "torch.Tensor.__getitem__", "torch.Tensor.double", "torch.Tensor.sum", "torch.Tensor.mul",
                  "torch.randint", "torch.view_as_real", "torch.empty", "torch.Tensor.copy_")


class OpRecorder(TorchDispatchMode):
    """Counts aten overload packets executed while active; with `guard`, tensors allocated get a guard band
    (views.guard_allocation) and are kept in `allocations` to be checked for writes past their end."""

    def __init__(self, guard: bool = False) -> None:
        super().__init__()
        self.ops: dict[str, int] = {}
        self.guard = guard
        self.allocations: list[torch.Tensor] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func.overloadpacket.__name__
        self.ops[name] = self.ops.get(name, 0) + 1
        out = func(*args, **(kwargs or {}))
        return guard_allocation(func, out, self.allocations) if self.guard else out


class LaunchCounter:
    """Wraps the `run` methods Triton uses for every launch; counts launches and keeps grid callables observed."""

    def __init__(self) -> None:
        self.count = 0
        self.recorder: OpRecorder | None = None  # the recorder of the call in progress
        self.wrapped: dict[type, Callable] = {}

    def install(self) -> None:
        from triton.runtime import jit

        classes: list[type] = [jit.JITFunction]
        try:
            from triton.runtime.interpreter import InterpretedFunction
            classes.append(InterpretedFunction)
        except ImportError:
            pass
        for cls in classes:
            self.wrap(cls)

    def wrap(self, cls: type) -> None:
        original = cls.run
        counter = self

        def run(fn_self: Any, *args: Any, **kwargs: Any) -> Any:
            counter.count += 1
            grid = kwargs.get("grid")
            if callable(grid) and counter.recorder is not None:
                kwargs["grid"] = counter.observed(grid)
            with _disable_current_modes():  # Triton's own tensor handling is not candidate compute
                return original(fn_self, *args, **kwargs)

        run.__wrapped__ = original
        cls.run = run
        self.wrapped[cls] = run

    def observed(self, fn: Callable) -> Callable:
        recorder = self.recorder

        def call(*args: Any, **kwargs: Any) -> Any:
            with recorder:
                return fn(*args, **kwargs)

        return call

    def installed(self) -> bool:
        return all(cls.run is run for cls, run in self.wrapped.items())


def recorder_innermost(recorder: OpRecorder) -> bool:
    """Whether `recorder` is the innermost active dispatch mode (nothing pushed above it, nothing popped)."""
    depth = torch._C._len_torch_dispatch_stack()
    return depth > 0 and torch._C._get_dispatch_stack_at(depth - 1) is recorder


class Guards:
    """What the in-process guards saw: threads candidate code tried to start, operations the audit hook
    refused. Reset before each call; reported raw in the call's Observation."""

    def __init__(self) -> None:
        self.thread_attempts = 0
        self.refused: list[str] = []

    def reset(self) -> None:
        self.thread_attempts, self.refused = 0, []


GUARDS = Guards()


def count_thread_starts() -> None:
    """Wrap Python's thread-start primitives so every attempt is counted, whether or not it succeeds."""
    import _thread

    for module, name in ((_thread, "start_new_thread"), (_thread, "start_joinable_thread"),
                         (threading, "_start_new_thread"), (threading, "_start_joinable_thread")):
        original = getattr(module, name, None)
        if original is None:
            continue

        def start(*args: Any, _original: Callable = original, **kwargs: Any) -> Any:
            GUARDS.thread_attempts += 1
            return _original(*args, **kwargs)

        setattr(module, name, start)


def thread_ids() -> frozenset[str]:
    """The process's threads (kernel ids from /proc, else Python's own threads)."""
    try:
        return frozenset(os.listdir("/proc/self/task"))
    except OSError:
        return frozenset(str(t.ident) for t in threading.enumerate())


def left_running(before: frozenset[str], filtered: bool) -> frozenset[str]:
    """Threads running now that were not in `before` and that candidate code may have started. With the seccomp
    filter in force (`filtered`) no confined thread can start a thread, and a new thread inherits its creator's
    filter: one without it was started by a thread that predates the confinement, the CUDA driver's helpers,
    which start threads of their own now and then (a correct selu was rejected for "1 extra thread", run 65).
    A thread that ended before it could be read was not left running, nor one the kernel is ending (PF_EXITING:
    it never returns to user space): a compile thread joined by Python still showed in /proc after 2000 polls, in
    one warm-up of run 66, on its way out of the kernel."""
    kept = set()
    for tid in thread_ids() - before:
        mode = seccomp_mode(tid)
        if mode is not None and not (filtered and mode == 0) and not exiting(tid):
            kept.add(tid)
    return frozenset(kept)


PF_EXITING = 0x4  # <linux/sched.h>: set by do_exit() before anything else


def exiting(tid: str) -> bool:
    """The kernel is ending the thread (its flags in /proc, field 9 of stat, after the name in parentheses), or
    has ended it: a thread listed a moment ago whose stat is gone is not running."""
    try:
        with open(f"/proc/self/task/{tid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
        return bool(int(fields[6]) & PF_EXITING)
    except OSError:
        return not os.path.exists(f"/proc/self/task/{tid}")
    except (ValueError, IndexError):
        return False


def seccomp_mode(tid: str) -> int | None:
    """The thread's seccomp mode from /proc (0 none, 2 filter; -1 when not reported), None once it has ended."""
    try:
        with open(f"/proc/self/task/{tid}/status") as status:
            for line in status:
                if line.startswith("Seccomp:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None if not os.path.exists(f"/proc/self/task/{tid}") else -1
    return -1


# bound when kbx is imported, before candidate code runs
_getitimer, _getsignal, _valid_signals = signal.getitimer, signal.getsignal, signal.valid_signals
TIMERS = (("ITIMER_REAL", signal.ITIMER_REAL), ("ITIMER_VIRTUAL", signal.ITIMER_VIRTUAL),
          ("ITIMER_PROF", signal.ITIMER_PROF))
UNCATCHABLE = frozenset({signal.SIGKILL, signal.SIGSTOP})


def signal_handlers() -> dict[int, Any]:
    """This process's Python signal handlers, taken before candidate code runs (armed() compares with them)."""
    return {int(sig): _getsignal(sig) for sig in _valid_signals() if sig not in UNCATCHABLE}


def timers_armed() -> frozenset[str]:
    return frozenset(name for name, which in TIMERS if _getitimer(which) != (0.0, 0.0))


def armed(before: dict[int, Any], timers_before: frozenset[str]) -> tuple[str, ...]:
    """What is set now that would run code later, outside any request: an interval timer not armed before, or a
    Python signal handler that is not the one `before` had."""
    found = sorted(timers_armed() - timers_before)
    for sig, handler in before.items():
        now = _getsignal(sig)
        if now is not handler:
            where = getattr(now, "__module__", None) or type(now).__name__
            found.append(f"a handler of {signal_name(sig)} ({where}.{getattr(now, '__qualname__', '?')})"[:200])
    return tuple(found)


def signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:  # real-time signals have no name
        return f"signal {sig}"


def processes() -> frozenset[int]:
    """This process's children. The harness is their subreaper (boot.become_subreaper): a process started by a
    candidate's child that outlives it comes back here as well."""
    found: set[int] = set()
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/children") as children:
                found |= {int(pid) for pid in children.read().split()}
        except (OSError, ValueError):
            pass
    return frozenset(found)


def processes_left(before: frozenset[int]) -> tuple[str, ...]:
    """The children present now and not `before` (taken before candidate code ran), as "name (pid)" `with_state`
    (a zombie nobody reaped counts: something started it). Landlock
    keeps other processes' /proc files from this one: those are named by their pid alone."""
    left = []
    for pid in sorted(processes() - before):
        try:
            with open(f"/proc/{pid}/stat") as stat:
                text = stat.read()
            name, state = text[text.index("(") + 1:text.rindex(")")], text.rpartition(")")[2].split()[0]
        except FileNotFoundError:
            continue  # it ended and was reaped between the listing and the read
        except (OSError, ValueError, IndexError):
            left.append(f"process ({pid})")
            continue
        left.append(with_state(f"{name} ({pid})", state))
    return tuple(left)


def with_state(name: str, state: str) -> str:
    """`name`, with the scheduler's state when it is neither running nor plain sleep (R and S flip with every
    wake-up): stuck in the kernel (D), stopped (T), a zombie (Z)."""
    return name if state in ("R", "S") else f"{name} [{state}]"


def thread_names(ids: frozenset[str]) -> tuple[str, ...]:
    """Names of threads `ids` (what created a thread left behind: a driver's helper, a pool), sorted, each
    `with_state`."""
    names = []
    for tid in ids:
        try:
            with open(f"/proc/self/task/{tid}/comm") as comm:
                name = comm.read().strip()
            with open(f"/proc/self/task/{tid}/stat") as stat:
                state = stat.read().rpartition(")")[2].split()[0]
            names.append(with_state(name, state))
        except (OSError, IndexError):
            names.append(f"thread {tid}")
    return tuple(sorted(names))


def caller_is_candidate(candidate_file: str) -> bool:
    """True when the nearest frame from candidate code or a trusted library is the candidate's."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if name == candidate_file:
            return True
        if "/triton/" in name or "/torch/" in name or "/kernelbenchx/" in name:
            return False
        frame = frame.f_back
    return False


BLOCKED_EVENTS = ("os.fork", "os.forkpty", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
                  "subprocess.Popen", "ctypes.dlopen", "ctypes.dlsym", "ctypes.cdata", "socket.",
                  "os.kill", "os.killpg", "signal.", "sys.setprofile", "sys.settrace", "os.chdir",
                  "sys.addaudithook", "cpython.run_", "os.putenv", "os.unsetenv", "os.add_dll_directory",
                  "mmap.__new__", "os.truncate", "os.remove", "os.rename", "os.rmdir", "shutil.")


def install_audit_hook(candidate_file: str, workdir: str) -> None:
    """Refuse dangerous events raised from candidate code (irremovable once added)."""
    workdir = os.path.realpath(workdir)

    def hook(event: str, args: tuple) -> None:
        if event == "open" and len(args) >= 2 and isinstance(args[1], str) and any(c in args[1] for c in "wax+"):
            path = args[0] if isinstance(args[0], str) else None
            if path and not os.path.realpath(path).startswith(workdir) and caller_is_candidate(candidate_file):
                GUARDS.refused.append(f"open {path} for writing")
                raise PermissionError(f"kbx sandbox: writing {path} is not allowed")
        elif event.startswith(BLOCKED_EVENTS) and caller_is_candidate(candidate_file):
            GUARDS.refused.append(event)
            raise PermissionError(f"kbx sandbox: {event} is not allowed")

    sys.addaudithook(hook)


class ReferenceBlocker:
    """A meta-path finder that refuses kbx's own modules to candidate code."""

    def __init__(self, candidate_file: str) -> None:
        self.candidate_file = candidate_file

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if (name == "kernelbenchx" or name.startswith("kernelbenchx.")) and caller_is_candidate(self.candidate_file):
            GUARDS.refused.append(f"import {name}")
            raise ImportError(f"kbx sandbox: importing {name} is not allowed")
        return None


def block_imports(candidate_file: str) -> None:
    """Forget kbx's modules (so an import must go through the finder) and install the blocker."""
    for name in list(sys.modules):
        if name == "kernelbenchx" or name.startswith("kernelbenchx."):
            del sys.modules[name]
    sys.meta_path.insert(0, ReferenceBlocker(candidate_file))


def resolve_symbol(path: str) -> Any:
    module_name, *attrs = path.split(".")
    obj = sys.modules.get(module_name) or __import__(module_name)
    for attr in attrs:
        obj = getattr(obj, attr)
    return obj


def symbol_snapshot(extra: dict[str, Any] | None = None) -> dict[str, int]:
    """ids of the functions timing and checking rely on; any change means monkeypatching."""
    snap = {path: id(resolve_symbol(path)) for path in SYNC_SYMBOLS + OUTPUT_SYMBOLS
            if torch.cuda.is_available() or not path.startswith("torch.cuda")}
    for name, obj in (extra or {}).items():
        snap[name] = id(obj)
        code = getattr(obj, "__code__", None)
        if code is not None:
            snap[name + ".__code__"] = id(code)
    return snap


def changed_symbols(before: dict[str, int], extra: dict[str, Any] | None = None) -> list[str]:
    after = symbol_snapshot(extra)
    return sorted(k for k in before if after.get(k) != before[k])
