"""The parent's side of the zygote (child/zygote.py): candidate processes forked from one process that imported
torch and triton once, instead of each starting an interpreter and importing them again (about 3 CPU-seconds per
process, and the first wave's critical path: 20 processes importing at once on 16 cores took 35 s, run 56).

A forked process is the same candidate process an exec'd one is (child/zygote.py lists what it takes on before
serving), used once and closed the same way; process.Child drives it through a ForkedProcess, which answers the
part of subprocess.Popen that Child uses. When the zygote cannot serve (it failed to start, its environment
differs from the one a process asks for, it has a thread, it died), spawn() returns None and Child execs the
process as before: the fork server saves time, it never decides a verdict.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import BinaryIO

from kernelbenchx.evaluator.isolation import Plan

ZYGOTE = "kernelbenchx.evaluator.child.zygote"
PER_PROCESS = ("HOME", "TMPDIR", "TRITON_CACHE_DIR")  # the environment that differs between processes of a zygote
READY_S = 180.0  # the zygote's imports, on a host whose cores are all busy booting the first wave
REPLY_S = 30.0
RESTARTS = 3  # a zygote that ended on its own (killed, out of memory) is started again this often per server


class ForkedProcess:
    """A forked candidate process, as Child sees a subprocess.Popen: pid (its process group), stdin, poll, wait.
    Its exit status comes from the zygote, its parent."""

    def __init__(self, pid: int, stdin: BinaryIO) -> None:
        self.pid, self.stdin = pid, stdin
        self.returncode: int | None = None
        self.ended = threading.Event()

    def end(self, code: int) -> None:
        if self.returncode is None:
            self.returncode = code
        self.ended.set()

    def poll(self) -> int | None:
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if not self.ended.wait(timeout):
            raise subprocess.TimeoutExpired(ZYGOTE, timeout)
        return self.returncode


class ForkServer:
    """One zygote: started by start(), asked for processes by spawn() (thread-safe), ended by close()."""

    def __init__(self, env: dict[str, str], plan: Plan) -> None:
        self.env, self.plan = dict(env), plan
        self.base = shared_part(env)
        self.workdir = Path(tempfile.mkdtemp(prefix="kbx-zygote-"))
        self.proc: subprocess.Popen | None = None
        self.sock: socket.socket | None = None
        self.ready = threading.Event()
        self.serving = False
        self.why = "not started"  # while not serving: why not
        self.info: dict = {}
        self.lock = threading.Lock()  # one fork request in flight
        self.replies: queue.Queue = queue.Queue()
        self.procs: dict[int, ForkedProcess] = {}
        self.early: dict[int, int] = {}  # exits reported before spawn() registered the process
        self.state = threading.Lock()
        self.generation = 0  # which zygote is the current one (each start makes a new one)
        self.died = False  # the current zygote ended on its own: revive() may start another
        self.restarts = 0

    def start(self) -> None:
        """Start the zygote; it serves once its imports are done (spawn() waits for them)."""
        self.generation += 1
        self.ready, self.replies, self.info = threading.Event(), queue.Queue(), {}
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        drop = self.plan.drop_to
        if drop is not None:
            os.chown(self.workdir, drop, drop)
        env = {**self.env, "HOME": str(self.workdir), "TMPDIR": str(self.workdir),
               "TRITON_CACHE_DIR": str(self.workdir / ".triton"),
               "KBX_ZYGOTE": json.dumps({"namespaces": self.plan.namespaces})}
        try:
            with open(self.workdir / "zygote.log", "wb") as log:
                self.proc = subprocess.Popen(
                    [sys.executable, "-m", ZYGOTE, str(theirs.fileno())], stdin=subprocess.DEVNULL, stdout=log,
                    stderr=log, pass_fds=(theirs.fileno(),), cwd=self.workdir, env=env, start_new_session=True,
                    user=drop, group=drop, extra_groups=[] if drop is not None else None)
        except OSError as exc:
            ours.close()
            self.stop(f"the zygote did not start: {exc}")
            return
        finally:
            theirs.close()
        self.sock = ours
        threading.Thread(target=self.read, args=(ours, self.generation, self.replies), daemon=True,
                         name="kbx-zygote").start()

    def read(self, sock: socket.socket, generation: int, replies: queue.Queue) -> None:
        """The zygote's messages: readiness, fork replies (to spawn()), exits (to their process)."""
        while True:
            try:
                data = sock.recv(1 << 16)
                message = json.loads(data) if data else None
            except (OSError, ValueError):
                message = None
            if not isinstance(message, dict):
                replies.put({"refused": "the zygote ended"})  # a fork request waiting for its answer
                with self.lock:  # not while a revive() starts the next generation
                    if generation == self.generation and self.why != "closed":
                        self.died = True
                        self.stop(f"the zygote ended ({self.log_tail()})")
                sock.close()
                return
            if "ready" in message:
                self.on_ready(message["ready"])
            elif "exited" in message:
                self.on_exit(int(message["exited"]), int(message["code"]))
            else:
                replies.put(message)

    def on_ready(self, info: dict) -> None:
        self.info = {**info, "ready_at": time.perf_counter()}  # the run's clock (describe(), the usage log)
        if info.get("threads") != 1:
            self.stop(f"the zygote has {info.get('threads')} threads after its imports ({info.get('thread_names')})")
        elif self.plan.namespaces and not info.get("namespaces"):
            self.stop(f"a forked process could not enter its own namespaces here: {info.get('namespaces_problem')} "
                      f"({self.log_tail(600)})")
        else:
            self.serving, self.why = True, ""
        self.ready.set()

    def on_exit(self, pid: int, code: int) -> None:
        with self.state:
            proc = self.procs.pop(pid, None)
            if proc is None:
                self.early[pid] = code
        if proc is not None:
            proc.end(code)

    def spawn(self, env: dict[str, str], cwd: Path, fds: list[int], bulk: tuple[int, str] | None) -> \
            ForkedProcess | None:
        """A process forked for `env` in `cwd` with `fds` (request pipe's read end, stdout, stderr, reply pipe's
        write end, and the bulk region's when `bulk` gives its size and direction), or None when this zygote
        cannot serve it (the caller starts the process itself)."""
        self.revive()
        ready = self.ready
        if not ready.wait(READY_S):
            self.stop(f"the zygote was not ready after {READY_S:.0f} s")  # no later start waits for it again
        if not self.serving or shared_part(env) != self.base:
            return None
        stdin_r, stdin_w = os.pipe()
        request = {"fork": {"env": env, "cwd": str(cwd), "namespaces": self.plan.namespaces,
                            "bulk": list(bulk) if bulk else None}}
        try:
            with self.lock:
                socket.send_fds(self.sock, [json.dumps(request).encode()], [stdin_r, *fds])
                reply = self.replies.get(timeout=REPLY_S)
        except (OSError, queue.Empty) as exc:
            os.close(stdin_w)
            self.stop(f"the zygote did not answer a fork request: {exc or 'no reply'}")
            return None
        finally:
            os.close(stdin_r)
        if "forked" not in reply:
            os.close(stdin_w)
            self.why = str(reply.get("refused", reply))
            return None
        proc = ForkedProcess(int(reply["forked"]), os.fdopen(stdin_w, "wb"))
        with self.state:
            code = self.early.pop(proc.pid, None)
            if code is None:
                self.procs[proc.pid] = proc
        if code is not None:
            proc.end(code)
        return proc

    def revive(self) -> None:
        """Start another zygote when the current one ended on its own (its forks died with it), up to RESTARTS
        times; one that cannot serve here (threads, namespaces) stays stopped."""
        with self.lock:
            if not self.died or self.restarts >= RESTARTS:
                return
            self.restarts, self.died, ended = self.restarts + 1, False, self.proc
            self.start()
        if ended is not None:
            try:
                ended.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass

    def stop(self, why: str) -> None:
        """Serve no more: every process forked and not yet reported ended is killed (they die with the zygote)."""
        if why != "closed" and (self.serving or not self.ready.is_set()):
            then = "the next process starts another" if self.died and self.restarts < RESTARTS else \
                "candidate processes start from scratch"
            sys.stderr.write(f"kbx: forked candidate processes stop here ({why}); {then}\n")
        self.serving, self.why = False, why
        self.ready.set()
        with self.state:
            procs, self.procs = list(self.procs.values()), {}
        for proc in procs:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            proc.end(-signal.SIGKILL)

    def log_tail(self, limit: int = 2000) -> str:
        try:
            return (self.workdir / "zygote.log").read_text(errors="replace")[-limit:].strip() or "no output"
        except OSError:
            return "no log"

    def close(self) -> None:
        """End the zygote (it exits when its socket closes; the processes it forked die with it)."""
        self.serving, self.why = False, "closed"  # the socket's end is not news then
        if self.sock is not None:
            try:
                self.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self.sock.close()
        if self.proc is not None:
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.stop("closed")
        shutil.rmtree(self.workdir, ignore_errors=True)

    def describe(self) -> dict:
        return {"serving": self.serving, **({"why_not": self.why} if not self.serving else {}),
                **{k: v for k, v in self.info.items() if k in ("imports_s", "prepare_s", "prepared", "ready_at")}}


def shared_part(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k not in PER_PROCESS}
