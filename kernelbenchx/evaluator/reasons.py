"""Verdicts and the reasons behind them: every candidate ends in exactly one Verdict, named by one Reason.

A Reason is a machine-readable code (the string in the record's ``reason.code``) that belongs to exactly one
verdict; the result schema enumerates the codes (generated from this enum, kept in sync by a test). Code that
ends a candidate raises ``Rejected(Reason.X, message)``; nothing classifies a failure by searching its text.
"""

from __future__ import annotations

from enum import Enum
from typing import Any


class Verdict(str, Enum):
    INPUT_ERROR = "input_error"  # the submission line itself is unusable (malformed, unknown task, empty code)
    COMPILE_ERROR = "compile_error"
    MISSING_ENTRY = "missing_entry"
    NO_TRITON_KERNEL = "no_triton_kernel"
    FORBIDDEN = "forbidden"
    RUNTIME_ERROR = "runtime_error"
    TIMEOUT = "timeout"
    CRASH = "crash"
    INCORRECT = "incorrect"
    UNSUPPORTED_ON_CPU = "unsupported_on_cpu"  # neither a pass nor a failure: the CPU interpreter cannot run it
    IMPLAUSIBLE = "implausible"
    CORRECT = "correct"

    @property
    def compiled(self) -> bool:
        return self not in (Verdict.INPUT_ERROR, Verdict.COMPILE_ERROR, Verdict.MISSING_ENTRY,
                            Verdict.NO_TRITON_KERNEL)

    @property
    def undecided(self) -> bool:
        """Neither a pass nor a failure of the kernel (counted apart in summaries)."""
        return self is Verdict.UNSUPPORTED_ON_CPU


V = Verdict


class Reason(str, Enum):
    """Every reason code, with its verdict and what it means."""

    verdict: Verdict
    meaning: str

    def __new__(cls, code: str, verdict: Verdict, meaning: str) -> "Reason":
        obj = str.__new__(cls, code)
        obj._value_ = code
        obj.verdict = verdict
        obj.meaning = meaning
        return obj

    # input_error
    MALFORMED_JSON = ("malformed_json", V.INPUT_ERROR, "the line is not a JSON object")
    NOT_UTF8 = ("not_utf8", V.INPUT_ERROR, "the line or file is not UTF-8")
    MISSING_FIELD = ("missing_field", V.INPUT_ERROR, "task id or code missing")
    BAD_FIELD = ("bad_field", V.INPUT_ERROR, "a field has the wrong type")
    UNKNOWN_TASK = ("unknown_task", V.INPUT_ERROR, "no task has this id")
    EMPTY_CODE = ("empty_code", V.INPUT_ERROR, "the code is empty after removing markdown fences")
    # compile_error / missing_entry / no_triton_kernel
    SYNTAX_ERROR = ("syntax_error", V.COMPILE_ERROR, "the code does not parse")
    IMPORT_FAILED = ("import_failed", V.COMPILE_ERROR, "importing the code raised")
    MISSING_ENTRY = ("missing_entry", V.MISSING_ENTRY, "the entry function is not defined")
    NO_JIT_KERNEL = ("no_jit_kernel", V.NO_TRITON_KERNEL, "no @triton.jit kernel is defined")
    KERNEL_NOT_LAUNCHED = ("kernel_not_launched", V.NO_TRITON_KERNEL, "no kernel launch on the entry's call path")
    NO_LAUNCH = ("no_launch", V.NO_TRITON_KERNEL, "a call launched no Triton kernel")
    # forbidden: static rules (parent/allowlist.py)
    IMPORT_NOT_ALLOWED = ("import_not_allowed", V.FORBIDDEN, "an import outside the allowlist")
    IMPORTS_REFERENCE = ("imports_reference", V.FORBIDDEN, "imports kbx's own modules")
    THREADS = ("threads", V.FORBIDDEN, "threads or async code")
    SUBPROCESSES = ("subprocesses", V.FORBIDDEN, "subprocesses")
    CTYPES = ("ctypes", V.FORBIDDEN, "native code through ctypes/cffi")
    INTROSPECTION = ("introspection", V.FORBIDDEN, "frames, globals, dunder attributes or runtime internals")
    OS_ACCESS = ("os_access", V.FORBIDDEN, "the os or sys modules")
    NETWORK = ("network", V.FORBIDDEN, "network access")
    DYNAMIC_IMPORT = ("dynamic_import", V.FORBIDDEN, "imports by computed name")
    DYNAMIC_CODE = ("dynamic_code", V.FORBIDDEN, "code from strings (exec, eval, compile, pickle, type())")
    MONKEYPATCH = ("monkeypatch", V.FORBIDDEN, "replacing functions of torch, triton, builtins or the harness")
    FILE_ACCESS = ("file_access", V.FORBIDDEN, "opening files")
    HOST_COMPUTE = ("host_compute", V.FORBIDDEN, "computing on the host (numpy, tolist, buffers)")
    CROSS_CALL_STATE = ("cross_call_state", V.FORBIDDEN, "state kept across calls (caches, globals)")
    TORCH_COMPILE = ("torch_compile", V.FORBIDDEN, "torch.compile, dynamo, inductor or TorchScript")
    STREAMS = ("streams", V.FORBIDDEN, "extra CUDA streams")
    CUDA_GRAPHS = ("cuda_graphs", V.FORBIDDEN, "CUDA graphs")
    NATIVE_EXTENSION = ("native_extension", V.FORBIDDEN, "native extensions, torch.ops or torch._C")
    TENSOR_SUBCLASS = ("tensor_subclass", V.FORBIDDEN, "tensor subclasses or storage tricks")
    TIMING = ("timing", V.FORBIDDEN, "benchmarking utilities")
    INLINE_ASM = ("inline_asm", V.FORBIDDEN, "inline assembly")
    CLASS_DEFINITION = ("class_definition", V.FORBIDDEN, "class definitions")
    COMPUTED_ATTRIBUTE = ("computed_attribute", V.FORBIDDEN, "getattr/hasattr with a computed name")
    MODULE_VALUE = ("module_value", V.FORBIDDEN, "a module object used as a value")
    PRIVATE_ATTRIBUTE = ("private_attribute", V.FORBIDDEN, "a private (_x) attribute")
    ATTRIBUTE_NOT_ALLOWED = ("attribute_not_allowed", V.FORBIDDEN, "an attribute outside the allowlist")
    TORCH_SURFACE = ("torch_surface", V.FORBIDDEN, "a torch API outside the allowed surface")
    BUILTIN_NOT_ALLOWED = ("builtin_not_allowed", V.FORBIDDEN, "a builtin outside the allowlist")
    DECORATOR_NOT_ALLOWED = ("decorator_not_allowed", V.FORBIDDEN, "a decorator outside the allowlist")
    LAUNCH_CALLBACK = ("launch_callback", V.FORBIDDEN, "a callable passed to a launch or autotune hook")
    TRY_EXCEPT_FALLBACK = ("try_except_fallback", V.FORBIDDEN, "try/except on the call path")
    # forbidden: runtime observations, judged by the parent
    TORCH_COMPUTE = ("torch_compute", V.FORBIDDEN, "PyTorch computed outside Triton kernels")
    INPUT_MUTATION = ("input_mutation", V.FORBIDDEN, "an input was modified")
    OUTPUT_ALIASES_INPUT = ("output_aliases_input", V.FORBIDDEN, "an output shares memory with an input")
    DEFERRED_WORK = ("deferred_work", V.FORBIDDEN, "outputs changed after the call returned")
    BAD_OUTPUT = ("bad_output", V.FORBIDDEN, "an output of an unsupported type or size")
    SANDBOX_VIOLATION = ("sandbox_violation", V.FORBIDDEN, "an operation the sandbox refuses")
    OBSERVER_DISABLED = ("observer_disabled", V.FORBIDDEN, "the observation layer was disabled or replaced")
    INPUT_TAMPERING = ("input_tampering", V.FORBIDDEN, "the candidate saw other inputs than the trusted side")
    TIMER_TAMPERING = ("timer_tampering", V.FORBIDDEN, "timing results inconsistent with host time")
    # runtime_error / timeout / crash
    EXCEPTION = ("exception", V.RUNTIME_ERROR, "a call raised")
    OUT_OF_MEMORY = ("out_of_memory", V.RUNTIME_ERROR, "a call ran out of memory")
    OUTPUT_LIMIT = ("output_limit", V.RUNTIME_ERROR, "wrote more than the file size limit")
    PERF_EXCEPTION = ("perf_exception", V.RUNTIME_ERROR, "a call raised at perf size")
    WALL_CLOCK = ("wall_clock", V.TIMEOUT, "no reply within the time limit")
    PERF_TIMEOUT = ("perf_timeout", V.TIMEOUT, "the perf stage did not finish within its allowance")
    PROCESS_DIED = ("process_died", V.CRASH, "the candidate process died")
    PROTOCOL = ("protocol", V.CRASH, "the candidate process broke the reply protocol")
    HARNESS_ERROR = ("harness_error", V.CRASH, "a fault on the trusted side (not the candidate's)")
    REFERENCE_FAILED = ("reference_failed", V.CRASH, "the reference failed on this task")
    BASELINE_FAILED = ("baseline_failed", V.CRASH, "the baseline failed at perf size")
    INTERRUPTED = ("interrupted", V.CRASH, "the run was interrupted before this candidate finished")
    # incorrect
    STAGE1 = ("stage1", V.INCORRECT, "a fixed edge case failed")
    STAGE2 = ("stage2", V.INCORRECT, "a random case failed")
    PERF_RECHECK = ("perf_recheck", V.INCORRECT, "an output at perf size failed its re-check")
    OUT_OF_BOUNDS_WRITE = ("out_of_bounds_write", V.INCORRECT, "a kernel wrote past the end of an input tensor")
    NONDETERMINISTIC = ("nondeterministic", V.INCORRECT, "a repeated call broke the contract")
    SEED_IGNORED = ("seed_ignored", V.INCORRECT, "a different seed gave the same output")
    # unsupported_on_cpu / implausible / correct
    BFLOAT16 = ("bfloat16", V.UNSUPPORTED_ON_CPU, "the task needs bf16, which the CPU interpreter computes wrongly")
    INTERPRETER_LIMIT = ("interpreter_limit", V.UNSUPPORTED_ON_CPU,
                        "the interpreter raised on autotune, libdevice or inline asm")
    FASTER_THAN_ROOFLINE = ("faster_than_roofline", V.IMPLAUSIBLE, "faster than the hardware allows")
    PASSED = ("passed", V.CORRECT, "passed stage 1 and stage 2")


def reason_for(code: str) -> Reason:
    return Reason(code)


class Rejected(Exception):
    """Raised inside the pipeline to end a candidate with a reason (its verdict follows from it)."""

    def __init__(self, reason: Reason, message: str, **details: Any) -> None:
        super().__init__(message)
        self.reason, self.message, self.details = reason, message, details

    @property
    def verdict(self) -> Verdict:
        return self.reason.verdict
