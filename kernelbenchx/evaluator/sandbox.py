"""A fresh child process per job, driven over pipes the parent owns, with OS limits and a kill switch.

Parent → child: frames on the child's stdin. Child → parent: frames on a dedicated pipe whose write end is
the only descriptor passed (`pass_fds`); the child marks it non-inheritable before running any other code,
so grandchildren cannot write to it. Frames are 8-byte length + `torch.save` bytes, and the parent loads them
with `weights_only=True`: nothing the child sends can execute code in the parent. The child's stdout and
stderr go to size-limited files in its private temporary directory (RLIMIT_FSIZE), never to the channel.
"""

from __future__ import annotations

import io
import os
import resource
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

HEADER = struct.Struct("<Q")
MAX_FRAME = 1 << 31  # 2 GiB: a child that claims more is flooding the channel


@dataclass(frozen=True)
class Limits:
    wall_s: float = 300.0  # whole life of the child
    cpu_s: int = 600
    file_bytes: int = 64 << 20  # largest file the child may write (stdout/stderr logs included)
    open_files: int = 1024
    processes: int = 4096  # RLIMIT_NPROC counts every process of the user; root ignores it
    address_space: int | None = None  # CUDA needs a huge virtual address space: leave unset on GPUs


class ChildFailed(Exception):
    """The child died, hung or broke the protocol. `kind` is timeout, crash or protocol."""

    def __init__(self, kind: str, message: str, stderr: str = "") -> None:
        super().__init__(message)
        self.kind, self.stderr = kind, stderr


def encode(obj: Any) -> bytes:
    buf = io.BytesIO()
    torch.save(obj, buf)
    data = buf.getvalue()
    return HEADER.pack(len(data)) + data


def decode(data: bytes) -> Any:
    return torch.load(io.BytesIO(data), weights_only=True)


def read_frame(stream) -> bytes | None:
    header = read_exact(stream, HEADER.size)
    if header is None:
        return None
    (size,) = HEADER.unpack(header)
    if size > MAX_FRAME:
        raise ChildFailed("protocol", f"child sent a frame of {size} bytes")
    data = read_exact(stream, size)
    if data is None:
        raise ChildFailed("protocol", "child closed the channel mid-frame")
    return data


def read_exact(stream, size: int) -> bytes | None:
    chunks, got = [], 0
    while got < size:
        chunk = stream.read(size - got)
        if not chunk:
            return None if got == 0 else b"".join(chunks)
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def set_limits(limits: Limits) -> None:
    """Runs in the child between fork and exec."""
    os.setsid()
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 5))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files))
    resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if limits.address_space:
        resource.setrlimit(resource.RLIMIT_AS, (limits.address_space, limits.address_space))


def scrubbed_env(workdir: Path, extra: dict[str, str]) -> dict[str, str]:
    """Only what Python, torch and triton need; nothing of the parent's (no seeds, no paths to data)."""
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(workdir), "TMPDIR": str(workdir),
           "TRITON_CACHE_DIR": str(workdir / ".triton"), "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
           "OMP_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}
    for key in ("CUDA_HOME", "LD_LIBRARY_PATH", "TRITON_PTXAS_PATH", "NVIDIA_VISIBLE_DEVICES"):
        if key in os.environ:
            env[key] = os.environ[key]
    env.update(extra)
    return env


class Child:
    """One child process running ``python -m <module> <fd>``; use as a context manager."""

    def __init__(self, module: str, limits: Limits, env: dict[str, str] | None = None,
                 workdir: Path | None = None) -> None:
        self.module, self.limits, self.extra_env = module, limits, env or {}
        self.workdir = Path(workdir or tempfile.mkdtemp(prefix="kbx-"))
        self.own_workdir = workdir is None
        self.proc: subprocess.Popen | None = None
        self.deadline = 0.0

    def __enter__(self) -> "Child":
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def start(self) -> None:
        read_fd, write_fd = os.pipe()
        self.stdout = open(self.workdir / "stdout.log", "wb")
        self.stderr = open(self.workdir / "stderr.log", "wb")
        python_path = str(Path(__file__).resolve().parents[2])
        env = scrubbed_env(self.workdir, {"PYTHONPATH": python_path, **self.extra_env})
        self.proc = subprocess.Popen(
            [sys.executable, "-m", self.module, str(write_fd)], stdin=subprocess.PIPE, stdout=self.stdout,
            stderr=self.stderr, pass_fds=(write_fd,), cwd=self.workdir, env=env,
            preexec_fn=lambda: set_limits(self.limits))
        os.close(write_fd)
        self.channel = os.fdopen(read_fd, "rb", buffering=0)
        self.deadline = time.monotonic() + self.limits.wall_s

    def restart_clock(self, wall_s: float) -> None:
        """Give the child a fresh wall-clock allowance for the next phase (time spent queueing for a GPU's
        timing lane is not the candidate's)."""
        self.deadline = time.monotonic() + wall_s

    def call(self, message: dict, timeout: float | None = None) -> dict:
        """Send one request and wait for its reply; raises ChildFailed on death, hang or garbage."""
        assert self.proc is not None
        try:
            self.proc.stdin.write(encode(message))
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self.fail_from_exit()
        remaining = self.deadline - time.monotonic()
        limit = min(timeout, remaining) if timeout else remaining
        reply = self.read_reply(max(limit, 0.1))
        if not isinstance(reply, dict):
            raise ChildFailed("protocol", f"child replied with {type(reply).__name__}, not a dict")
        return reply

    def read_reply(self, timeout: float) -> Any:
        box: dict[str, Any] = {}

        def reader() -> None:
            try:
                box["frame"] = read_frame(self.channel)
            except Exception as exc:  # protocol errors surface in the caller
                box["error"] = exc

        thread = threading.Thread(target=reader, daemon=True)
        thread.start()
        thread.join(timeout)
        if thread.is_alive():
            self.kill()
            raise ChildFailed("timeout", f"no reply within {timeout:.0f} s", self.stderr_tail())
        if "error" in box:
            self.kill()
            raise box["error"]
        if box.get("frame") is None:
            self.fail_from_exit()
        try:
            return decode(box["frame"])
        except Exception as exc:
            self.kill()
            raise ChildFailed("protocol", f"undecodable reply from child: {type(exc).__name__}: {exc}") from None

    def fail_from_exit(self) -> None:
        code = self.proc.wait(timeout=10)
        self.kill()
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
        except OSError:
            return ""
        return data[-limit:].decode("utf-8", "replace")

    def kill(self) -> None:
        """Kill the child's whole process group (it called setsid), grandchildren included."""
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
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
            self.channel.close()
            self.stdout.close()
            self.stderr.close()
        if self.own_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)


# ------------------------------------------------------------------------------------------------
# Child side


class Channel:
    """The child's end: requests from stdin, replies on the private fd."""

    def __init__(self, fd: int) -> None:
        os.set_inheritable(fd, False)
        self.out = os.fdopen(fd, "wb", buffering=0)
        self.inp = sys.stdin.buffer
        sys.stdin = open(os.devnull)  # candidate code must not read requests meant for the harness

    def requests(self):
        while True:
            frame = read_frame(self.inp)
            if frame is None:
                return
            yield decode(frame)

    def reply(self, message: dict) -> None:
        self.out.write(encode(message))
