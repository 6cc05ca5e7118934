"""A fresh child process per job, driven over pipes the parent owns, with OS limits, isolation and a kill switch.

Parent → child: message frames on the child's stdin. Child → parent: frames on a dedicated pipe whose write
end is the only descriptor passed; the child marks it non-inheritable before running any other code, so its
own subprocesses cannot write to it. Frames are decoded by messages.decode (typed, `weights_only`). The
child's stdout and stderr go to size-limited files in its private temporary directory, never to the channel.

The child starts in its own session (start_new_session), as nobody when kbx runs as root, inside new
namespaces where the host allows them (isolation.Plan); it sets its own rlimits as its first act (from
KBX_LIMITS, before importing anything heavy: child/__main__.py), so nothing runs between fork and exec. With a fork
server (forkserver.py) the process is forked from a zygote instead and takes on the same shape itself before it
serves (child/zygote.py); when the zygote cannot serve, the process is exec'd as above. Replies
are awaited with `selectors` against a deadline; on a timeout or protocol error the whole process group is killed.
A child may also get a shared region for large tensors (bulk.py), passed like the reply pipe.
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from kernelbenchx.evaluator import bulk, messages
from kernelbenchx.evaluator.isolation import Plan

if TYPE_CHECKING:
    from kernelbenchx.evaluator.forkserver import ForkedProcess, ForkServer


@dataclass(frozen=True)
class Limits:
    wall_s: float = 300.0  # whole life of the child (restart_clock gives a new allowance per phase)
    cpu_s: int = 600
    file_bytes: int = 64 << 20  # largest file the child may write (stdout/stderr logs included)
    open_files: int = 1024
    processes: int = 4096  # RLIMIT_NPROC counts every process of the user; root ignores it
    address_space: int | None = None  # CUDA needs a huge virtual address space: leave unset on GPUs


LIVE: "weakref.WeakSet[Child]" = weakref.WeakSet()
LIVE_LOCK = threading.Lock()
STOPPING = threading.Event()  # set by kill_all: no new child starts until the next run resets it


def kill_all() -> None:
    """Kill every live child (an interrupted run): their workers return at once; none starts again."""
    STOPPING.set()
    with LIVE_LOCK:
        children = list(LIVE)
    for child in children:
        child.kill()


def reset() -> None:
    STOPPING.clear()


class ChildFailed(Exception):
    """The child died, hung or broke the protocol. `kind` is timeout, crash or protocol."""

    def __init__(self, kind: str, message: str, stderr: str = "") -> None:
        super().__init__(message)
        self.kind, self.stderr = kind, stderr


def scrubbed_env(workdir: Path, extra: dict[str, str]) -> dict[str, str]:
    """Only what Python, torch and triton need; nothing of the parent's (no seeds, no paths to data)."""
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(workdir), "TMPDIR": str(workdir),
           "USER": "kbx", "LOGNAME": "kbx",  # getpass.getuser() without a passwd lookup (the uid may have none)
           "TRITON_CACHE_DIR": str(workdir / ".triton"), "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
           "OMP_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}
    for key in ("CUDA_HOME", "LD_LIBRARY_PATH", "TRITON_PTXAS_PATH", "NVIDIA_VISIBLE_DEVICES",
                "NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST", "NVSHMEM_DISABLE_NVLS"):
        if key in os.environ:
            env[key] = os.environ[key]
    env.update(extra)
    return env


class Child:
    """One child process running ``python -m <module> <fd>``; use as a context manager."""

    def __init__(self, module: str, limits: Limits, plan: Plan, env: dict[str, str] | None = None,
                 candidate: bool = False, bulk_region: tuple[str, int] | None = None,
                 forks: "ForkServer | None" = None) -> None:
        self.module, self.limits, self.plan, self.extra_env = module, limits, plan, env or {}
        self.forks = forks  # a zygote to fork the process from (forkserver.py); it is exec'd when that cannot serve
        self.forked = False
        self.bulk_region = bulk_region  # (direction, bytes) of a shared region for large tensors (bulk.py)
        self.region: bulk.Region | None = None
        self.candidate = candidate  # runs candidate code: stopped while another candidate's host-bound timing runs
        self.stopped_s = 0.0  # seconds the parent kept it stopped (parent/host_quiet.py), given back to its clocks
        self.stopped_since: float | None = None  # when the stop in force began
        self.workdir = Path(tempfile.mkdtemp(prefix="kbx-"))
        self.proc: "subprocess.Popen | ForkedProcess | None" = None
        self.spawned_at = 0.0  # wall clock when the process was started (its boot phases count from it)
        self.channel_fd = -1
        self.deadline = 0.0

    def __enter__(self) -> "Child":
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def environment(self) -> dict[str, str]:
        # kbx's own package first, then whatever the parent was given (packages installed by path, not by pip)
        python_path = ":".join([str(Path(__file__).resolve().parents[2])]
                               + [p for p in os.environ.get("PYTHONPATH", "").split(":") if p])
        return scrubbed_env(self.workdir, {"PYTHONPATH": python_path, "KBX_LIMITS": json.dumps(asdict(self.limits)),
                                           **self.plan.child_env(), **self.extra_env})

    def start(self) -> None:
        if STOPPING.is_set():
            raise ChildFailed("crash", "the run is being interrupted")
        read_fd, write_fd = os.pipe()
        if self.plan.drop_to is not None:
            os.chown(self.workdir, self.plan.drop_to, self.plan.drop_to)
        self.stdout = open(self.workdir / "stdout.log", "wb")
        self.stderr = open(self.workdir / "stderr.log", "wb")
        env = self.environment()
        passed = (write_fd,)
        if self.bulk_region is not None:
            try:
                self.region = bulk.create(self.bulk_region[1], self.bulk_region[0])
            except OSError:  # no memfd here: every tensor goes in the frames, as before
                self.region = None
            else:
                passed += (self.region.fd,)
        self.spawned_at = time.time()
        try:
            self.proc = self.fork(env, write_fd) or self.spawn(env, passed)
        except BaseException:
            os.close(read_fd)
            if self.region is not None:
                self.region.close()
                self.region = None
            raise
        finally:
            os.close(write_fd)
        with LIVE_LOCK:
            LIVE.add(self)
        self.channel_fd = read_fd
        os.set_blocking(read_fd, False)
        self.deadline = time.monotonic() + self.limits.wall_s

    def fork(self, env: dict[str, str], write_fd: int) -> "ForkedProcess | None":
        if self.forks is None:
            return None
        region = (self.region.size, self.region.direction) if self.region is not None else None
        fds = [self.stdout.fileno(), self.stderr.fileno(), write_fd] + ([self.region.fd] if region else [])
        proc = self.forks.spawn(env, self.workdir, fds, region)
        self.forked = proc is not None
        return proc

    def spawn(self, env: dict[str, str], passed: tuple[int, ...]) -> subprocess.Popen:
        if self.region is not None:
            env = {**env, **bulk.child_env(self.region)}
        drop = self.plan.drop_to
        return subprocess.Popen(
            self.plan.wrap([sys.executable, "-m", self.module, str(passed[0])]), stdin=subprocess.PIPE,
            stdout=self.stdout, stderr=self.stderr, pass_fds=passed, cwd=self.workdir, env=env,
            start_new_session=True, user=drop, group=drop, extra_groups=[] if drop is not None else None)

    def restart_clock(self, wall_s: float) -> None:
        """A fresh wall-clock allowance for the next phase (queueing for a GPU's timing lane is not the
        candidate's time)."""
        self.deadline = time.monotonic() + wall_s

    def stopped(self) -> None:
        self.stopped_since = time.monotonic()

    def continued(self) -> None:
        """The parent kept the process stopped until now: no clock of it (whole life, the call in flight) counts
        that time."""
        if self.stopped_since is not None:
            seconds, self.stopped_since = time.monotonic() - self.stopped_since, None
            self.stopped_s += seconds
            self.extend_clock(seconds)

    def stopped_for(self) -> float:
        """Seconds the process was kept stopped, the stop in force included."""
        since = self.stopped_since
        return self.stopped_s + (time.monotonic() - since if since is not None else 0.0)

    def extend_clock(self, seconds: float) -> None:
        """Give back time the parent made the candidate wait (for a GPU another candidate was timing on)."""
        self.deadline += max(0.0, seconds)

    def call(self, request: Any, timeout: float | None = None,
             interim: Callable[[Any], Any] | None = None) -> Any:
        """Send one request and wait for its reply; raises ChildFailed on death, hang or garbage.

        `interim` answers the messages.INTERIM messages a request may send before its reply (a GPU lease);
        the time it takes is given back to the child's clock. Without it, an interim message is a protocol
        error."""
        self.send(request)
        remaining = self.deadline - time.monotonic()
        # in the time the process was not kept stopped (read_exact adds stopped_for() back)
        deadline = time.monotonic() + max(min(timeout, remaining) if timeout else remaining, 0.1) - self.stopped_for()
        while True:
            reply = self.receive(deadline)
            if not isinstance(reply, messages.INTERIM):
                return reply
            if interim is None:
                self.kill()
                raise ChildFailed("protocol", f"unexpected {type(reply).__name__} during "
                                  f"{type(request).__name__}", self.stderr_tail())
            started = time.monotonic()
            answer = interim(reply)
            spent = time.monotonic() - started
            self.deadline += spent
            deadline += spent
            if answer is not None:
                self.send(answer)

    def send(self, message: Any) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(messages.encode(message, self.region_for(bulk.REQUESTS)))
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self.fail_from_exit()

    def receive(self, deadline: float) -> Any:
        frame = self.read_frame(deadline)
        try:
            return messages.decode(frame, self.region_for(bulk.REPLIES))
        except messages.ProtocolError as exc:
            self.kill()
            raise ChildFailed("protocol", str(exc), self.stderr_tail()) from None

    def region_for(self, direction: str) -> bulk.Region | None:
        return self.region if self.region is not None and self.region.direction == direction else None

    def read_frame(self, deadline: float) -> bytes:
        header = self.read_exact(messages.HEADER.size, deadline, start=True)
        (size,) = messages.HEADER.unpack(header)
        if size > messages.MAX_FRAME:
            self.kill()
            raise ChildFailed("protocol", f"child sent a frame of {size} bytes")
        return self.read_exact(size, deadline, start=False)

    def read_exact(self, size: int, deadline: float, start: bool) -> bytes:
        chunks, got = [], 0
        with selectors.DefaultSelector() as sel:
            sel.register(self.channel_fd, selectors.EVENT_READ)
            while got < size:
                left = deadline + self.stopped_for() - time.monotonic()
                if left <= 0:
                    self.kill()
                    raise ChildFailed("timeout", "no reply within the time limit", self.stderr_tail())
                if not sel.select(min(left, 1.0)):  # a stop may extend the limit meanwhile
                    continue
                try:
                    chunk = os.read(self.channel_fd, min(size - got, 1 << 24))
                except BlockingIOError:
                    continue
                if not chunk:
                    if start and got == 0:
                        self.fail_from_exit()
                    self.kill()
                    raise ChildFailed("protocol", "child closed the channel mid-frame", self.stderr_tail())
                chunks.append(chunk)
                got += len(chunk)
        return b"".join(chunks)

    def fail_from_exit(self) -> None:
        assert self.proc is not None
        try:
            code = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            code = None
        self.kill()
        if code is None:
            raise ChildFailed("crash", "child closed its channel and did not exit", self.stderr_tail())
        if code < 0:
            name = signal.Signals(-code).name
            hint = {"SIGXFSZ": " (file size limit)", "SIGXCPU": " (CPU time limit)",
                    "SIGKILL": " (killed: memory or limit)"}.get(name, "")
            raise ChildFailed("crash", f"child killed by {name}{hint}", self.stderr_tail())
        raise ChildFailed("crash", f"child exited with status {code} before replying", self.stderr_tail())

    def stderr_tail(self, limit: int = 4000) -> str:
        try:
            self.stderr.flush()
            data = (self.workdir / "stderr.log").read_bytes()
        except (OSError, ValueError):
            return ""
        return data[-limit:].decode("utf-8", "replace")

    def kill(self) -> None:
        """Kill the child's whole process group (its own session), grandchildren included, and the child itself (a
        forked one makes its session a moment after the fork: forkserver.py)."""
        if self.proc is None:
            return
        for kill in (os.killpg, os.kill):
            try:
                kill(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass

    def close(self) -> None:
        if self.proc is not None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
            self.kill()
            os.close(self.channel_fd)
            self.stdout.close()
            self.stderr.close()
            self.proc = None
            if self.region is not None:
                self.region.close()
                self.region = None
            with LIVE_LOCK:
                LIVE.discard(self)
        shutil.rmtree(self.workdir, ignore_errors=True)


# ------------------------------------------------------------------------------------------------
# Child side


class Channel:
    """The child's end: requests from stdin, replies on the private fd."""

    region: bulk.Region | None = None  # the parent's shared region for large tensors, if it passed one

    def __init__(self, fd: int) -> None:
        os.set_inheritable(fd, False)
        self.out = os.fdopen(fd, "wb", buffering=0)
        self.inp = sys.stdin.buffer
        sys.stdin = open(os.devnull)  # candidate code must not read requests meant for the harness
        self.region = bulk.from_env()

    def requests(self):
        while True:
            header = self.inp.read(messages.HEADER.size)
            if len(header) < messages.HEADER.size:
                return
            (size,) = messages.HEADER.unpack(header)
            data = self.inp.read(size)
            if len(data) < size:
                return
            yield messages.decode(data, self.region if self.direction() == bulk.REQUESTS else None)

    def reply(self, msg: Any) -> None:
        """Write one whole frame. A raw write to a pipe is partial past 2 GiB (Linux caps one write at
        0x7ffff000 bytes): a perf-size output of 4.3 GB lost its tail and the parent waited for it forever."""
        data = memoryview(messages.encode(msg, self.region if self.direction() == bulk.REPLIES else None))
        while data:
            data = data[self.out.write(data):]

    def direction(self) -> str | None:
        return self.region.direction if self.region is not None else None

    def prefault(self, size: int) -> None:
        """The first `size` bytes of a REPLIES region written once now, so a large reply later finds its pages."""
        if self.direction() == bulk.REPLIES:
            bulk.Writer(self.region).prefault(size)

    def ask(self, msg: Any) -> Any:
        """Send an interim message in the middle of a request and wait for the parent's answer."""
        self.reply(msg)
        return next(self.requests(), None)

    def quiet_host(self, on: bool) -> None:
        """Ask the parent to stop the other candidate processes for a sample loop that measures host time (on),
        or let them go on (off); parent/host_quiet.py."""
        if not on:
            self.reply(messages.HostQuiet(False))
        elif not isinstance(self.ask(messages.HostQuiet(True)), messages.Quieted):
            os._exit(70)  # the parent is gone or confused
