"""Confinement the candidate process applies to itself after the harness is loaded and before any candidate
code is imported: Landlock (filesystem) and seccomp (system calls). Both set no_new_privs and cannot be undone.

Landlock: read (and list) the Python installation, the site-packages kbx needs, the kbx package itself and
the system's libraries; read-write only the private working directory; the GPU device nodes (with ioctl);
this process's own /proc entry and a few global /proc and /sys files that torch and the CUDA driver read.
Everything else — the run directory, the submission, other processes, the user's home — is unreachable.
On the GPU path, Triton compiles each kernel with its bundled ptxas and a C launcher per kernel signature
with the host's C compiler: execution is allowed for those programs' directories only (they inherit every
restriction).

seccomp: fails (EPERM) ptrace, process_vm_*, signals to other processes, namespace and mount changes, bpf,
perf_event_open, io_uring, keyrings, module and kexec calls, open_by_handle_at, sockets (no network, no UNIX
sockets to host services), new threads (clone with CLONE_THREAD) and, on the CPU path, any new process
(fork, clone, exec).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

# <linux/sched.h> clone flags (Python 3.12 exposes them as os.CLONE_*; 3.11 does not)
CLONE_THREAD = 0x00010000
CLONE_NEW = {"CLONE_NEWNS": 0x00020000, "CLONE_NEWCGROUP": 0x02000000, "CLONE_NEWUTS": 0x04000000,
             "CLONE_NEWIPC": 0x08000000, "CLONE_NEWUSER": 0x10000000, "CLONE_NEWPID": 0x20000000,
             "CLONE_NEWNET": 0x40000000}
DENIED_SYSCALLS = (
    "ptrace", "process_vm_readv", "process_vm_writev", "setns", "unshare", "mount", "umount2", "pivot_root",
    "chroot", "bpf", "perf_event_open", "keyctl", "add_key", "request_key", "init_module", "finit_module",
    "delete_module", "kexec_load", "kexec_file_load", "reboot", "swapon", "swapoff", "acct", "quotactl",
    "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register", "open_by_handle_at",
    "name_to_handle_at", "fanotify_init", "syslog", "settimeofday", "clock_settime", "adjtimex", "vhangup",
    "socket", "socketpair", "pidfd_open", "pidfd_getfd", "process_madvise", "memfd_secret")
SYSTEM_READ = ("/usr", "/lib", "/lib64", "/lib32", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
               "/etc/localtime", "/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/proc/sys/kernel",
               "/proc/sys/vm", "/proc/driver", "/sys", "/dev/urandom", "/dev/random", "/dev/zero")
DEVICES_RW = ("/dev/null", "/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset",
              "/dev/nvidia-caps")


class ConfinementFailed(Exception):
    """A layer the parent asked for could not be applied."""


def requested() -> dict:
    return json.loads(os.environ.get("KBX_CONFINE", "{}"))


def apply(workdir: Path, device: str, exec_dirs: list[str]) -> list[str]:
    """Apply the layers the parent asked for (KBX_CONFINE); returns the layers now in force."""
    asked = requested()
    if asked.get("seccomp"):
        import pyseccomp  # noqa: F401  (loads libseccomp now: finding it runs ldconfig, which Landlock forbids)
    layers = []
    if asked.get("landlock"):
        apply_landlock(workdir, exec_dirs)
        layers += ["landlock", "no_new_privs"]
    if asked.get("seccomp"):
        apply_seccomp(allow_processes=bool(exec_dirs))
        layers += ["seccomp"] + ([] if "no_new_privs" in layers else ["no_new_privs"])
    return layers


def readable_paths() -> list[str]:
    """The Python installation and every import path except the current directory and the repository root
    (only the kbx package itself is readable from there: a run directory may live inside the repository)."""
    import kernelbenchx

    package = Path(kernelbenchx.__file__).resolve().parent
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, str(package)}
    for entry in sys.path:
        if not entry or not os.path.isdir(entry):
            continue
        real = os.path.realpath(entry)
        if real in (os.path.realpath(os.getcwd()), str(package.parent)):
            continue
        paths.add(real)
    return sorted(p for p in paths if os.path.exists(p))


def apply_landlock(workdir: Path, exec_dirs: list[str]) -> None:
    import landlock
    from landlock import FSAccess

    ruleset = landlock.Ruleset()
    read_dir = FSAccess.READ_FILE | FSAccess.READ_DIR
    for path in readable_paths() + [p for p in SYSTEM_READ if os.path.exists(p)]:
        ruleset.allow(path, rules=read_dir if os.path.isdir(path) else FSAccess.READ_FILE)
    ruleset.allow(f"/proc/{os.getpid()}", rules=read_dir)
    modules = os.environ.get("KBX_TRITON_MODULES")  # the parent's C modules (parent/triton_modules.py), read-only
    if modules and os.path.isdir(modules):
        ruleset.allow(modules, rules=read_dir)
    ruleset.allow(str(workdir), rules=FSAccess.all())
    device_rights = FSAccess.READ_FILE | FSAccess.WRITE_FILE
    if landlock.landlock_abi_version() >= 5:
        device_rights |= FSAccess.IOCTL_DEV
    for path in DEVICES_RW + tuple(f"/dev/{n}" for n in os.listdir("/dev") if n.startswith("nvidia")):
        if os.path.exists(path):
            rights = device_rights | (FSAccess.READ_DIR if os.path.isdir(path) else 0)
            ruleset.allow(path, rules=rights)
    for path in exec_dirs + (elf_interpreters() if exec_dirs else []):
        rights = (read_dir if os.path.isdir(path) else FSAccess.READ_FILE) | FSAccess.EXECUTE
        ruleset.allow(path, rules=rights)
    try:
        ruleset.apply()
    except OSError as exc:
        raise ConfinementFailed(f"landlock: {exc}") from exc


def elf_interpreters() -> list[str]:
    """The dynamic loader(s): executing a program opens its ELF interpreter for execution too."""
    import glob

    found = set()
    for pattern in ("/lib*/ld-linux*.so*", "/usr/lib*/ld-linux*.so*", "/lib*/*-linux-gnu/ld-linux*.so*",
                    "/usr/lib*/*-linux-gnu/ld-linux*.so*", "/lib/ld-musl*.so*"):
        for path in glob.glob(pattern):
            found |= {path, os.path.realpath(path)}
    return sorted(p for p in found if os.path.isfile(p))


def apply_seccomp(allow_processes: bool) -> None:
    """The filter; `allow_processes` (the GPU path, where Triton runs ptxas) lets the process fork and exec."""
    import errno

    import pyseccomp as sc

    f = sc.SyscallFilter(sc.ALLOW)
    deny = sc.ERRNO(errno.EPERM)
    for name in DENIED_SYSCALLS:
        f.add_rule(deny, name)
    me = os.getpid()
    for name in ("kill", "tkill", "tgkill"):  # signals only to this process (and its own threads)
        f.add_rule(deny, name, sc.Arg(0, sc.NE, me))
    f.add_rule(deny, "clone", sc.Arg(0, sc.MASKED_EQ, CLONE_THREAD, CLONE_THREAD))
    for flag in CLONE_NEW.values():
        f.add_rule(deny, "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")  # flags live in memory seccomp cannot read: glibc falls back
    if not allow_processes:
        for name in ("execve", "execveat", "fork", "vfork", "clone"):
            f.add_rule(deny, name)
    try:
        f.load()
    except OSError as exc:
        raise ConfinementFailed(f"seccomp: {exc}") from exc
