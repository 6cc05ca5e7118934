"""What a candidate process does to itself before the harness serves it, whichever way it was started: its
rlimits, its CPU pinning, its own namespaces when it was forked (child/zygote.py; an exec'd process gets them
from `unshare`, isolation.wrap_namespaces), and never being PID 1 of its namespace.

Only the standard library here: an exec'd process runs this before torch is imported (child/__main__.py).
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import signal

# <linux/sched.h> and <sys/mount.h>
CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x00020000, 0x10000000, 0x20000000, 0x40000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 0x2, 0x4, 0x8, 0x4000, 0x40000
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 1, 4, 36


def apply_limits() -> None:
    limits = json.loads(os.environ.get("KBX_LIMITS", "{}"))
    cpu = int(limits.get("cpu_s", 600))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    for name, key in (("RLIMIT_FSIZE", "file_bytes"), ("RLIMIT_NOFILE", "open_files"),
                      ("RLIMIT_NPROC", "processes"), ("RLIMIT_AS", "address_space")):
        if limits.get(key):
            resource.setrlimit(getattr(resource, name), (int(limits[key]), int(limits[key])))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def pin_cpus() -> None:
    """Run on the cores the parent chose (KBX_CPUS): other candidates stay off the cores timing needs."""
    cpus = os.environ.get("KBX_CPUS")
    if cpus:
        try:
            os.sched_setaffinity(0, {int(c) for c in cpus.split(",")})
        except OSError:
            pass


def close_all_but(keep: set[int]) -> None:
    """Close every descriptor of this process except `keep` (a forked process holds its zygote's)."""
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        fds = list(range(1024))
    for fd in fds:
        if fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


def wait_and_exit_like(child: int) -> None:
    """Wait for `child` and end this process the way it ended: a signal is raised again (as util-linux's
    `unshare --fork` does), an exit status is passed on."""
    close_all_but(set())
    while True:
        try:
            pid, status = os.waitpid(child, 0)
        except ChildProcessError:
            os._exit(1)
        if pid == child:
            break
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.waitstatus_to_exitcode(status))


def not_pid_one() -> None:
    """In a new PID namespace this process is PID 1, which the kernel shields from its own default-action
    signals (a raised SIGSEGV would be ignored). PID 1 forks the harness, reaps, and exits with its status;
    when PID 1 exits, everything left in the namespace dies with it."""
    if os.getpid() != 1:
        return
    child = os.fork()
    if child == 0:
        return
    close_all_but(set())
    code = 0
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            break
        if pid == child:
            code = os.waitstatus_to_exitcode(status)
    os._exit(128 - code if code < 0 else code)


def libc_call(name: str, *args: object) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if getattr(libc, name)(*args) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{name}: {os.strerror(err)}")


def become_subreaper() -> None:
    """Orphaned descendants are re-parented to this process, not to its namespace's init: a process that a
    candidate's child started and left stays visible among this process's children (observe.processes_left)."""
    libc_call("prctl", PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def enter_namespaces() -> None:
    """What `unshare --user --map-current-user --pid --fork --kill-child=SIGKILL --net --mount --mount-proc` does,
    for a process forked from the zygote (single-threaded, as every process is right after fork): new user,
    network, mount and PID namespaces, the current uid and gid mapped to themselves, mounts made private, and a
    fresh /proc. This process stays outside the new PID namespace: it forks the namespace's first process, which
    comes back from this call (and dies with this process); this one waits and ends as that one ends."""
    # a non-dumpable process's /proc/self files belong to root: an unprivileged one (the zygote runs as nobody when
    # kbx runs as root) could not write its own uid_map (run 62)
    libc_call("prctl", PR_SET_DUMPABLE, 1, 0, 0, 0)
    uid, gid = os.getuid(), os.getgid()
    libc_call("unshare", CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS)
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as f:
            f.write(text)
    libc_call("mount", None, b"/", None, ctypes.c_ulong(MS_REC | MS_PRIVATE), None)
    child = os.fork()
    if child != 0:
        wait_and_exit_like(child)
    libc_call("prctl", PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    libc_call("mount", b"proc", b"/proc", b"proc", ctypes.c_ulong(MS_NOSUID | MS_NODEV | MS_NOEXEC), None)
