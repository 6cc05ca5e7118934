"""The trusted server process: builds a task's inputs from the run's secret seed and computes the expected
outputs on the evaluation device; on GPUs it is also a timing lane: it times the PyTorch baselines with the
same protocol as the candidate, and judges candidates' perf-size outputs with custom-check tasks' own check.
It never runs candidate code. Started as ``python -m kernelbenchx.evaluator.trusted.server FD``.
"""

from __future__ import annotations

import contextlib
import faulthandler
import os
import signal
import sys
import time
from dataclasses import dataclass
from typing import Any, Iterator

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from kernelbenchx.dataset import host_work
from kernelbenchx.dataset.cases import build_cases, reseeded, run_reference, same_value
from kernelbenchx.dataset.registry import get_task
from kernelbenchx.dataset.task import Call, map_tensors
from kernelbenchx.evaluator import messages as m
from kernelbenchx.evaluator.isolation import make_nondumpable
from kernelbenchx.evaluator.measure import perf_case
from kernelbenchx.evaluator.process import Channel

CHANNEL: Channel | None = None  # set by main(): the parent's channel, for the GPU guard (gpu_turn)


def expected(req: m.ExpectedRequest) -> m.Expected:
    """Stage-1 and stage-2 inputs with their expected outputs, as CPU tensors. The inputs are built on the CPU
    first; the GPU work after that runs under the GPU's shared guard when the request says so, so it never runs
    beside a timing (a neighbour's kernels time-slice the GPU with a microsecond-scale timed replay)."""
    task = get_task(req.task_id)
    stages = {"stage1": build_cases(task, None), "stage2": build_cases(task, req.seed)}
    with gpu_turn(req.guarded):
        return references(task, stages, req.device)


# A guarded turn gives the GPU's shared guard back and asks for it again this often, between two operations:
# judges at perf size held it 10-40 s at a stretch, and the timings queued behind them (run 23, one GPU: the lane
# stood idle 179 of 319 s waiting for judges). Most of that was a statistical battery on the CPU, which now runs
# after the guarded turn (check, host_work.later; runs 24-25). At 0.25 s a timing's wait for a judge was that
# long (run 78: 63 waits, median 0.249 s, 17 s in all, the lane the run's bottleneck): now 0.1 s, a yield costs a
# synchronize and one round trip to the parent.
YIELD_S = 0.1


@dataclass
class Turn:
    """What a guarded turn cost: seconds waited for the guard (first and after each yield), and the yields."""

    waited: float = 0.0
    yields: int = 0


@contextlib.contextmanager
def gpu_turn(guarded: bool) -> Iterator[Turn]:
    """The GPU's shared guard, asked of the parent through the channel (parent/gpu_guard.py, Lease), given back
    and asked for again every YIELD_S of the work inside (so a timing waits at most that long for it)."""
    turn = Turn()
    if not guarded or CHANNEL is None:
        yield turn
        return
    warm_dispatch()
    acquire(CHANNEL, turn)
    try:
        with Yielding(CHANNEL, turn):
            yield turn
    finally:
        try:
            quiet()  # raises after a sticky CUDA error: the guard is given back all the same
        finally:
            CHANNEL.reply(m.GpuRelease())


def warm_dispatch() -> None:
    """A dispatch mode's first operation imports torch._dynamo: 2.4 s on a 2-core machine, 5-8 s on a busy GPU
    host, and it happened inside each judge's and reference server's first guarded turn (runs 24-26)."""
    import torch._dynamo  # noqa: F401


def acquire(channel: Channel, turn: Turn) -> None:
    asked = time.perf_counter()
    if not isinstance(channel.ask(m.GpuAcquire()), m.GpuGranted):
        os._exit(70)  # the parent is gone or confused: nothing may touch the GPU now
    turn.waited += time.perf_counter() - asked


def quiet() -> None:
    """No work of this process left on the GPU (before its side of the guard is given back)."""
    if torch.cuda.is_available():
        torch.cuda.synchronize()


class Yielding(TorchDispatchMode):
    """Before an operation, once the turn is YIELD_S old: let the GPU go quiet, give the guard back, wait for it."""

    def __init__(self, channel: Channel, turn: Turn) -> None:
        super().__init__()
        self.channel, self.since, self.turn = channel, time.perf_counter(), turn

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        if time.perf_counter() - self.since > YIELD_S:
            quiet()
            self.channel.reply(m.GpuRelease())
            acquire(self.channel, self.turn)
            self.since = time.perf_counter()
            self.turn.yields += 1
        return func(*args, **(kwargs or {}))


def references(task: Any, stages: dict, device: str) -> m.Expected:
    out = {}
    for stage, cases in stages.items():
        rows = []
        for name, call in cases:
            result = map_tensors(run_reference(task, call.to(device)), lambda t: t.detach().cpu())
            sensitive = False
            kwarg = task.contract.seed_kwarg
            if kwarg and kwarg in call.kwargs:
                other = run_reference(task, reseeded(call, kwarg).to(device))
                sensitive = not same_value(map_tensors(other, lambda t: t.detach().cpu()), result)
            rows.append(m.ExpectedRow(name, call.to_payload(), result, sensitive))
        out[stage] = tuple(rows)
    return m.Expected(out)


@contextlib.contextmanager
def precision(tf32: bool) -> Iterator[None]:
    """The baseline under the task's precision admission (TF32 allowed or not), restored afterwards."""
    before = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = tf32
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = before


def baseline(req: m.TimeCase) -> Any:
    task = get_task(req.task_id)
    fn = task.baseline
    if req.baseline == "compile":
        torch._dynamo.reset()
        fn = torch.compile(task.baseline)
    elif req.baseline == "solution":
        fn = solution(task)
    try:
        with torch.no_grad(), precision(req.tf32):
            return perf_case.measure_case(req, task, fn, "cuda",
                                          quiet_host=CHANNEL.quiet_host if req.quiet_host and CHANNEL else None)
    finally:
        release_memory()  # else a big case's inputs stay cached beside the candidate's timing of the same case


def solution(task: Any) -> Any:
    """kbx's own reference Triton solution of the task (trusted code shipped with the package)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "solutions" / f"{task.id}.py"
    spec = importlib.util.spec_from_file_location(f"kbx_solution_{task.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, task.entry)


def check(req: m.PerfCheck) -> m.CheckResult:
    """A custom-check task's judgement of a candidate's perf-size output, on inputs rebuilt from the seed; under
    the GPU's shared guard when the request says so (the output's transfer here is not: gigabytes take seconds)."""
    started = time.perf_counter()
    with host_work.deferring():
        with gpu_turn(req.guarded) as turn:
            result = judged(req)  # its GPU tensors dropped at the end of its turn
        turned = time.perf_counter()
        # a deferred statistical battery runs on the CPU now, without the guard and beside no GPU memory of ours
        reason = host_work.settle(result.reason)
    phases = {"turn_s": turned - started, "guard_wait_s": turn.waited, "yields": turn.yields,
              "host_s": time.perf_counter() - turned}
    return m.CheckResult(reason, result.note, phases)


def contract(req: m.ContractCheck) -> m.CheckResult:
    """A correctness output judged against its task's contract, for the parent (parent/contract_judges.py)."""
    task = get_task(req.task_id)
    return m.CheckResult(task.judge(Call.from_payload(req.call), req.output, req.expected))


def judged(req: m.PerfCheck) -> m.CheckResult:
    task = get_task(req.task_id)
    output = req.output
    try:
        # inputs and reference are built on the GPU (the candidate's inputs came from a CUDA generator). On the
        # GPU a judgement takes seconds; on the CPU (single-threaded float64 checks) up to five minutes for an
        # output of 2^28 elements. The parent asks for the CPU when the GPU judgement failed (memory, or a
        # check that mixes devices).
        _, call = perf_case.build_case(task, req.case, req.seed, "cuda" if torch.cuda.is_available() else "cpu")
        reference = run_reference(task, call)
        if req.device == "cpu" or not torch.cuda.is_available():
            reference, call = map_tensors(reference, lambda t: t.cpu()), call.to("cpu")
            release_memory()
            return m.CheckResult(task.judge(call, output, reference))
        output = map_tensors(output, lambda t: t.to(req.device))
        # checks and bounds written for the CPU make constants with factory functions (torch.ones(c), ...):
        # the default device puts those on the GPU too (fused_hardsigmoid_batch_norm mixed devices without it)
        with torch.device(req.device):
            return m.CheckResult(task.judge(call, output, reference))
    finally:
        call = reference = output = None
        release_memory()


def prepare(req: m.Prepare) -> m.Prepared:
    started = time.perf_counter()
    warm_dispatch()
    if torch.cuda.is_available() and req.timing:
        from kernelbenchx.evaluator.measure import protocol

        protocol.L2Flusher()()
        torch.cuda.synchronize()
        release_memory()
    elif torch.cuda.is_available():
        torch.empty(1, device="cuda")
        torch.cuda.synchronize()
    return m.Prepared(time.perf_counter() - started)


def release_memory() -> None:
    """Give cached GPU memory back after a perf-size request: many processes share the GPU, and a long-lived
    server that keeps gigabytes cached made other processes run out of memory (seen on an H200)."""
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def main() -> None:
    if os.environ.get("KBX_CPUS"):  # a GPU's timing lane runs on the cores reserved for its timings
        os.sched_setaffinity(0, {int(c) for c in os.environ["KBX_CPUS"].split(",")})
    make_nondumpable()  # same-uid processes (candidates among them) cannot read this one's memory
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # its stack into its stderr log (parent/watch.py)
    global CHANNEL
    channel = CHANNEL = Channel(int(sys.argv[1]))
    handlers = {m.ExpectedRequest: expected, m.TimeCase: baseline, m.PerfCheck: check, m.Prepare: prepare,
                m.ContractCheck: contract}
    for request in channel.requests():
        handler = handlers.get(type(request))
        try:
            if handler is None:
                raise TypeError(f"unexpected request {type(request).__name__}")
            reply = handler(request)
        except Exception as exc:  # reported to the parent, which marks the task's reference as broken
            reply = m.Failed(m.error_info(exc))
        channel.reply(reply)
    os._exit(0)


if __name__ == "__main__":
    main()
