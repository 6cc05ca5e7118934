"""Runtime guards installed in the candidate process before candidate code is imported.

- ``LaunchCounter``: counts Triton kernel launches (JIT, autotuned and interpreted kernels alike).
- ``OpRecorder``: records the PyTorch operators that run outside Triton launches; allocation, views and
  copies are fine, compute is not (unless the task's contract allows it).
- ``install_audit_hook``: an irremovable audit hook that blocks process creation, sockets, native loading and
  file writes outside the work directory when they are requested from candidate code.
- ``block_imports``: candidate code cannot import kbx's own reference code.
- ``symbol_snapshot``: identities of the timing and synchronization functions, compared later.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode, _disable_current_modes

# aten overload packets that never compute results: allocation, views, copies, metadata.
HARMLESS_OPS = frozenset({
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "zeros", "zeros_like", "ones",
    "ones_like", "full", "full_like", "new_zeros", "new_ones", "new_full", "fill_", "zero_", "scalar_tensor",
    "view", "_unsafe_view", "reshape", "_reshape_alias", "as_strided", "expand", "permute", "transpose", "t",
    "squeeze", "unsqueeze", "select", "slice", "narrow", "split", "split_with_sizes", "unbind", "chunk",
    "flatten", "unflatten", "alias", "detach", "lift_fresh", "view_as_real", "view_as_complex",
    "movedim", "diagonal", "unfold", "expand_as", "view_as", "contiguous", "clone", "copy_", "_to_copy",
    "to", "_copy_from", "_copy_from_and_resize", "resize_", "set_", "is_same_size", "_local_scalar_dense",
    "item", "size", "stride", "sym_size", "sym_stride", "numel", "dim", "is_contiguous", "arange", "tensor",
    "lift_fresh_copy", "_has_compatible_shallow_copy_type", "record_stream", "is_nonzero", "equal",
    "_conj", "conj", "resolve_conj", "resolve_neg", "_neg_view", "real", "imag", "randperm",
    "cat", "stack",  # pure copies, like clone/copy_ above (which can already assemble any concatenation)
})
SYNC_SYMBOLS = ("torch.cuda.synchronize", "torch.cuda.Event.record", "torch.cuda.Event.elapsed_time",
                "torch.cuda.Event.synchronize", "torch.cuda.current_stream", "torch.Tensor.clone",
                "torch.Tensor.copy_", "torch.equal", "time.perf_counter")


class LaunchCounter:
    """Wraps the `run` methods Triton uses for every launch; counts only while enabled."""

    def __init__(self) -> None:
        self.count = 0
        self.local = threading.local()

    def install(self) -> None:
        from triton.runtime import autotuner, jit

        classes = [jit.JITFunction]
        try:
            from triton.runtime.interpreter import InterpretedFunction
            classes.append(InterpretedFunction)
        except ImportError:
            pass
        for cls in classes:
            self.wrap(cls)
        self.autotuner = autotuner

    def wrap(self, cls: type) -> None:
        original = cls.run
        counter = self

        def run(fn_self, *args: Any, **kwargs: Any) -> Any:
            counter.count += 1
            with _disable_current_modes():  # Triton's own tensor handling is not candidate compute
                return original(fn_self, *args, **kwargs)

        run.__wrapped__ = original
        cls.run = run


class OpRecorder(TorchDispatchMode):
    """Records aten overload packets executed while active."""

    def __init__(self) -> None:
        super().__init__()
        self.ops: dict[str, int] = {}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func.overloadpacket.__name__
        self.ops[name] = self.ops.get(name, 0) + 1
        return func(*args, **(kwargs or {}))

    def compute_ops(self, allowed: frozenset[str]) -> list[str]:
        return sorted(op for op in self.ops if op not in HARMLESS_OPS and op not in allowed)


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
    """Block dangerous events raised from candidate code. The hook cannot be removed once added."""
    workdir = os.path.realpath(workdir)

    def hook(event: str, args: tuple) -> None:
        if event == "open" and len(args) >= 2 and isinstance(args[1], str) and any(c in args[1] for c in "wax+"):
            path = args[0] if isinstance(args[0], str) else None
            if path and not os.path.realpath(path).startswith(workdir) and caller_is_candidate(candidate_file):
                raise PermissionError(f"kbx sandbox: writing {path} is not allowed")
        elif event.startswith(BLOCKED_EVENTS) and caller_is_candidate(candidate_file):
            raise PermissionError(f"kbx sandbox: {event} is not allowed")

    sys.addaudithook(hook)


class ReferenceBlocker:
    """A meta-path finder that refuses kbx's own modules (the references among them) to candidate code."""

    def __init__(self, candidate_file: str) -> None:
        self.candidate_file = candidate_file

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if (name == "kernelbenchx" or name.startswith("kernelbenchx.")) and caller_is_candidate(self.candidate_file):
            raise ImportError(f"kbx sandbox: importing {name} is not allowed")
        return None


def block_imports(candidate_file: str) -> None:
    """Forget kbx's modules (so an import must go through the finder) and install the blocker. The harness
    keeps its own references to what it already imported."""
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
    snap = {path: id(resolve_symbol(path)) for path in SYNC_SYMBOLS if torch.cuda.is_available()
            or not path.startswith("torch.cuda")}
    for name, obj in (extra or {}).items():
        snap[name] = id(obj)
        code = getattr(obj, "__code__", None)
        if code is not None:
            snap[name + ".__code__"] = id(code)
    return snap


def changed_symbols(before: dict[str, int], extra: dict[str, Any] | None = None) -> list[str]:
    after = symbol_snapshot(extra)
    return sorted(k for k in before if after.get(k) != before[k])


def thread_count() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()
