"""Entry of the candidate process: limits first (nothing of torch or the candidate is loaded yet), then the
harness. Started by process.Child as ``python -m kernelbenchx.evaluator.child FD``."""

import time

STARTED = time.time()  # wall clock, shared with the parent: where the process's boot phases start

import json  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402


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


def not_pid_one() -> None:
    """In a new PID namespace this process is PID 1, which the kernel shields from its own default-action
    signals (a raised SIGSEGV would be ignored). PID 1 forks the harness, reaps, and exits with its status;
    when PID 1 exits, everything left in the namespace dies with it."""
    if os.getpid() != 1:
        return
    child = os.fork()
    if child == 0:
        return
    os.closerange(0, 3)
    for fd in range(3, 256):
        try:
            os.close(fd)
        except OSError:
            pass
    code = 0
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            break
        if pid == child:
            code = os.waitstatus_to_exitcode(status)
    os._exit(128 - code if code < 0 else code)


apply_limits()
pin_cpus()
not_pid_one()

from kernelbenchx.evaluator.child.harness import main  # noqa: E402  (after the limits, on purpose)

main(STARTED)
