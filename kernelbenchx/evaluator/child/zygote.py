"""The zygote: one process per GPU (or the CPU) that imports torch and triton and prepares the warm-up once, then
forks a candidate process per request (parent side: evaluator/forkserver.py). It runs no candidate code and never
initialises CUDA: each forked process opens its device itself, after the fork.

A forked process becomes what an exec'd one is (child/__main__.py) before it serves anything: its own session,
only its own descriptors (request pipe on 0, logs on 1 and 2, reply pipe, bulk region), its own environment and
working directory, its rlimits and CPU pinning, its own user, PID, network and mount namespaces with a fresh /proc
(child/boot.py), and it dies with the zygote. The zygote forks only while it has a single thread.

Started as ``python -m kernelbenchx.evaluator.child.zygote SOCKET_FD``. On the socket (SOCK_SEQPACKET, one JSON
message per datagram): the zygote sends {"ready": ...} once, {"forked": pid} or {"refused": why} per request, and
{"exited": pid, "code": returncode} when a forked process ends; the parent sends {"fork": ...} with the new
process's descriptors attached (SCM_RIGHTS).
"""

import time

STARTED = time.time()

import json  # noqa: E402
import os  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import traceback  # noqa: E402

from kernelbenchx.evaluator.child import boot  # noqa: E402

FDS = ("stdin", "stdout", "stderr", "reply")  # the descriptors every fork request carries, in this order (+ bulk)
MAX_MESSAGE = 1 << 20
PR_SET_CHILD_SUBREAPER = 36
PREPARED = False  # whether warm.prepare() ran here (the forks skip it then)


def thread_names() -> list[str]:
    """This process's threads by name; none when /proc cannot say (then it does not fork)."""
    try:
        tids = sorted(os.listdir("/proc/self/task"))
    except OSError:
        return []
    names = []
    for tid in tids:
        try:
            with open(f"/proc/self/task/{tid}/comm") as f:
                names.append(f.read().strip())
        except OSError:
            names.append("?")
    return names


def thread_count() -> int:
    return len(thread_names())


def prepare_without_cuda() -> bool:
    """warm.prepare() for the forks to inherit, without initialising CUDA (after cuInit a fork cannot use the GPU,
    and the driver starts a thread): FakeTensorMode asks torch.cuda.is_available(), which calls cuInit. It is told
    True, what every fork on this GPU will find; any other way into the driver fails the preparation, and each fork
    prepares itself instead."""
    import torch

    from kernelbenchx.evaluator.child import warm

    def refused(*args, **kwargs):
        raise RuntimeError("the zygote must not initialise CUDA")

    stand_ins = [(torch.cuda, "is_available", lambda: True), (torch.cuda, "_lazy_init", refused),
                 (torch._C, "_cuda_getDeviceCount", refused)]
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in stand_ins if hasattr(owner, name)]
    for owner, name, stand_in in stand_ins:
        if hasattr(owner, name):  # a CPU build has no _cuda_getDeviceCount
            setattr(owner, name, stand_in)
    try:
        warm.prepare()
        return True
    except Exception as exc:
        sys.stderr.write(f"kbx zygote: preparation left to each fork: {type(exc).__name__}: {exc}\n")
        return False
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)


def send(sock: socket.socket, message: dict) -> None:
    sock.send(json.dumps(message).encode())


def namespaces_work() -> str:
    """Whether a forked process can enter its own namespaces here (a container may refuse what `unshare` allowed
    the parent's probe): a forked process tries and exits; "" when it worked, else what went wrong."""
    pid = os.fork()
    if pid == 0:
        try:
            boot.enter_namespaces()
            pids = [p for p in os.listdir("/proc") if p.isdigit()]
            os._exit(0 if os.getpid() == 1 and len(pids) < 10 else 3)
        except BaseException:
            traceback.print_exc()  # into the zygote's log
            os._exit(4)
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    return {0: "", 3: "its /proc showed other processes"}.get(code, f"it failed (status {code}; the zygote's log)")


def become_candidate(request: dict, fds: list[int], zygote: int) -> None:
    """In the forked process: take the candidate process's shape, then serve as its harness (never returns)."""
    started = time.time()
    boot.libc_call("prctl", boot.PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != zygote:
        os._exit(1)
    boot.libc_call("prctl", boot.PR_SET_DUMPABLE, 1, 0, 0, 0)  # as an exec'd candidate process is (its /proc/self)
    for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, signal.SIG_DFL)
    signal.set_wakeup_fd(-1)
    os.setsid()
    stdin, stdout, stderr, reply, *region = fds
    for fd, target in ((stdin, 0), (stdout, 1), (stderr, 2)):
        os.dup2(fd, target)
    boot.close_all_but({0, 1, 2, reply, *region})
    os.environ.clear()
    os.environ.update(request["env"])
    if region:
        from kernelbenchx.evaluator import bulk

        size, direction = request["bulk"]
        os.environ[bulk.ENV] = f"{region[0]}:{size}:{direction}"
    os.chdir(request["cwd"])
    tempfile.tempdir = None  # the zygote's TMPDIR was another directory
    boot.apply_limits()
    boot.pin_cpus()
    if request["namespaces"]:
        boot.enter_namespaces()
        boot.not_pid_one()
    sys.argv = [sys.argv[0], str(reply)]
    from kernelbenchx.evaluator.child.harness import main

    main(started, prepared=PREPARED)


def fork_candidate(sock: socket.socket, request: dict, fds: list[int], forked: set[int]) -> None:
    if len(fds) not in (len(FDS), len(FDS) + 1) or (len(fds) > len(FDS)) != bool(request.get("bulk")):
        send(sock, {"refused": f"expected {len(FDS)} descriptors (+1 with a bulk region), got {len(fds)}"})
    elif thread_count() != 1:
        send(sock, {"refused": f"the zygote has {thread_count()} threads: forking now could copy a held lock"})
    else:
        zygote = os.getpid()
        try:
            pid = os.fork()
        except OSError as exc:  # e.g. the user's process limit, reached by some candidate's processes
            send(sock, {"refused": f"fork failed: {exc}"})
            pid = None
        if pid == 0:
            try:
                become_candidate(request, fds, zygote)
            except BaseException:
                traceback.print_exc()
            finally:
                os._exit(70)
        if pid is not None:
            forked.add(pid)
            send(sock, {"forked": pid})
    for fd in fds:
        os.close(fd)


def reap(sock: socket.socket, forked: set[int]) -> None:
    """Report the end of each process this zygote forked; reap the rest silently (as a subreaper it inherits the
    first process of each killed candidate's namespace)."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        if pid in forked:
            forked.discard(pid)
            send(sock, {"exited": pid, "code": os.waitstatus_to_exitcode(status)})


def serve(sock: socket.socket) -> None:
    """Fork per request, report each exit, until the parent closes its end."""
    import selectors

    forked: set[int] = set()
    boot.libc_call("prctl", PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    wake_r, wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    with selectors.DefaultSelector() as sel:
        sel.register(sock, selectors.EVENT_READ)
        sel.register(wake_r, selectors.EVENT_READ)
        while True:
            for key, _ in sel.select(timeout=1.0):
                if key.fileobj == wake_r:
                    os.read(wake_r, 4096)
                    continue
                data, fds, _, _ = socket.recv_fds(sock, MAX_MESSAGE, len(FDS) + 1)
                if not data:
                    return
                fork_candidate(sock, json.loads(data)["fork"], fds, forked)
            reap(sock, forked)


def main() -> None:
    sock = socket.socket(fileno=int(sys.argv[1]))
    # same-uid processes (a candidate without its PID namespace, Landlock or seccomp) cannot trace the zygote or
    # write its memory, which every later fork would inherit
    boot.libc_call("prctl", boot.PR_SET_DUMPABLE, 0, 0, 0, 0)
    from kernelbenchx.evaluator.child import harness  # noqa: F401  (torch: the import every fork shares)
    import triton  # noqa: F401

    imported = time.time()
    global PREPARED
    PREPARED = os.environ.get("TRITON_INTERPRET") != "1" and prepare_without_cuda()
    ready = time.time()
    wanted = json.loads(os.environ.get("KBX_ZYGOTE", "{}")).get("namespaces")
    problem = namespaces_work() if wanted else "not asked for"
    send(sock, {"ready": {"threads": thread_count(), "thread_names": thread_names(), "namespaces": not problem,
                          "namespaces_problem": problem,
                          "prepared": PREPARED, "imports_s": round(imported - STARTED, 3),
                          "prepare_s": round(ready - imported, 3)}})
    serve(sock)
    os._exit(0)


if __name__ == "__main__":
    main()
