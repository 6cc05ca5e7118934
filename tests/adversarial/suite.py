"""The adversarial suite: cheating submissions, contained faults and honest controls, each file declaring
the verdict and reason code it must get. Used by tests/test_adversarial.py (CPU) and by
``python -m tests.adversarial.suite`` on a GPU machine (all cases, GPU-only ones included)."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).parent
GROUPS = ("cases", "faults", "honest")


@dataclass(frozen=True)
class Case:
    path: Path
    task_id: str
    verdict: str
    code: str
    static: bool
    gpu_only: bool

    @property
    def name(self) -> str:
        return f"{self.path.parent.name}/{self.path.stem}"


def header(path: Path, on_gpu: bool) -> Case:
    fields = {}
    for line in path.read_text().splitlines():
        if not line.startswith("# ") or ":" not in line:
            break
        key, _, value = line[2:].partition(":")
        fields[key.strip()] = value.strip()
    expect = fields["expect"] if on_gpu else fields.get("expect-cpu", fields["expect"])
    verdict, _, code = expect.partition(" ")
    static = fields.get("static", "on") == "on" and path.parent.name != "faults"
    return Case(path, fields["task"], verdict, code.strip(), static, fields.get("device") == "gpu")


def load_cases(on_gpu: bool, gpu_focus: bool = False) -> list[Case]:
    """All cases runnable here; with gpu_focus, only those whose GPU behaviour differs from the CPU run
    (GPU-only cheats and faults, honest controls, and everything exercising the perf stage)."""
    cases = [header(p, on_gpu) for g in GROUPS for p in sorted((HERE / g).glob("*.py"))]
    cases = [c for c in cases if on_gpu or not c.gpu_only]
    if gpu_focus:  # GPU-only cases, honest controls, and what the OS layers decide (they differ on a GPU host)
        cases = [c for c in cases if c.gpu_only or c.path.parent.name == "honest" or c.verdict == "correct"
                 or not c.static]
    return cases


def write_submission(cases: list[Case], path: Path) -> None:
    with open(path, "w") as f:
        for c in cases:
            f.write(json.dumps({"task_id": c.task_id, "code": c.path.read_text(), "method": c.name}) + "\n")


def run_group(cases: list[Case], out: Path, static: bool, device: str, timeout_s: float,
              isolation: bool = True) -> dict:
    """Evaluate cases with static checks on or off; returns the Result per case name."""
    from kernelbenchx.evaluator.parent.run import RunConfig, evaluate_submission
    from kernelbenchx.evaluator.parent.rundir import read_results

    out.mkdir(parents=True, exist_ok=True)
    chosen = [c for c in cases if c.static == static]
    write_submission(chosen, out / "submission.jsonl")
    evaluate_submission(out / "submission.jsonl", RunConfig(out_dir=out / "run", device=device, timeout_s=timeout_s,
                                                            static_checks=static, task_set="submitted",
                                                            isolation=isolation, overwrite=True))
    return {r.candidate.method: r for r in read_results(out / "run")}


def main(out: str) -> int:
    import torch

    on_gpu = torch.cuda.is_available()
    cases = load_cases(on_gpu, gpu_focus=os.environ.get("KBX_GPU_FOCUS") == "1")
    device = "cuda" if on_gpu else "cpu"
    records = {}
    for static, timeout in ((True, 120), (False, 60)):
        if any(c.static == static for c in cases):
            records.update(run_group(cases, Path(out) / ("static" if static else "nostatic"), static, device,
                                     timeout))
    bad = 0
    for c in cases:
        r = records[c.name]
        got = (r.verdict.value, r.reason.value)
        ok = got[0] == c.verdict and (not c.code or got[1] == c.code)
        bad += not ok
        print(f"{'ok ' if ok else 'BAD'} {c.name:<45} expected {c.verdict} {c.code:<22} got {got[0]} {got[1]}"
              + ("" if ok else f"\n      {r.message[:300]}"))
    print(f"{len(cases) - bad} as expected, {bad} not")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "adversarial-results"))
