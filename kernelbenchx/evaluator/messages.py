"""Every request and reply exchanged between kbx's processes, as one typed definition each, and the codec.

Processes: the trusted parent (kbx eval), the trusted reference/timing servers (trusted/server.py) and the
untrusted candidate process (child/harness.py). A message is a frozen dataclass registered here; on the wire
it is a length-prefixed `torch.save` frame of plain data (``{"__kbx__": name, **fields}``, tensors inside),
loaded with ``weights_only=True``, so nothing a process sends can execute code in the one that reads it.
``decode`` refuses unknown types and unknown or missing fields: a candidate cannot smuggle a reply of the
wrong shape to the parent.
"""

from __future__ import annotations

import dataclasses
import io
import struct
from dataclasses import dataclass
from typing import Any, Callable

import torch

from kernelbenchx.evaluator import bulk

HEADER = struct.Struct("<Q")
MAX_FRAME = 1 << 34  # 16 GiB: a perf-size output sent back for the lane's recheck reaches 4.3 GB
# (Fusion/fused_add_mul_groupnorm at 16x64x128x8192 fp32); a process that claims more is flooding the channel
REGISTRY: dict[str, type] = {}


class ProtocolError(Exception):
    """A frame that is not a well-formed kbx message."""


def message(cls: type) -> type:
    """Class decorator: a frozen dataclass that can cross a process boundary."""
    cls = dataclass(frozen=True)(cls)
    REGISTRY[cls.__name__] = cls
    return cls


# -------------------------------------------------------------------------------------------------------------
# Shared parts


@message
class ErrorInfo:
    """An exception raised in another process: its type, message, formatted traceback and frames (file,
    line, function), innermost last. The parent decides from the frames where it came from."""

    type: str
    message: str
    traceback: str = ""
    frames: tuple = ()
    errno: int | None = None  # for OSError: EPERM/EACCES mean a sandbox layer refused the operation


@message
class Failed:
    """Reply of any server when a request could not be served."""

    error: ErrorInfo


# -------------------------------------------------------------------------------------------------------------
# Parent → candidate process (child/harness.py)


@message
class OpenDevice:
    """Parent → candidate process, before Load and outside the GPU's guard: import Triton, create the CUDA
    context and Triton's driver utilities. No candidate code has run yet; nothing is launched on the GPU."""
    device: str


@message
class DeviceOpened:
    phases: dict = dataclasses.field(default_factory=dict)  # seconds: cuda_s, triton_driver_s


@message
class Load:
    code: str
    entry: str
    task_id: str
    device: str
    compile_threads: int = 0  # threads for the correctness warm-up's compiles (child/compile_threads.py)


@message
class Loaded:
    import_s: float
    isolation: tuple = ()  # the confinement layers the process applied to itself before importing the code
    phases: dict = dataclasses.field(default_factory=dict)  # seconds before the import: confine_s


@message
class LoadFailed:
    stage: str  # "import" (the code raised) or "entry" (the entry is not a callable)
    message: str
    error: ErrorInfo | None = None
    refused: tuple = ()  # operations the in-process guard refused during the import


@message
class RunCase:
    name: str
    call: dict  # Call payload: {"args": [...], "kwargs": {...}}
    repeat: bool = False  # call a second time on fresh copies of the inputs
    reseed: str | None = None  # call once more with this keyword argument changed (RNG tasks)
    mutates: tuple = ()  # positional arguments updated in place: compared after the call
    lease: bool = False  # give the GPU back while Triton compiles (GpuRelease / GpuAcquire below)


@message
class Observation:
    """What the harness saw during one call: raw facts, no judgement."""

    launches: int  # Triton kernel launches
    ops: dict  # aten overload packet → times it ran outside Triton's own launch code
    threads_before: int
    threads_after: int
    observer_intact: bool  # the op recorder and launch counter were in place for the whole call
    thread_attempts: int = 0  # threads the call tried to start (seccomp refuses them; Python's are counted)
    refused: tuple = ()  # operations the in-process guard refused (audit events)
    calls: int = 1  # calls this observation covers (perf stages merge every call of a case)
    new_threads: tuple = ()  # names (/proc comm) of threads present after the call and not before it
    armed: tuple = ()  # interval timers and Python signal handlers set after the call (observe.armed)
    processes: tuple = ()  # processes alive after the call that were not before candidate code ran


@message
class CaseReport:
    name: str
    observation: Observation | None
    error: ErrorInfo | None = None
    bad_output: str | None = None  # output of an unsupported type or size (never copied)
    output: Any = None  # compared outputs (return value, then in-place arguments), on the CPU
    changed_inputs: tuple = ()  # indices (among all tensor inputs) whose contents changed
    aliased_inputs: tuple = ()  # indices of tensor inputs sharing storage with an output
    overrun_inputs: tuple = ()  # indices of tensor inputs whose guard band (views.GUARD_BYTES) was written
    overrun_allocations: int = 0  # tensors the call allocated whose guard band was written
    deferred: bool = False  # an output changed after the call returned
    repeat_output: Any = None
    repeat_failed: bool = False
    reseed_output: Any = None
    extra_observations: tuple = ()  # of the repeated / reseeded calls


@message
class Verify:
    pass


@message
class Symbols:
    changed: tuple  # trusted functions whose identity changed since load


# -------------------------------------------------------------------------------------------------------------
# Candidate process → parent in the middle of a request that allows it (`lease`): compiling needs no GPU, so
# the share of the GPU's guard held for the request is given back meanwhile (parent/gpu_guard.Lease).


@message
class GpuRelease:
    pass


@message
class GpuAcquire:
    pass


@message
class GpuGranted:
    """Parent → candidate: the guard is held again; the request goes on."""


@message
class HostQuiet:
    """Timing process → parent: a sample loop that measures host time too (eager: work that cannot be captured)
    starts (`on`, answered by Quieted once the other candidate processes are stopped) or ends (no answer)."""
    on: bool


@message
class Quieted:
    pass


INTERIM = (GpuRelease, GpuAcquire, HostQuiet)


# -------------------------------------------------------------------------------------------------------------
# Perf: parent → candidate process and parent → trusted timing lane


@message
class TimeCase:
    task_id: str
    case: int  # index of the task's perf case
    seeds: tuple  # one per input set, derived from the run's secret seed
    positions_seed: int  # which output positions are sampled for the re-check (drawn after timing)
    recheck_seed: int  # inputs of the post-timing call, never seen before
    protocol: dict
    baseline_ms: float | None = None  # the baseline's median (a candidate this much slower is timed once)
    baseline: str = "eager"  # lane only: eager, compile
    tf32: bool = False  # lane only: run the baseline under the task's precision admission
    full_output: bool = False  # hold input set 0's whole output for FetchOutput (custom checks judge it whole)
    cpus: tuple = ()  # candidate only: move to these cores (reserved for this GPU's timings) before timing
    lease: bool = False  # candidate only: give the GPU back while Triton compiles
    recheck: bool = True  # make the post-timing call on fresh inputs (unless the output is judged whole)
    quiet_host: bool = False  # the parent answers HostQuiet: eager sample loops ask for the host to be quiet


@message
class WarmPerf:
    """Parent → candidate process, before it queues for the timing lane: compile what its perf cases will
    launch, calling the entry on fake tensors (child/warm.py). Only the observation's tampering rules can
    decide a verdict from it."""

    # the perf outputs will be held (TimeCase.full_output): per perf case, the (shape, dtype name) of each output
    # tensor, computed by the parent; the process stages host buffers for them now
    hold: tuple = ()


@message
class WarmBuild:
    """Parent → candidate process, after WarmPerf, with the GPU's shared guard held: build perf case 0's inputs
    once and drop them, so the input generator's kernels are loaded before the lane (Warmed replies)."""


@message
class WarmCases:
    """Parent → candidate process, after Load, before stage 1: compile what its correctness cases will launch,
    calling the entry on fake tensors laid out as the cases' inputs (child/warm.py)."""

    calls: tuple  # Call payloads whose tensors are TensorLayouts


@message
class TensorLayout:
    """A tensor without its values: enough to build a fake tensor that specializes a Triton launch the same."""

    dtype: str
    size: tuple
    stride: tuple
    storage_offset: int
    storage_size: int  # elements of the storage the view lies in


@message
class Warmed:
    cases: int  # the task's perf cases
    warmed: int  # cases whose call ran to its end on fake tensors
    compiles: int  # Triton compiles done (cache misses), autotuner configs included
    seconds: float
    skipped: tuple = ()  # "case N: Error: message" for cases that cannot run on fake tensors
    observation: Observation | None = None  # tampering facts only (threads, refusals, hooks left in place)
    # correctness warm-up: each distinct launcher signature compiled (its argument types), for the parent's shared
    # module builds (parent/triton_modules.py); untrusted, checked there
    launchers: tuple = ()
    phases: dict = dataclasses.field(default_factory=dict)  # WARM_PHASES (child/warm.py); untrusted, diagnostics


WARM_PHASES = ("first_case_s", "calls_s", "compiled_s", "cpu_s", "main_cpu_s", "tools_cpu_s")


@message
class PerfReport:
    name: str
    fingerprints: tuple
    timing: dict
    samples: tuple  # per input set: the values at the sampled positions
    phases: dict
    observation: Observation | None = None  # candidate only
    recheck: Any = None
    cost: dict | None = None  # lane only: flops, bytes, unit
    output_digest: str | None = None  # with full_output: protocol.output_digest of the output held back


@message
class FetchOutput:
    """Parent → candidate process, after its timings, off the lane: send the whole output of a perf case held
    back by TimeCase(full_output=True). Sent inside the lane, gigabytes held the GPU idle for seconds."""

    case: int


@message
class HeldOutput:
    case: int
    output: Any


@message
class PerfCheck:
    """Judge: a candidate's full perf-size output judged with the task's own check, on `device` ("cuda": the
    inputs, the reference and the judgement stay on the judge's GPU; "cpu": all moved to the CPU)."""

    task_id: str
    case: int
    seed: int
    output: Any
    device: str = "cuda"
    guarded: bool = False  # take the GPU's shared guard (GpuAcquire … GpuRelease) around the GPU work


@message
class Prepare:
    """Trusted server: start CUDA and what timing uses now, before the first request waits for it (a lane
    started by its first timing held the GPU alone through its own start-up: 5 s in run 20). A judge or a
    reference server (timing=False) only creates its CUDA context, with no kernel: its first guarded turn
    created it under the shared guard (up to 8 s in run 24)."""

    timing: bool = True


@message
class Prepared:
    seconds: float


@message
class CheckResult:
    reason: str | None
    note: str = ""  # set by the parent: how it was judged, when not as asked
    # the trusted judge's own time: its guarded turn (turn_s, of which guard_wait_s queued for the guard, in
    # `yields` + 1 waits) and the host-only step after it (host_s: a stochastic task's statistical battery)
    phases: dict = dataclasses.field(default_factory=dict)


# -------------------------------------------------------------------------------------------------------------
# Parent → trusted reference server


@message
class ExpectedRequest:
    task_id: str
    seed: int  # stage-2 seed, derived from the run's secret seed
    device: str
    guarded: bool = False  # take the GPU's shared guard (GpuAcquire … GpuRelease) around the GPU work


@message
class ExpectedRow:
    name: str
    call: dict
    expected: Any
    reseed_sensitive: bool = False


@message
class ContractCheck:
    """An output to judge against its task's contract: the parent to a contract judge (parent/contract_judges.py)."""

    task_id: str
    call: dict
    output: Any
    expected: Any


@message
class Expected:
    stages: dict  # "stage1" / "stage2" → tuple of ExpectedRow


# -------------------------------------------------------------------------------------------------------------
# Codec


def to_wire(value: Any, place: Callable[[torch.Tensor], Any] | None = None) -> Any:
    """Plain data of a message; `place` may swap a tensor for a reference to its copy in a bulk region."""
    if dataclasses.is_dataclass(value) and type(value).__name__ in REGISTRY:
        return {"__kbx__": type(value).__name__,
                **{f.name: to_wire(getattr(value, f.name), place) for f in dataclasses.fields(value)}}
    if isinstance(value, tuple):
        return tuple(to_wire(v, place) for v in value)
    if isinstance(value, list):
        return [to_wire(v, place) for v in value]
    if isinstance(value, dict):
        return {k: to_wire(v, place) for k, v in value.items()}
    if place is not None and isinstance(value, torch.Tensor):
        return place(value)
    return value


def from_wire(value: Any, expect_message: bool = False, take: Callable[[Any], torch.Tensor] | None = None) -> Any:
    """The message of plain data; `take` turns a bulk region's references back into tensors (none allowed
    without it)."""
    if isinstance(value, dict) and isinstance(value.get("__kbx__"), str) and value["__kbx__"] in REGISTRY:
        cls = REGISTRY[value["__kbx__"]]
        names = {f.name for f in dataclasses.fields(cls)}
        given = set(value) - {"__kbx__"}
        required = {f.name for f in dataclasses.fields(cls)
                    if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
        if given - names or required - given:
            raise ProtocolError(f"{cls.__name__}: unexpected fields {sorted(given - names)}, "
                                f"missing {sorted(required - given)}")
        return cls(**{k: from_wire(value[k], take=take) for k in given})
    if expect_message:
        raise ProtocolError(f"not a kbx message: {type(value).__name__}")
    if isinstance(value, tuple):
        return tuple(from_wire(v, take=take) for v in value)
    if isinstance(value, list):
        return [from_wire(v, take=take) for v in value]
    if isinstance(value, dict):
        if set(value) == {bulk.KEY}:
            if take is None:
                raise ProtocolError("a bulk reference where no region was shared")
            try:
                return take(value[bulk.KEY])
            except bulk.BulkError as exc:
                raise ProtocolError(f"bad bulk reference: {exc}") from None
        return {k: from_wire(v, take=take) for k, v in value.items()}
    return value


def encode(msg: Any, region: bulk.Region | None = None) -> bytes:
    """One frame; with a region its side writes, large tensors go there and the frame holds references."""
    place = bulk.Writer(region).place if region is not None else None
    buf = io.BytesIO()
    torch.save(to_wire(msg, place), buf)
    data = buf.getvalue()
    return HEADER.pack(len(data)) + data


def decode(data: bytes, region: bulk.Region | None = None) -> Any:
    """The message in a frame; with a region its side reads, references become tensors (bulk.Reader)."""
    try:
        raw = torch.load(io.BytesIO(data), weights_only=True)
    except Exception as exc:  # anything unloadable is a protocol violation, whatever torch raised
        raise ProtocolError(f"undecodable frame: {type(exc).__name__}: {exc}") from None
    return from_wire(raw, expect_message=True, take=bulk.Reader(region).take if region is not None else None)


def error_info(exc: BaseException, limit: int = 20) -> ErrorInfo:
    """ErrorInfo of an exception caught in this process."""
    import os
    import traceback

    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-3000:]
    frames = tuple((os.path.realpath(f.filename), f.lineno, f.name)
                   for f in traceback.extract_tb(exc.__traceback__))[-limit:]
    code = exc.errno if isinstance(exc, OSError) and isinstance(exc.errno, int) else None
    return ErrorInfo(type(exc).__name__, str(exc)[:2000], text, frames, code)

