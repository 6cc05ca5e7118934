"""Outputs judged against their task's contract in trusted CPU servers, off the parent's interpreter (on GPU runs
by default, one per 8 usable cores; `kbx eval --judge-processes N` sets N, 0 judges in the parent).

On two GPUs the parent is what a run waits for: 111 CPU-s in 117 s of run 71's two-GPU half set, one saturated
interpreter, and a third of its busy samples judged correctness outputs (`Task.judge`: the stochastic batteries,
`Contract.compare`; run 72, py-spy). Every candidate's cases are judged between its case requests, while its
stage holds the GPU's shared guard, so a slow parent delays timings too. Here each judgement goes to one of N
trusted servers (trusted/server.py, kbx code only, on the CPU), and the parent's thread waits for the reply without
holding the GIL. The request crosses the channel as every message does (loaded with weights_only). With 4 servers
the same half set took 117 s instead of 131 s and the parent 75 CPU-s instead of 108 (run 74, one host).

Where a judgement runs never decides it: a server that fails (it died twice, or its check raised) leaves that
judgement to the parent, which then gives the verdict, or raises, exactly as it did before.
"""

from __future__ import annotations

from typing import Any

from kernelbenchx.dataset.task import Call, Task
from kernelbenchx.evaluator import messages as m
from kernelbenchx.evaluator.parent.references import ServerPool, TrustedServer
from kernelbenchx.evaluator.process import ChildFailed

MAX_PROCESSES = 32
JUDGE_TIMEOUT_S = 300.0  # a correctness output's battery takes seconds; a hung server is restarted after this


def in_parent(task: Task, call: Call, payload: dict, output: Any, expected: Any) -> str | None:
    """The contract's verdict on `output`, judged in this process (`payload`: `call` as it crossed the channel)."""
    return task.judge(call, output, expected)


class ContractJudges:
    """`processes` trusted CPU servers that judge outputs against task contracts (Task.judge), on `cpus`."""

    def __init__(self, processes: int, cpus: tuple[int, ...] = ()) -> None:
        self.servers = [TrustedServer("cpu", None, cpus) for _ in range(processes)]
        for server in self.servers:
            server.prepare(timing=False)  # they start beside the run's other servers, not under a judgement
        self.pool = ServerPool(self.servers)

    def judge(self, task: Task, call: Call, payload: dict, output: Any, expected: Any) -> str | None:
        """What in_parent says, computed by a server when one can."""
        try:
            with self.pool.lent() as server:
                reply = server.call(m.ContractCheck(task.id, payload, output, expected), timeout=JUDGE_TIMEOUT_S)
        except ChildFailed:
            reply = None
        if isinstance(reply, m.CheckResult) and (reply.reason is None or isinstance(reply.reason, str)):
            return reply.reason
        return in_parent(task, call, payload, output, expected)

    def close(self) -> None:
        for server in self.servers:
            server.close()
