"""GPU timing protocol, shared by the candidate process and the trusted baseline process.

One timed call = L2 flush (outside the interval) → start event → the work → end event, with a device-wide
synchronization after each repetition, cycling through several pre-generated input sets so that no two
consecutive calls see the same buffers. When the work can be captured in a CUDA graph (one graph per input
set), the graph is replayed instead: capture rejects work on unjoined side streams, and replay measures GPU
time without Python launch overhead. Repetitions continue until the median's relative 95% confidence
half-width is under the target, or the time budget is spent (recorded as ``budget_exhausted``).

The speedup therefore compares GPU time of the candidate's work with GPU time of the baseline's work on
the same inputs, device and protocol.
"""

from __future__ import annotations

import hashlib
import math
import statistics
import time
from dataclasses import dataclass
from typing import Any, Callable

import torch

from kernelbenchx.dataset.task import iter_tensors

L2_FLUSH_BYTES = 256 << 20

# What the harness reads a timed output through (its digest, its host copy, its sampled values; the inputs'
# fingerprints too), bound when kbx is imported: in a candidate process, before candidate code runs. A candidate
# that replaces the public names (a `hashlib.sha256` whose update() rewrites the buffer it is given, a
# `torch.Tensor.numpy` that returns other bytes) does not change what the harness reads; the symbol snapshot
# (child/observe.py OUTPUT_SYMBOLS, which names the same functions) reports the replacement too.
_sha256, _memoryview, _randint, _view_as_real = hashlib.sha256, memoryview, torch.randint, torch.view_as_real
_empty, _copy = torch.empty, torch.Tensor.copy_
_detach, _to, _contiguous, _reshape, _view, _numpy, _getitem, _fill, _double, _sum, _mul = (
    torch.Tensor.detach, torch.Tensor.to, torch.Tensor.contiguous, torch.Tensor.reshape, torch.Tensor.view,
    torch.Tensor.numpy, torch.Tensor.__getitem__, torch.Tensor.fill_, torch.Tensor.double, torch.Tensor.sum,
    torch.Tensor.mul)


@dataclass(frozen=True)
class DeviceClock:
    """The timing primitives a timing calls, bound when kbx is imported (before candidate code runs). An eager
    sample runs candidate code between its events; a call that replaced `torch.cuda.Event.elapsed_time` and put it
    back before the symbol check (a one-shot patch re-installed by every call) would otherwise have forged every
    sample. Tests put a host-clock stand-in in `CLOCK`'s place."""

    new_event: Callable[[], Any]
    record: Callable[[Any], None]
    query: Callable[[Any], bool]
    elapsed_ms: Callable[[Any, Any], float]
    synchronize: Callable[[], None]
    spin: Callable[[int], None]
    now: Callable[[], float] = time.perf_counter

    @classmethod
    def of(cls, event: type, synchronize: Callable[[], None], spin: Callable[[int], None]) -> DeviceClock:
        return cls(lambda: event(enable_timing=True), event.record, event.query, event.elapsed_time, synchronize,
                   spin)


CLOCK = DeviceClock.of(torch.cuda.Event, torch.cuda.synchronize, torch.cuda._sleep)


@dataclass(frozen=True)
class Protocol:
    input_sets: int = 3
    warmup: int = 3
    min_reps: int = 10
    max_reps: int = 500
    target_rel_ci: float = 0.01
    budget_s: float = 0.5
    use_graphs: bool = True
    batch_ms: float = 1.0  # eager timing: short calls are timed in back-to-back batches of about this long
    max_batch: int = 64


def synchronize(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def median_ci(samples: list[float]) -> tuple[float, float]:
    """Median and the relative half-width of its 95% confidence interval (order-statistic method)."""
    xs = sorted(samples)
    n = len(xs)
    med = statistics.median(xs)
    if n < 6 or med <= 0:
        return med, float("inf")
    half = 1.96 * math.sqrt(n) / 2
    lo, hi = xs[max(0, int(n / 2 - half))], xs[min(n - 1, int(math.ceil(n / 2 + half)))]
    return med, (hi - lo) / 2 / med


def summarize(samples_ms: list[float], method: str, budget_exhausted: bool, host_s: float) -> dict:
    med, rel_ci = median_ci(samples_ms)
    xs = sorted(samples_ms)
    q = lambda p: xs[min(len(xs) - 1, int(p * len(xs)))]  # noqa: E731
    return {"median_ms": med, "rel_ci95": rel_ci if math.isfinite(rel_ci) else None,  # None: too few samples
            "p10_ms": q(0.1), "p90_ms": q(0.9), "min_ms": xs[0],
            "count": len(xs), "method": method, "budget_exhausted": budget_exhausted,
            "event_total_ms": sum(xs), "host_total_ms": host_s * 1e3}


class L2Flusher:
    def __init__(self) -> None:
        self.buffer = torch.empty(L2_FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")

    def __call__(self) -> None:
        _fill(self.buffer, 0x5A5A5A5A)


def syncs_host(fn: Callable[..., Any], args: tuple, kwargs: dict) -> bool:
    """True when one call synchronizes with the host (e.g. torch's linalg error checks read `info`).

    Such work cannot be captured, and attempting it is not harmless: a capture invalidated inside
    cuSOLVER leaves its handle broken (every later sytrf call in the process fails), so it is never tried.
    """
    previous = torch.cuda.get_sync_debug_mode()
    torch.cuda.set_sync_debug_mode("error")
    try:
        fn(*args, **kwargs)
        return False
    except RuntimeError as exc:
        if "synchroniz" in str(exc):
            return True
        raise
    finally:
        torch.cuda.set_sync_debug_mode(previous)
        torch.cuda.synchronize()


def capture_graphs(fn: Callable[..., Any], input_sets: list[tuple[tuple, dict]]) -> tuple[list | None, str]:
    """One CUDA graph per input set, or None when the work cannot be captured; and why (a timing's `why`):
    "captured", "syncs_host" (never tried) or "capture_failed"."""
    if syncs_host(fn, *input_sets[0]):
        return None, "syncs_host"
    graphs = []
    try:
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for args, kwargs in input_sets:  # a warm call on the side stream, as capture requires
                fn(*args, **kwargs)
        torch.cuda.current_stream().wait_stream(stream)
        torch.cuda.synchronize()
        for args, kwargs in input_sets:
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                graph.outputs = fn(*args, **kwargs)
            graphs.append(graph)
        torch.cuda.synchronize()
        return graphs, "captured"
    except Exception:
        torch.cuda.synchronize()
        return None, "capture_failed"


def warm_up(fn: Callable[..., Any], input_sets: list[tuple[tuple, dict]], protocol: Protocol) -> tuple[bool, float]:
    """Run the warm-up calls; stop early once they take longer than the budget. Returns whether the work is
    slow enough that graph capture (more calls, no gain for long work) is not worth it, and the host time of
    the fastest warm-up call in ms (to size eager batches).

    The caller's untimed first call does not count, however long it took: it may have been a one-off. NVRTC
    compiling a jiterator kernel on a server's first polygamma made 10-microsecond baselines look slow, and
    they were timed one eager call at a time (run 30, Math/* case 0). A truly slow case costs one more call."""
    clock = CLOCK
    started, fastest = clock.now(), float("inf")
    for i in range(protocol.warmup):
        args, kwargs = input_sets[i % len(input_sets)]
        called = clock.now()
        fn(*args, **kwargs)
        clock.synchronize()
        fastest = min(fastest, (clock.now() - called) * 1e3)
        if clock.now() - started > protocol.budget_s:
            return True, fastest
    return False, fastest


def time_case(fn: Callable[..., Any], input_sets: list[tuple[tuple, dict]], protocol: Protocol,
              wrap: Callable[[Callable[..., Any]], Callable[..., Any]] | None = None,
              quiet_host: Callable[[bool], None] | None = None,
              laps: dict[str, float] | None = None) -> tuple[dict, list[Any]]:
    """Time `fn` over rotating input sets. Returns summary statistics and, per input set, the output of its
    last timed call (re-checked by the caller). `wrap` (the candidate's observer) wraps every call the
    protocol makes: warm-ups, graph captures and eager timed calls. `laps`, when given, gets the seconds of
    each step (warm_s, capture_s, loop_s): what a timing costs its lane besides its samples.

    Methods, in order of preference: `cuda_graph` (one graph per input set, replayed: GPU time of the work,
    no launch overhead); `eager_batched` (work that cannot be captured and is short: k calls back to back
    between one pair of events, so launch overhead is amortized the way a graph removes it); `eager` (long
    calls, one per sample). The summary's `why` says what chose the method: "captured", or why not:
    "syncs_host", "capture_failed", "slow" (warm-up calls over the budget), "graphs_off"."""
    if wrap is not None:
        fn = wrap(fn)
    lap = Laps(laps)
    flush = L2Flusher()
    slow, per_call_ms = warm_up(fn, input_sets, protocol)
    lap("warm_s")
    graphs, why = None, "slow" if slow else "graphs_off"
    if protocol.use_graphs and not slow:
        graphs, why = capture_graphs(fn, input_sets)
    lap("capture_s")
    outputs: list[Any] = [graph.outputs for graph in graphs] if graphs else [None] * len(input_sets)
    if graphs is not None:
        runners, method, calls = [graph.replay for graph in graphs], "cuda_graph", 1
    else:
        calls = batch_size(per_call_ms, protocol)

        def batch(i: int) -> None:
            for j in range(calls):
                k = (i + j) % len(input_sets)
                args, kwargs = input_sets[k]
                outputs[k] = fn(*args, **kwargs)

        runners = [lambda i=i: batch(i) for i in range(len(input_sets))]
        method = "eager_batched" if calls > 1 else "eager"
    quiet = quiet_host if graphs is None else None  # an eager loop times the host too: others are stopped
    if quiet is not None:
        quiet(True)
    try:
        probe = {} if graphs is not None else {"host_probe_us": host_probe_us()}
        stats = sample_loop(runners, flush, protocol, calls, watch_late=graphs is not None)
    finally:
        if quiet is not None:
            quiet(False)
    lap("loop_s")
    return {**stats, "method": method, "why": why, "calls_per_sample": calls, **probe}, outputs


def host_probe_us(rounds: int = 7, steps: int = 2000) -> float:
    """Microseconds of a fixed pure-Python loop, the median of `rounds`: how fast this process's interpreter runs
    on its core right before an eager timing, whose samples include the host's launch work. Eager timings of the
    same inputs moved 2x between runs (pseudoinverse_svd, runs 68-73) while one-launch cases did not."""
    times = []
    for _ in range(rounds):
        started, total = time.perf_counter(), 0
        for i in range(steps):
            total += i
        times.append(time.perf_counter() - started)
    return round(sorted(times)[rounds // 2] * 1e6, 2)


def batch_size(per_call_ms: float, protocol: Protocol) -> int:
    """Calls per eager sample: about `batch_ms` of calls, rounded down to a power of two (at most `max_batch`).
    The call's host time sets it, and that varies with the host's load: rounded, the same case is batched the
    same way in two runs unless its call time moved by a factor near two (run 32: fused_cholesky_solve case 1
    was sampled in 2-call batches in one run and 4-call batches in the other, 0.210 vs 0.186 ms)."""
    fit = max(1, min(protocol.max_batch, int(protocol.batch_ms / max(per_call_ms, 1e-3))))
    return 1 << (fit.bit_length() - 1)


class Laps:
    """Seconds since the previous lap, recorded under a name into `into` (nothing recorded when it is None)."""

    def __init__(self, into: dict[str, float] | None) -> None:
        self.into, self.clock = into, time.perf_counter()

    def __call__(self, name: str) -> None:
        now = time.perf_counter()
        if self.into is not None:
            self.into[name] = now - self.clock
        self.clock = now


# Graph samples: the device spins this many cycles before the start event, so that the host has submitted the
# replay and the end event before the device reaches them. Learned per process (doubled at each late sample) and
# quartered at the start of each timing, down to PAD_CYCLES_MIN: a pad learned under a passing load must not
# stay. Run 52's baseline server (one process for the whole run) reached the maximum early and kept it: 8 ms of
# spinning before each of its samples, 57 s of the 324 s its GPU's timing lane was held.
PAD_CYCLES_MIN = 1 << 17
PAD_CYCLES = [PAD_CYCLES_MIN]
PAD_CYCLES_MAX = 1 << 24  # about 8 ms at 2 GHz
PAD_DECAY = 4


def sample_loop(runners: list[Callable[[], None]], flush: Callable[[], None], protocol: Protocol,
                calls: int, watch_late: bool = False) -> dict:
    """Repeat timed samples (L2 flushed before each) until the median's CI meets the target or the budget is
    spent (but not before every runner has run once); each sample is the events' interval divided by the calls
    it covered. With several runners (input sets), each one's median is kept too (`set_medians_ms`): one set of
    buffers can read 11% slower than the others of the same shape in some processes (run 33).

    Graph replays (`watch_late`) are padded: the device spins PAD_CYCLES before the start event, so it does not
    reach the event before the host has submitted the replay and the end event. A sample where it did (the
    start event already passed when the submission was done) may hold host time: it is dropped and the pad
    doubled, up to PAD_CYCLES_MAX; past that, such samples are kept and counted in `late_samples`. Each loop
    starts from a quarter of the pad the previous one ended with (at least PAD_CYCLES_MIN). Run 31 (two
    H200s under gVisor, where driver calls are slow) had the flush alone outlasted by the submission in 700 of
    802 timings, which timed ~6-microsecond kernels at up to 27."""
    clock, samples, by_set = CLOCK, [], [[] for _ in runners]
    if watch_late:  # a lasting need is learned again in two dropped samples
        PAD_CYCLES[0] = max(PAD_CYCLES_MIN, PAD_CYCLES[0] // PAD_DECAY)
    started, exhausted, late = clock.now(), False, 0
    start, end = clock.new_event(), clock.new_event()
    while True:
        run = runners[len(samples) % len(runners)]
        flush()
        if watch_late:
            clock.spin(PAD_CYCLES[0])
        clock.record(start)
        run()
        clock.record(end)
        was_late = watch_late and clock.query(start)
        clock.synchronize()
        if was_late:
            late += 1
            if PAD_CYCLES[0] < PAD_CYCLES_MAX:
                PAD_CYCLES[0] *= 2
                continue
        samples.append(clock.elapsed_ms(start, end) / calls)
        by_set[(len(samples) - 1) % len(runners)].append(samples[-1])
        if len(samples) >= protocol.min_reps and median_ci(samples)[1] <= protocol.target_rel_ci:
            break
        if len(samples) >= protocol.max_reps:
            break
        # every input set is timed at least once, even past the budget: the caller re-checks each set's output
        if clock.now() - started > protocol.budget_s and len(samples) >= len(runners):
            exhausted = True
            break
    stats = summarize(samples, "", exhausted, clock.now() - started)
    stats["event_total_ms"] = sum(samples) * calls
    if len(runners) > 1:
        stats["set_medians_ms"] = [statistics.median(xs) for xs in by_set if xs]
    return {**stats, "late_samples": late, "pad_cycles": PAD_CYCLES[0]} if watch_late else stats


def fingerprint(value: Any) -> list[float]:
    """Cheap content summary of tensors (sum and sum of squares in fp64) to compare input sets across processes."""
    out = []
    for t in iter_tensors(value):
        d = _double(_detach(t) if not t.is_complex() else _view_as_real(_detach(t)))
        out += [float(_sum(d)), float(_sum(_mul(d, d)))]
    return out


def output_digest(value: Any) -> str:
    """SHA-256 of every tensor's dtype, shape and bytes, in order: the candidate process digests an output it
    holds back right after timing it, and the parent re-digests what it is sent later, so the output judged is
    the output timed (later candidate code could otherwise repair it in the process's memory)."""
    digest = _sha256()
    for t in iter_tensors(value):
        t = _contiguous(_to(_detach(t), "cpu"))
        digest.update(f"{t.dtype}{tuple(t.shape)};".encode())
        digest.update(_memoryview(_numpy(_view(_reshape(t, -1), torch.uint8))))
    return digest.hexdigest()


def host_copy(value: Any, staged: list[torch.Tensor] = ()) -> Any:
    """A copy of every tensor of `value` in host memory (an output held back for a later fetch). A tensor goes into
    a `staged` buffer of its shape and dtype where there is one (pinned and faulted in before the timing, see
    host_buffers: a fresh pageable copy cost about 0.8 s per GB under gVisor, run 33), else into a new one."""
    from kernelbenchx.dataset.task import map_tensors

    spare = [buf for buf in staged if type(buf) is torch.Tensor]  # a subclass would run its own code in the copy

    def copy(t: torch.Tensor) -> torch.Tensor:
        for i, buf in enumerate(spare):
            if buf.dtype == t.dtype and buf.shape == t.shape and buf.device.type == "cpu":
                return _copy(spare.pop(i), _detach(t))
        return _to(_detach(t), "cpu", copy=True)

    return map_tensors(value, copy)


def host_buffers(layouts: tuple[tuple[tuple[int, ...], str], ...], budget: int) -> tuple[list[torch.Tensor], int]:
    """Pinned host tensors of these shapes and dtypes (names, as perf_case.output_layouts gives them; page-locked,
    so every page is in place before the copy that fills them) while `budget` bytes last, and the bytes left;
    none where pinning fails."""
    buffers = []
    for shape, name in layouts:
        dtype = getattr(torch, name, None)
        if not isinstance(dtype, torch.dtype):
            continue
        size = math.prod(shape) * dtype.itemsize
        if size > budget:
            continue
        try:
            buffers.append(_empty(shape, dtype=dtype, pin_memory=True))
        except RuntimeError:  # no page-locked memory to be had: the copy allocates as before
            break
        budget -= size
    return buffers, budget


def sample_values(value: Any, positions_seed: int, count: int = 4096) -> list[torch.Tensor]:
    """Values of each output tensor at `count` positions chosen by a seed the timed code never saw."""
    gen = torch.Generator().manual_seed(positions_seed)
    picked = []
    for t in iter_tensors(value):
        flat = _reshape(_detach(t), -1)
        if flat.numel() == 0:
            picked.append(_to(flat, "cpu"))
            continue
        idx = _randint(0, flat.numel(), (min(count, flat.numel()),), generator=gen)
        picked.append(_to(_getitem(flat, _to(idx, flat.device)), "cpu"))
    return picked
