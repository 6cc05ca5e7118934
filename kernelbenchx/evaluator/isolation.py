"""Which OS isolation layers this host offers for candidate processes, and how the parent applies its part.

Layers, from the outside in (the child applies Landlock and seccomp itself, child/confine.py):
- ``namespaces``: new user, PID, network and mount namespaces (util-linux `unshare`, /proc remounted; a process
  forked from the zygote does the same itself, child/boot.py), so the candidate sees no other process and has no
  network interface but a loopback that is down;
- ``uid``: when kbx runs as root, the candidate runs as nobody (65534) (not applicable otherwise);
- ``landlock``: read-only access to the Python environment and system libraries, read-write only to its
  private temporary directory; the run directory, the submission and other processes' /proc are unreachable;
- ``seccomp``: no ptrace, process_vm_*, signals to other processes, namespace or mount changes, bpf,
  perf_event_open, io_uring, keyrings, module loading or sockets; no new threads; no exec on the CPU path;
- ``no_new_privs``: set by Landlock and seccomp;
- ``nondumpable``: the parent and the trusted servers cannot be read or traced by same-uid processes.
A layer the host cannot offer is reported (``missing`` with the reason) in every record; ``--require-isolation``
refuses to run without the full set.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from functools import lru_cache

NOBODY = 65534
LAYERS = ("namespaces", "uid", "landlock", "seccomp", "no_new_privs", "nondumpable")
UNSHARE_FLAGS = ("--user", "--map-current-user", "--pid", "--fork", "--kill-child=SIGKILL", "--net", "--mount",
                 "--mount-proc")
PR_SET_DUMPABLE = 4  # <sys/prctl.h>


class IsolationUnavailable(Exception):
    """--require-isolation was given and a layer is missing."""


@dataclass(frozen=True)
class Plan:
    """What the parent does for each candidate process, and what it asks the child to do."""

    namespaces: bool
    drop_to: int | None  # uid/gid to run the candidate as, when kbx runs as root
    landlock: bool
    seccomp: bool
    missing: dict[str, str] = field(default_factory=dict)  # layer → why it is unavailable

    def wrap(self, argv: list[str]) -> list[str]:
        return wrap_namespaces(argv) if self.namespaces else argv

    def child_env(self) -> dict[str, str]:
        return {"KBX_CONFINE": json.dumps({"landlock": self.landlock, "seccomp": self.seccomp})}

    def layers(self) -> list[str]:
        """Layers in force (`uid` only applies when kbx runs as root: otherwise there is no uid to drop to)."""
        return [layer for layer in LAYERS if layer not in self.missing and (layer != "uid" or self.drop_to)]

    def describe(self) -> dict:
        return {"layers": self.layers(), "missing": dict(self.missing)}


@lru_cache(maxsize=None)
def probe(enabled: bool = True) -> Plan:
    """The plan for this host: every layer that works here (checked once per process)."""
    if not enabled:
        return Plan(False, None, False, False, {layer: "isolation disabled (--no-isolation)" for layer in LAYERS})
    missing: dict[str, str] = {}
    drop_to = NOBODY if os.geteuid() == 0 else None
    if drop_to is not None and not runs([sys.executable, "-c", "pass"], drop_to):
        drop_to = None
        missing["uid"] = (f"kbx runs as root but {sys.executable} cannot be run by nobody (its installation is "
                          "not world-readable, e.g. under /root): the candidate keeps uid 0, confined by the "
                          "other layers")
    namespaces = runs(wrap_namespaces([sys.executable, "-c", "pass"]), drop_to)
    if not namespaces:
        missing["namespaces"] = "unprivileged user namespaces are not available (e.g. Docker's default seccomp " \
                                "profile, or kernel.unprivileged_userns_clone=0)"
    landlock_abi = landlock_version()
    if landlock_abi < 1:
        missing["landlock"] = "the kernel offers no Landlock (or the landlock package is missing)"
    seccomp_ok = seccomp_available()
    if not seccomp_ok:
        missing["seccomp"] = "libseccomp or the pyseccomp package is missing"
    if landlock_abi < 1 and not seccomp_ok:
        missing["no_new_privs"] = "set only by Landlock or seccomp, both missing"
    if not nondumpable_supported():
        missing["nondumpable"] = "prctl(PR_SET_DUMPABLE) is unavailable"
    return Plan(namespaces, drop_to, landlock_abi >= 1, seccomp_ok, missing)


def wrap_namespaces(argv: list[str]) -> list[str]:
    return [shutil.which("unshare") or "unshare", *UNSHARE_FLAGS, "--", *argv]


def runs(argv: list[str], user: int | None) -> bool:
    """Whether `argv` runs to a zero exit status as `user`."""
    try:
        done = subprocess.run(argv, capture_output=True, timeout=30, user=user, group=user,
                              extra_groups=[] if user is not None else None)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def landlock_version() -> int:
    try:
        import landlock
        return int(landlock.landlock_abi_version())
    except Exception:  # missing package, no syscall (ENOSYS), disabled (EOPNOTSUPP): all mean "no Landlock"
        return 0


def seccomp_available() -> bool:
    try:
        import pyseccomp

        pyseccomp.SyscallFilter(pyseccomp.ALLOW)
        return True
    except Exception:  # missing package or libseccomp.so: no seccomp layer
        return False


def nondumpable_supported() -> bool:
    return hasattr(ctypes, "CDLL") and os.name == "posix"


def make_nondumpable() -> bool:
    """Mark this process non-dumpable: same-uid processes can no longer read its memory, environment or fds
    through /proc, nor trace it."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def require_full(plan: Plan) -> None:
    if plan.missing:
        lines = "; ".join(f"{k}: {v}" for k, v in plan.missing.items())
        raise IsolationUnavailable(f"--require-isolation: missing isolation layers: {lines}")


TRUSTED = Plan(namespaces=False, drop_to=None, landlock=False, seccomp=False)  # kbx's own server processes
