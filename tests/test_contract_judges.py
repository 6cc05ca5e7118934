"""Judging outputs against task contracts in trusted CPU servers (parent/contract_judges.py): the verdict the parent
would give, whatever the task's check; a killed server starts again; what a server cannot judge, the parent does."""

import dataclasses
import os
import signal

import pytest

from kernelbenchx.dataset.cases import build_cases, run_reference
from kernelbenchx.dataset.registry import get_task
from kernelbenchx.evaluator.parent.contract_judges import ContractJudges
from kernelbenchx.evaluator.parent.run import RunConfig, evaluate_submission
from kernelbenchx.evaluator.parent.rundir import read_results
from tests.conftest import SOLUTIONS


def cases(task_id: str, seed: int = 3) -> list:
    task = get_task(task_id)
    return [(task, call, call.to_payload(), run_reference(task, call)) for _, call in build_cases(task, seed)[:3]]


def test_a_server_gives_the_verdict_the_parent_would_and_the_parent_judges_what_a_server_could_not(monkeypatch):
    from kernelbenchx.evaluator.parent import contract_judges

    judges = ContractJudges(2)
    asked: list[str] = []
    real = contract_judges.in_parent
    monkeypatch.setattr(contract_judges, "in_parent", lambda *args: asked.append(args[0].id) or real(*args))
    try:
        for task, call, payload, expected in cases("Activation/gelu") + cases("Random/rand"):
            for output in (expected, shifted(expected)):
                assert judges.judge(task, call, payload, output, expected) == real(task, call, payload, output,
                                                                                  expected)
        assert judges.judge(task, call, payload, shifted(expected), expected)  # a wrong output has a reason
        assert asked == []  # every judgement above came from a server
        for server in judges.servers:  # killed: the next call starts it again
            if server.child is not None:
                os.kill(server.child.proc.pid, signal.SIGKILL)
        assert judges.judge(task, call, payload, expected, expected) is None and asked == []
        unknown = dataclasses.replace(task, id="Random/not_registered")  # the server cannot find it: it fails
        assert judges.judge(unknown, call, payload, shifted(expected), expected) == real(task, call, payload,
                                                                                        shifted(expected), expected)
        assert asked == ["Random/not_registered"]  # the parent judged what the server could not
    finally:
        judges.close()


def shifted(value):
    return tuple(shifted(v) for v in value) if isinstance(value, tuple) else value * 1.01 + 0.01


def test_a_run_with_contract_judges_gives_the_same_verdicts(tmp_path):
    import json

    gelu = (SOLUTIONS / "Activation" / "gelu.py").read_text()
    lines = [{"task_id": "Activation/gelu", "code": gelu},
             {"task_id": "Activation/gelu", "code": gelu.replace("0.7071067811865476", "0.7")}]
    sub = tmp_path / "sub.jsonl"
    sub.write_text("".join(json.dumps(line) + "\n" for line in lines))
    verdicts = {}
    for processes in (0, 2):
        out = tmp_path / f"res{processes}"
        evaluate_submission(sub, RunConfig(out_dir=out, device="cpu", timeout_s=120, judge_processes=processes))
        verdicts[processes] = sorted((r.candidate.source, r.verdict.value, r.reason.value, r.message)
                                     for r in read_results(out))
    assert verdicts[2] == verdicts[0]
    assert [v[1] for v in verdicts[2]] == ["correct", "incorrect"]


def test_the_number_of_judge_processes_is_checked():
    from kernelbenchx.errors import UsageError

    for wrong in (-2, 33):
        with pytest.raises(UsageError):
            RunConfig(judge_processes=wrong).check()
    RunConfig(judge_processes=4).check()
    RunConfig(judge_processes=-1).check()


def test_automatic_judge_processes_follow_the_device_and_the_cores(monkeypatch):
    from kernelbenchx.evaluator.parent import context

    assert RunConfig(device="cpu").resolved_judge_processes() == 0
    assert RunConfig(device="cpu", judge_processes=3).resolved_judge_processes() == 3
    monkeypatch.setattr(context.torch.cuda, "is_available", lambda: True)
    for cores, expected in ((2, 1), (16, 2), (32, 4), (1024, context.MAX_JUDGE_PROCESSES)):
        monkeypatch.setattr(context, "usable_cores", lambda cores=cores: cores)
        assert RunConfig(device="cuda").resolved_judge_processes() == expected
    assert RunConfig(device="cuda", judge_processes=0).resolved_judge_processes() == 0
