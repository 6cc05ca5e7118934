"""What one run's candidates share: its configuration (RunConfig) and its state (Run: the seed, the isolation
plan, the trusted servers, GPU guards and lanes, reserved cores, the pool of started candidate processes)."""

from __future__ import annotations

import hashlib
import json
import os
import resource
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, ContextManager

import torch

from kernelbenchx.errors import DeviceError, IsolationError, UsageError
from kernelbenchx.evaluator import bulk, isolation, process
from kernelbenchx.evaluator.child import warm
from kernelbenchx.evaluator.child.compile_threads import COMPILE_THREADS
from kernelbenchx.evaluator import messages as m
from kernelbenchx.evaluator.measure import environment, perf_stage, roofline
from kernelbenchx.evaluator.measure.environment import interpreter_problem
from kernelbenchx.evaluator.measure.protocol import Protocol
from kernelbenchx.evaluator.parent import gpu_guard, watch
from kernelbenchx.evaluator.parent.candidate import new_process, start_fork_servers
from kernelbenchx.evaluator.parent.contract_judges import MAX_PROCESSES as MAX_JUDGE_PROCESSES
from kernelbenchx.evaluator.parent.contract_judges import ContractJudges, in_parent
from kernelbenchx.evaluator.parent.judge import ContractJudge
from kernelbenchx.evaluator.parent.host_quiet import HostQuiet
from kernelbenchx.evaluator.parent.pool import ProcessPool
from kernelbenchx.evaluator.parent.references import (JUDGES_PER_GPU, ExpectedOutputs, ServerPool, TrustedServer,
                                                      prefetch)
from kernelbenchx.evaluator.parent.schedule import ORDERS
from kernelbenchx.evaluator.parent.submission import Candidate
from kernelbenchx.evaluator.parent.summary import TASK_SETS
from kernelbenchx.evaluator.parent.triton_modules import TritonModules
from kernelbenchx.evaluator.result import Result

Progress = Callable[[int, int, "Result | None"], None]  # done, total, the result just written (None at start)


# Candidates in flight per GPU when --workers is automatic: what runs 17-26 of docs/performance.md used (16 cores
# per GPU; CPU 40-65% busy, the lane fed); the earlier default of 8 left a 16-core GPU host's lane idle.
AUTO_WORKERS_PER_GPU = 20
JUDGE_CORES = 8  # usable cores per contract-judge process when --judge-processes is automatic (GPU runs)


@dataclass
class RunConfig:
    """Everything a run can be told; the defaults are what `kbx eval` does."""

    out_dir: Path | None = None
    device: str | None = None  # "cpu", "cuda", "cuda:N", or None for cuda when available
    seed: int | None = None  # None: a fresh secret seed (kept on resume)
    resume: bool = False
    overwrite: bool = False
    workers: int = 0  # 0: automatic (resolved_workers)
    timeout_s: float = 300.0  # a candidate's import and correctness stages
    perf_timeout_s: float = 90.0  # a candidate's perf stage, counted from when it holds its GPU's lane
    baselines: tuple[str, ...] = ("eager",)
    perf: bool = True
    warm_up: bool = True  # compile the correctness and perf cases' kernels on fake inputs first (parent/warm_up.py)
    compile_threads: int = COMPILE_THREADS  # the correctness warm-up's compiles side by side (child/compile_threads.py)
    compile_slots: int = 0  # candidates compiling their correctness kernels at once (0: cores // compile_threads)
    quiet_host: bool = False  # stop other candidates while a timing measures host time (parent/host_quiet.py; off:
    # runs 31 (gVisor) and 66 (Firecracker) measured it slower and no more repeatable, docs/performance.md)
    task_set: str = "paper"  # paper | all | faithful | submitted
    order: str = "expected"  # which start first: expected (longest first) | mixed | submission (parent/schedule.py)
    fork_server: bool = True  # candidate processes forked from a zygote per GPU (forkserver.py), not exec'd
    judge_processes: int = -1  # worker processes judging outputs against contracts (-1: automatic,
    # resolved_judge_processes; 0: in the parent; parent/contract_judges.py)
    device_opens: int = 0  # candidate processes creating their CUDA context at once, in the order they started (0:
    # no limit). Runs 75-78: a first wave's opens seemed served one after another at ~0.25-0.3 s each, host-wide
    # (per GPU all 20 ended within 1-4 s, GPU 1's after GPU 0's; GPU 1's first timing at 39-46 s after launch):
    # a few at a time in start order would give the first candidates theirs first. Opt-in until a run measures it.
    isolation: bool = True  # OS isolation layers (off only to show what the in-process layer does alone)
    require_isolation: bool = False  # refuse to run unless every isolation layer is available
    static_checks: bool = True  # off only in tests that prove the runtime layer contains faults by itself
    ray: str | None = None  # spread candidates over a Ray cluster: "auto", an address, or "local"
    progress: Progress | None = None
    protocol: Protocol = field(default_factory=Protocol)

    def resolved_device(self) -> str:
        device = self.device or ("cuda" if torch.cuda.is_available() else "cpu")
        if device != "cpu" and not (device == "cuda" or device.startswith("cuda:")):
            raise DeviceError(f"unknown device {device!r}", hint="use cpu or cuda (or cuda:N)")
        if device == "cpu" and (problem := interpreter_problem()):
            raise DeviceError(problem, hint="install numpy<2.4, or evaluate on a GPU")
        if device.startswith("cuda") and not torch.cuda.is_available():
            raise DeviceError(f"--device {device}, but no CUDA device is visible here",
                              hint="run with --device cpu (the Triton interpreter, no timing) or on a GPU machine")
        return device

    def resolved_workers(self) -> int:
        """--workers, or automatically: on GPUs, AUTO_WORKERS_PER_GPU per GPU used, at most 5 per 4 cores (a
        candidate spends much of its time waiting for its GPU's guard or lane); on the CPU one per core, at most 8."""
        if self.workers < 0:
            raise UsageError(f"--workers must be 0 (automatic) or positive, got {self.workers}")
        if self.workers:
            return self.workers
        cores = usable_cores()
        if self.device != "cpu" and torch.cuda.is_available():
            gpus = 1 if (self.device or "").startswith("cuda:") else torch.cuda.device_count()
            return max(1, min(AUTO_WORKERS_PER_GPU * gpus, cores * 5 // 4))
        return max(1, min(8, cores))

    def resolved_compile_slots(self) -> int:
        """compile_slots, or automatically the cores over each warm-up's compile threads. One H200, 16 cores, the
        same half set (docs/performance.md, runs 37-39): with 4 slots the first timing came at 16 s and the lane
        held 104-109 s (218 and 221 s in all); with 8, 23 s and 120 s (256 s); with no slots, 41 s and 121-131 s.
        The lane's own host work slows when more compiles run beside it."""
        if self.compile_slots < 0:
            raise UsageError(f"compile slots must be 0 (automatic) or positive, got {self.compile_slots}")
        return self.compile_slots or max(1, usable_cores() // max(1, self.compile_threads))

    def resolved_judge_processes(self) -> int:
        """judge_processes, or automatically one per JUDGE_CORES usable cores on GPU runs and none on the CPU. Two
        H200s, 32 cores, the half set in one call (run 74): in the parent 131 s with the parent at 108 CPU-s, with 4
        judge processes 117 s and 75 CPU-s. CPU runs are bound by the interpreter in the candidates, not the parent."""
        if self.judge_processes >= 0:
            return self.judge_processes
        if self.device == "cpu" or not torch.cuda.is_available():
            return 0
        return max(1, min(MAX_JUDGE_PROCESSES, usable_cores() // JUDGE_CORES))

    def check(self) -> None:
        if self.task_set not in TASK_SETS:
            raise UsageError(f"unknown task set {self.task_set!r}", hint=f"use one of {', '.join(TASK_SETS)}")
        if self.order not in ORDERS:
            raise UsageError(f"unknown start order {self.order!r}", hint=f"use one of {', '.join(ORDERS)}")
        names = set(self.baselines)
        if not names <= {"eager", "compile", "solution"} or "eager" not in names:
            raise UsageError(f"baselines must include eager and may add compile and solution, got "
                             f"{','.join(self.baselines)}")
        if self.timeout_s <= 0 or self.perf_timeout_s <= 0:
            raise UsageError("timeouts must be positive")
        if not 0 <= self.compile_threads <= MAX_COMPILE_THREADS:
            raise UsageError(f"compile threads must be 0 to {MAX_COMPILE_THREADS}, got {self.compile_threads}",
                             hint="0 compiles one kernel after another inside the candidate's calls")
        if not 0 <= self.device_opens <= MAX_DEVICE_OPENS:
            raise UsageError(f"device opens must be 0 (no limit) to {MAX_DEVICE_OPENS}, got {self.device_opens}")
        if not -1 <= self.judge_processes <= MAX_JUDGE_PROCESSES:
            raise UsageError(f"judge processes must be -1 (automatic) or 0 to {MAX_JUDGE_PROCESSES}, got "
                             f"{self.judge_processes}", hint="0 judges every output in the evaluating process itself")
        self.resolved_workers()
        self.resolved_compile_slots()


@dataclass(frozen=True)
class CpuPlan:
    """Cores the timing needs kept quiet: on hosts with enough cores, each GPU's lane and the candidate it
    times run on reserved cores, and every other candidate process on the rest (no process start or check
    competes with a timing loop for its core)."""

    work: tuple[int, ...] = ()
    timing: tuple[tuple[int, ...], ...] = ()  # per GPU

    @classmethod
    def for_host(cls, gpus: int, siblings: Callable[[int], frozenset[int]] | None = None) -> "CpuPlan":
        """At least two CPUs per GPU, taken as whole physical cores from the end of this process's affinity: a
        timing loop on one thread of a core whose other thread compiles runs slower by up to half (`siblings`:
        the logical CPUs sharing a CPU's core, from sysfs by default)."""
        try:
            cores = sorted(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            return cls()
        if not gpus or len(cores) < 4 * gpus + 4:
            return cls()
        groups = physical_cores(cores, siblings or core_siblings)
        timing: list[tuple[int, ...]] = []
        while len(timing) < gpus and groups:
            taken: list[int] = []
            while len(taken) < 2 and groups:
                taken.extend(groups.pop())
            timing.append(tuple(sorted(taken)))
        reserved = {c for group in timing for c in group}
        if len(timing) < gpus or len(cores) - len(reserved) < len(cores) // 2:
            return cls()
        return cls(tuple(c for c in cores if c not in reserved), tuple(sorted(timing)))


def physical_cores(cores: list[int], siblings: Callable[[int], frozenset[int]]) -> list[tuple[int, ...]]:
    """`cores` grouped by physical core (the siblings within `cores`), in the order of their first CPU."""
    groups = {tuple(sorted((siblings(c) & set(cores)) | {c})) for c in cores}
    return sorted(groups)


def core_siblings(cpu: int) -> frozenset[int]:
    """The logical CPUs sharing `cpu`'s physical core (sysfs thread_siblings_list: "0,16" or "0-1")."""
    try:
        text = Path(f"/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list").read_text().strip()
        found: set[int] = set()
        for part in text.split(","):
            low, _, high = part.partition("-")
            found.update(range(int(low), int(high or low) + 1))
        return frozenset(found)
    except (OSError, ValueError):
        return frozenset({cpu})


def trusted_kernel_cache(plan: isolation.Plan) -> Path | None:
    """A folder for the kernels PyTorch compiles at run time (jiterator: polygamma, zeta, airy_ai, the Chebyshev
    polynomials), shared by the run's trusted servers: a kernel the reference server compiled for a correctness
    check is read by the lane instead of being compiled again inside its exclusive hold (0.4-4.7 s per task, 22 s
    of run 64's lane went to baselines' first calls). Only where no candidate process can write into it (Landlock
    keeps their writes in their own folder; as root they run as another user): a kernel planted there would run
    as the baseline."""
    if not (plan.landlock or plan.drop_to):
        return None
    return Path(tempfile.mkdtemp(prefix="kbx-kernels-"))


def write_usage(path: Path, wall_s: float, startup: dict | None = None) -> None:
    """The run's CPU seconds, split into the parent's own (one process: its threads share one interpreter) and its
    children's (every process it waited for, and theirs: servers, zygotes with their forks, exec'd candidates,
    Triton's compilers), after they all ended; and `startup`, when the run and its zygotes were ready on the
    guard timeline's clock (perf_counter)."""
    def cpu(who: int) -> float:
        usage = resource.getrusage(who)
        return round(usage.ru_utime + usage.ru_stime, 1)

    path.write_text(json.dumps({"wall_s": round(wall_s, 1), "parent_cpu_s": cpu(resource.RUSAGE_SELF),
                                "children_cpu_s": cpu(resource.RUSAGE_CHILDREN), **(startup or {})}) + "\n")


def usable_cores() -> int:
    """The cores this process may run on: its affinity, not the host's count (a run under `taskset` on a
    two-GPU host sized its workers and compile slots for all 32 cores while it had 16)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 2


def pin_to(cores: Any) -> set[int] | None:
    """Move the calling thread (and the threads it starts later) to `cores`; returns the cores it had. The
    parent deserializes outputs of gigabytes and judges cases: on the cores reserved for a GPU's timings it can
    slow the eager timing loops (a suspect, not proven, of run 22's eager-batched baseline that read 0.43 ms in
    one run and 0.15 ms in the other)."""
    if not cores:
        return None
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, set(cores))
    return before


def derive_seed(*parts: Any) -> int:
    digest = hashlib.sha256("/".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:7], "little")


MAX_COMPILE_THREADS = 32
COMPILE_SLOT_WAIT_S = 30.0  # a candidate waits at most this for a compile slot, then compiles without one
DEVICE_OPEN_WAIT_S = 60.0  # ... for its turn to open its device (RunConfig.device_opens), then opens without one
MAX_DEVICE_OPENS = 64


class Slots:
    """At most `count` candidates in one step at once, the waiting ones served in the order they came. A slot is
    a hint, not a lock: after `wait_s` (COMPILE_SLOT_WAIT_S by default) a candidate goes on without one (a step
    that hangs keeps its slot until the candidate's timeout).

    Compile slots: at a run's start every worker compiled its correctness kernels together (20 workers, 4 compile
    threads each, on 16 cores): the first candidate reached the timing lane after 41 s and the lane stood idle
    until then (run 37). With slots the first candidates finish first (16 s, runs 38) and the lane's own host work
    runs faster beside fewer compiles; the cost is candidates queueing for slots mid-run, which can leave the lane
    waiting. Device opens (RunConfig.device_opens): see there."""

    def __init__(self, count: int, wait_s: float | None = None) -> None:
        self.free = threading.Semaphore(max(1, count))
        self.wait_s = wait_s

    @contextmanager
    def slot(self) -> Iterator[float]:
        """Yields the seconds waited for the slot."""
        started = time.perf_counter()
        got = self.free.acquire(timeout=COMPILE_SLOT_WAIT_S if self.wait_s is None else self.wait_s)
        try:
            yield round(time.perf_counter() - started, 3)
        finally:
            if got:
                self.free.release()


CPU_JUDGE_BYTES = 1 << 30  # a CPU judgement of a 4 GB output grew one judge past 40 GB of host memory (H200)


def judge_gpu_first(call: Callable[..., Any], request: m.PerfCheck, shared: Callable[[], ContextManager]) -> Any:
    """A perf-size output judged on the GPU, the judge's GPU work under the GPU's shared guard (so never during a
    timing; `call(request, interim)` answers the judge's requests for it), or, when that failed and the output
    is small enough, on the CPU without the guard (the verdict says so in its note). Out of memory on the GPU is
    tried again there first, as a timing is (perf_stage.with_memory)."""
    def on_gpu() -> Any:
        lease = gpu_guard.Lease(shared)
        try:
            return call(replace(request, guarded=True), lease.answer)
        finally:
            lease.give_back()

    verdict = perf_stage.with_memory(on_gpu, waits=perf_stage.JUDGE_MEMORY_WAITS_S)
    if not isinstance(verdict, m.Failed):
        return verdict
    failed = f"{verdict.error.type}: {verdict.error.message}"[:300]
    if output_bytes(request.output) > CPU_JUDGE_BYTES:
        return m.Failed(m.ErrorInfo("JudgeError", f"on the GPU, {failed}; an output this large is not judged on "
                                    "the CPU (its float64 check needs tens of GB of host memory)"))
    verdict = call(replace(request, device="cpu"), None)
    if isinstance(verdict, m.CheckResult):
        verdict = replace(verdict, note=f"judged on the CPU: on the GPU, {failed}")
    return verdict


def output_bytes(output: Any) -> int:
    if isinstance(output, torch.Tensor):
        return output.numel() * output.element_size()
    if isinstance(output, (tuple, list)):
        return sum(output_bytes(item) for item in output)
    return 0


class GpuSpread:
    """Each new candidate goes to the GPU with the fewest candidates in flight (ties: by its key). Spread by key
    alone, a 2-GPU run of 89 candidates gave one GPU 52 and the other 37: the second GPU's lane stood idle for
    the last 18 s of the run (docs/performance.md, run 42). Records say which GPU timed each candidate."""

    def __init__(self, gpus: int) -> None:
        self.busy = [0] * gpus
        self.lock = threading.Lock()

    @contextmanager
    def take(self, key: str) -> Iterator[int | None]:
        if not self.busy:
            yield None
            return
        first = derive_seed(key) % len(self.busy)
        with self.lock:
            gpu = min(range(len(self.busy)), key=lambda g: (self.busy[g], (g - first) % len(self.busy)))
            self.busy[gpu] += 1
        try:
            yield gpu
        finally:
            with self.lock:
                self.busy[gpu] -= 1


class Run:
    """The state candidates share: the seed, the isolation plan, trusted servers, GPU guards and lanes."""

    def __init__(self, config: RunConfig, seed: int, run_id: str, seed_fixed: bool,
                 candidates: int | None = None) -> None:
        """`candidates`: how many candidates this run will start, when known (the process pool holds no more)."""
        self.config, self.seed, self.run_id, self.seed_fixed = config, seed, run_id, seed_fixed
        self.started = time.monotonic()
        self.device = config.resolved_device()
        self.on_cpu = not self.device.startswith("cuda")
        self.plan = isolation.probe(config.isolation)
        if config.require_isolation and self.plan.missing:
            raise IsolationError("--require-isolation: " + "; ".join(f"{k}: {v}" for k, v in self.plan.missing.items()))
        self.nondumpable = config.isolation and isolation.make_nondumpable()
        self.compile_slots = Slots(config.resolved_compile_slots())
        gpus = 0 if self.on_cpu else torch.cuda.device_count()
        pool = max(1, min(4 if gpus else 2, config.resolved_workers()))
        self.cpus = CpuPlan.for_host(gpus)
        self.affinity = pin_to(self.cpus.work)  # the parent's threads too stay off the timing cores
        self.guard_log = os.environ.get("KBX_GUARD_LOG")  # a file for the guards' timeline (a benchmark's)
        self.spread = GpuSpread(gpus)
        self.guards = [gpu_guard.GpuGuard(timeline=bool(self.guard_log)) for _ in range(gpus)]
        self.quiet = HostQuiet(config.quiet_host)
        watch.GUARDS[:] = self.guards
        keys: list[int | None] = list(range(gpus)) or [None]
        # before the pool: its processes read the folder. Opt-in (KBX_TRITON_MODULES_ON=1): run 41 measured no gain
        # (correctness warm-up child_s 1237 s with it, 1121 s without, same H200 host, half set)
        shared_modules = gpus and config.warm_up and os.environ.get("KBX_TRITON_MODULES_ON") == "1"
        self.triton_modules = TritonModules(Path(tempfile.mkdtemp(prefix="kbx-triton-modules-"))) \
            if shared_modules else None
        # first, so that the zygotes import while the trusted servers start: in run 63 they started after the
        # servers were up, and the first wave's forks waited 8.6 s (median) for their imports
        self.forks = start_fork_servers(self, keys) if config.fork_server else {}
        if gpus:  # the parent plans perf cases on fake tensors: their imports now, not under the first candidates
            threading.Thread(target=warm.prepare, daemon=True, name="kbx-fake-imports").start()
        self.device_opens = Slots(config.device_opens, wait_s=DEVICE_OPEN_WAIT_S) \
            if gpus and config.device_opens else None
        judges = config.resolved_judge_processes()
        self.contract_judges = ContractJudges(judges, self.cpus.work) if judges else None
        self.kernel_cache = trusted_kernel_cache(self.plan) if gpus else None
        cache = self.kernel_cache
        references = [TrustedServer("cuda" if gpus else "cpu", (k % gpus) if gpus else None, self.cpus.work,
                                    kernel_cache=cache) for k in range(pool)]
        self.outputs = ExpectedOutputs(references, self.device, self.shared)
        self.prefetching = threading.Event()  # set: the prefetch of expected outputs stops (prefetch())
        self.lanes = [TrustedServer("cuda", g, self.cpus.timing[g] if self.cpus.timing else (), kernel_cache=cache)
                      for g in range(gpus)]
        for lane in self.lanes:
            lane.prepare()
        self.judges = [[TrustedServer("cuda", g, self.cpus.work, (bulk.REQUESTS, bulk.REGION_BYTES), cache)
                        for _ in range(JUDGES_PER_GPU)] for g in range(gpus)]
        self.judge_pools = [ServerPool(servers) for servers in self.judges]
        for server in (references if gpus else []) + [j for js in self.judges for j in js]:
            server.prepare(timing=False)  # their CUDA contexts, off the shared guard
        detected = roofline.target_for(torch.cuda.get_device_name(0) if gpus else None)
        self.target = os.environ.get("KBX_TARGET") or detected
        self.peaks = roofline.PEAKS.get(detected or "")
        self.pool = ProcessPool(lambda gpu: new_process(self, gpu), depth=-(-config.resolved_workers() // len(keys)),
                                budget=candidates)
        # in the background: with a fork server the first start waits for the zygote's imports
        threading.Thread(target=self.pool.warm, args=(keys,), daemon=True, name="kbx-pool-warm").start()

    # -- what candidates use ------------------------------------------------------------------------------
    def expected(self, task_id: str) -> Any:
        return self.outputs.get(task_id, self.stage2_seed(task_id))

    def stage2_seed(self, task_id: str) -> int:
        return derive_seed(self.seed, task_id, "stage2")

    def prefetch(self, task_ids: list[str]) -> None:
        """Expected outputs of `task_ids` computed ahead of their candidates (on a GPU host: on the CPU path the
        reference servers share the two cores with the candidates), until the run closes or its seed changes."""
        if self.on_cpu:
            return
        outputs, stop = self.outputs, self.prefetching
        stop.set()  # the previous batch's, if any
        stop = self.prefetching = threading.Event()

        def get(task_id: str) -> Any:
            if self.outputs is not outputs:  # reseeded (Evaluator.reseed): this prefetch is stale
                stop.set()
                return None
            watch.begin(task_id)
            watch.at("reference (prefetch)")  # so the guard timeline names it
            try:
                return self.expected(task_id)
            finally:
                watch.end()

        prefetch(get, task_ids, len(outputs.servers), stop)

    def candidate_process(self, gpu: int | None) -> ContextManager[process.Child]:
        """A started candidate process for `gpu` (from the pool), closed after its one candidate."""
        return self.pool.take(gpu, self.config.timeout_s)

    def place(self, candidate: Candidate) -> ContextManager[int | None]:
        """The GPU for `candidate` while it runs: its process and its timing lane share it (GpuSpread)."""
        return self.spread.take(candidate.key)

    def shared(self, gpu: int | None) -> Callable[[], ContextManager]:
        return lambda: gpu_guard.shared(self.guards, gpu)

    def contended(self, gpu: int | None) -> Callable[[], bool]:
        return lambda: gpu_guard.contended(self.guards, gpu)

    def exclusive(self, gpu: int | None) -> ContextManager:
        return self.guards[gpu].exclusive()

    def lane(self, gpu: int) -> perf_stage.Lane:
        server = self.lanes[gpu]
        def call(req: Any, timeout: float) -> Any:
            try:
                return server.call(req, timeout=timeout, interim=self.quiet.interim(server))
            finally:
                self.quiet.release(server)  # a lane that died in its sample loop said no HostQuiet(off)

        return perf_stage.Lane(call,
                               lambda req, timeout: self.judge(gpu, req, timeout),
                               lambda *parts: derive_seed(self.seed, *parts), self.config.protocol, self.peaks,
                               self.target, self.config.baselines, self.config.perf_timeout_s,
                               self.cpus.timing[gpu] if self.cpus.timing else (),
                               self.quiet if self.quiet.enabled else None, self.judge_pools[gpu].drained)

    def judge(self, gpu: int, request: m.PerfCheck, timeout: float) -> Any:
        with self.judge_pools[gpu].lent() as server:
            return judge_gpu_first(lambda req, interim: server.call(req, timeout, interim), request, self.shared(gpu))

    def gpu_identity(self, gpu: int | None) -> dict | None:
        return None if gpu is None else environment.gpu_identity(gpu)

    def environment(self, applied: list[str] | None) -> dict:
        """The fingerprint of a record; `applied` are the layers the candidate process applied to itself."""
        outside = [layer for layer in self.plan.layers() if layer in ("namespaces", "uid")]
        outside += ["nondumpable"] if self.nondumpable else []
        isolation_ = {**self.plan.describe(), "applied": outside + list(applied or [])}
        return {**environment.fingerprint(self.device), "seed": self.seed, "seed_fixed": self.seed_fixed,
                "run_id": self.run_id, "isolation": isolation_}

    def stop_prefetch(self) -> None:
        self.prefetching.set()

    def contract_judge(self) -> ContractJudge:
        """How a correctness output is judged against its contract: in a worker process or in this one."""
        return self.contract_judges.judge if self.contract_judges is not None else in_parent

    def close(self) -> None:
        # while the zygotes still serve; monotonic is perf_counter's clock on Linux (the guard timeline's)
        startup = {"run_started_at": self.started,
                   "zygotes": {str(key): forks.describe() for key, forks in self.forks.items()}}
        self.stop_prefetch()
        self.pool.close()
        if self.contract_judges is not None:
            self.contract_judges.close()
        for forks in self.forks.values():
            forks.close()
        if self.triton_modules is not None:
            self.triton_modules.close()
        pin_to(self.affinity)
        if self.guard_log:
            gpu_guard.write_timeline(self.guards, Path(self.guard_log))
        for server in self.outputs.servers + self.lanes + [j for js in self.judges for j in js]:
            server.close()
        if self.kernel_cache is not None:
            shutil.rmtree(self.kernel_cache, ignore_errors=True)
        if os.environ.get("KBX_USAGE_LOG"):  # a benchmark's: where the run's CPU went
            write_usage(Path(os.environ["KBX_USAGE_LOG"]), time.monotonic() - self.started, startup)
