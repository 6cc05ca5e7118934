"""Triton's C modules built once by the parent and read by every candidate process of a GPU run.

The first launch of a kernel in a fresh process makes Triton build C modules with gcc: `cuda_utils` (the same
source in every process) and a launcher per kernel signature (the same source for every kernel with the same
argument types). Each candidate process has a private Triton cache, so every candidate built them again, in its
correctness warm-up, inside a compile slot (the run's bottleneck on a 16-core host). Measured on an idle H200
host (benchmarks/launcher_cost.py): gcc 0.5-0.6 s for cuda_utils and 0.2-0.3 s per launcher; a first kernel
1.5-2.2 s in an empty cache, 0.7-0.8 s with the modules in place.

A cache shared with candidates could be poisoned by one of them, so candidates only read this one: the parent
builds every module from a source it generates itself with Triton's own generator (a launcher from argument
types a candidate reported, checked to be plain type names first), in a folder candidates can read and not
write, each file moved into place whole. A child finds them through child/triton_cache.py (the cache manager
TRITON_CACHE_MANAGER names) and builds whatever is not there yet itself, as before.

Opt-in (KBX_TRITON_MODULES_ON=1), not the default: run 41 (one H200 host, the half set, with then without)
measured no gain: 671 launcher signatures reported, 196 of them already known, correctness warm-up child_s
1237 s with the shared modules and 1121 s without; the run 272 s (87 of 89 records, drained) vs 262 s.
"""

from __future__ import annotations

import hashlib
import os
import queue
import re
import shutil
import sysconfig
import tempfile
import threading
import time
from collections.abc import Iterable
from pathlib import Path

# an argument type Triton's launcher generator accepts: "*fp32", "*kfp16", "i32", "fp64", "u1", "constexpr"...
TYPE_NAME = re.compile(r"^\*?k?[a-z]{1,4}[0-9a-z]{0,8}$")
MAX_ARGS = 96
MAX_MODULES = 512  # per run: a candidate that reports endless signatures cannot keep the builder busy for ever
MAX_PER_REPORT = 16


def launcher_signature(types: Iterable) -> tuple[str, ...] | None:
    """A reported launcher signature as a tuple of type names, or None where it is not one this cache builds
    (tuple arguments, tensor descriptors, anything that is not a plain type name)."""
    if isinstance(types, (str, bytes)):
        return None
    try:
        names = tuple(types)
    except TypeError:
        return None
    if not names or len(names) > MAX_ARGS or not all(isinstance(n, str) and TYPE_NAME.match(n) for n in names):
        return None
    return names


class TritonModules:
    """The folder `root` of trusted modules, laid out as Triton's cache (`<key>/<name><suffix>`), and the thread
    that builds them one at a time."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(mode=0o755, parents=True, exist_ok=True)
        os.chmod(root, 0o755)  # readable by candidates that run as another user
        self.known: set[str] = set()  # launcher sources built or queued
        self.built, self.failed, self.build_s = 0, 0, 0.0
        self.error: str | None = None
        self.lock = threading.Lock()
        self.queue: queue.Queue[tuple[str, str] | None] = queue.Queue()
        self.thread = threading.Thread(target=self.work, name="triton-modules", daemon=True)
        self.thread.start()

    def env(self) -> dict[str, str]:
        """What a candidate process needs to read the folder (child/triton_cache.py)."""
        return {"TRITON_CACHE_MANAGER": "kernelbenchx.evaluator.child.triton_cache:SharedModules",
                "KBX_TRITON_MODULES": str(self.root)}

    def learn(self, reported: Iterable) -> tuple[int, int]:
        """Queue a launcher build for each new launcher source among a candidate's reported signatures; returns
        (signatures reported, of which the launcher was already built or queued)."""
        try:
            items = list(reported)[:MAX_PER_REPORT]
        except TypeError:
            return 0, 0
        signatures = [s for s in map(launcher_signature, items) if s is not None]
        fresh = 0
        for signature in signatures:
            try:
                name, source = launcher(signature)  # types that differ only in a pointer's dtype give one source
            except Exception:  # a type name Triton does not know
                continue
            with self.lock:
                if source in self.known or len(self.known) >= MAX_MODULES:
                    continue
                self.known.add(source)
            self.queue.put((name, source))
            fresh += 1
        return len(signatures), len(signatures) - fresh

    def stats(self) -> dict:
        return {"built": self.built, "failed": self.failed, "build_s": round(self.build_s, 3),
                **({"error": self.error} if self.error else {})}

    def close(self) -> None:
        """Stop the builder (a build in progress may take a second to end) and remove the folder."""
        self.queue.put(None)
        self.thread.join(timeout=10)
        shutil.rmtree(self.root, ignore_errors=True)

    def work(self) -> None:
        try:
            self.place(*cuda_utils())
        except Exception as exc:  # no nvidia backend or no gcc here: children build their own, as before
            self.error = f"cuda_utils: {type(exc).__name__}: {str(exc)[:300]}"
        while (job := self.queue.get()) is not None:
            try:
                self.place(*job)
            except Exception as exc:
                self.failed += 1
                self.error = f"{job[0]}: {type(exc).__name__}: {str(exc)[:300]}"

    def place(self, name: str, source: str) -> None:
        started = time.perf_counter()
        key_dir, filename, data = build(name, source)
        folder = self.root / key_dir
        folder.mkdir(mode=0o755, exist_ok=True)
        temporary = folder / f".{filename}.{os.getpid()}"
        temporary.write_bytes(data)
        os.chmod(temporary, 0o644)
        os.replace(temporary, folder / filename)  # a reader sees the whole module or none
        self.built += 1
        self.build_s += time.perf_counter() - started


def cuda_utils() -> tuple[str, str]:
    from triton.backends.nvidia import driver

    return "cuda_utils", Path(driver.dirname, "driver.c").read_text()


def launcher(signature: tuple[str, ...]) -> tuple[str, str]:
    """The launcher source Triton generates for a kernel whose arguments have these types (3.6: it depends on
    the types alone; the constexprs' values are not part of it)."""
    from triton.backends.nvidia import driver

    return "__triton_launcher", driver.make_launcher({}, dict(enumerate(signature)), None)


def build(name: str, source: str) -> tuple[str, str, bytes]:
    """Compile `source` as Triton's runtime does (triton.runtime.build.compile_module_from_src) and return the
    cache folder and file name it looks the module up under, with the module's bytes."""
    from triton.backends.nvidia import driver
    from triton.runtime import build as triton_build
    from triton.runtime.cache import _base32

    key = hashlib.sha256((source + triton_build.platform_key()).encode("utf-8")).hexdigest()
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, f"{name}.c")
        Path(path).write_text(source)
        so = triton_build._build(name, path, scratch, driver.library_dirs(), driver.include_dirs, driver.libraries,
                                 [])
        data = Path(so).read_bytes()
    return _base32(key), f"{name}{sysconfig.get_config_var('EXT_SUFFIX')}", data
