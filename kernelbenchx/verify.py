"""`kbx verify RUN_DIR`: a third party checks a run directory, level by level.

- L0 schemas: every file validates (formats checked, closed objects where the schema owns the shape).
- L1 integrity: the manifest's hashes match the files (and the submission, when given); the records' hash
  chain is unbroken; one run id and seed; unique keys; every record's code hash is a line of the submission;
  the summary recomputed from the records equals the published one.
- L2 environment: every record's fingerprint is complete and all agree (kbx commit, task-set hash, torch,
  triton, CUDA, GPU); the GPU matches the declared target.
- L3 re-judge without a GPU: the submission's candidates re-run through static checks and the correctness
  stages from the published seed, here on the CPU interpreter; every verdict that does not depend on timing
  must come out the same (a sample with --sample).
- L4 on a GPU: a sample of tasks chosen from a hash of the results and a verifier nonce re-run with perf on
  this machine's GPU; correctness identical and speedups within SPEEDUP_BAND of the claim.

Exit status: 0 verified, 1 failed (each problem named), 2 usage, 3 a level not runnable here.
"""

from __future__ import annotations

import hashlib
import json
import random
import secrets
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from kernelbenchx.errors import UsageError
from kernelbenchx.evaluator.measure.environment import interpreter_problem
from kernelbenchx.validate import validate_file

VERIFIED, FAILED, NOT_RUNNABLE = 0, 1, 3
SPEEDUP_BAND = 0.25  # L4: a re-measured speedup within ±25% of the claim (different GPU instance, same model)
ENV_KEYS = ("device", "python", "torch", "triton", "numpy", "kbx", "kbx_commit", "task_set_sha256", "cuda", "gpu",
            "cpu", "cpu_capability", "seed", "seed_fixed", "run_id", "isolation")
SAME_ACROSS = ("device", "torch", "triton", "numpy", "kbx", "kbx_commit", "task_set_sha256", "cuda", "gpu", "seed",
               "run_id", "image_id", "target")
TIMING_VERDICTS = ("implausible", "timeout")  # outcomes a CPU re-run cannot reproduce


@dataclass
class Report:
    problems: list[tuple[str, str]] = field(default_factory=list)  # (reason code, message)
    levels: dict[int, str] = field(default_factory=dict)  # level → "verified" | "failed" | "not runnable: ..."

    def fail(self, code: str, message: str) -> None:
        self.problems.append((code, message))

    @property
    def status(self) -> int:
        if self.problems:
            return FAILED
        return NOT_RUNNABLE if any(v.startswith("not runnable") for v in self.levels.values()) else VERIFIED


def verify(run_dir: str | Path, submission: str | Path | None = None, level: int = 3, sample: int | None = None,
           nonce: str | None = None) -> Report:
    run_dir = Path(run_dir)
    if not (run_dir / "results.jsonl").exists():
        raise UsageError(f"{run_dir} holds no results.jsonl", hint="give the --out folder of a kbx eval run")
    if not 0 <= level <= 4:
        raise UsageError(f"--level must be 0 to 4, got {level}")
    report = Report()
    steps = [check_schemas, check_integrity, check_environment, rejudge_cpu, remeasure_gpu]
    for n, step in enumerate(steps[:level + 1]):
        before = len(report.problems)
        outcome = step(run_dir, Path(submission) if submission else None, report, sample, nonce)
        report.levels[n] = outcome or ("verified" if len(report.problems) == before else "failed")
        if report.problems and n < level:  # a broken lower level makes the higher ones meaningless
            break
    return report


def check_schemas(run_dir: Path, submission: Path | None, report: Report, *_: object) -> None:
    for name, kind in (("results.jsonl", "result"), ("summary.json", "summary"), ("run.json", "run"),
                       ("manifest.json", "manifest")):
        path = run_dir / name
        if not path.exists():
            report.fail("missing_file", f"{name} is missing")
            continue
        for problem in validate_file(path, kind):
            report.fail("schema", f"{name}: {problem}")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check_integrity(run_dir: Path, submission: Path | None, report: Report, *_: object) -> None:
    from kernelbenchx.evaluator.parent.rundir import chain_problems, read_lines

    manifest = json.loads((run_dir / "manifest.json").read_text())
    for name, digest in manifest["files"].items():
        if sha256(run_dir / name) != digest:
            report.fail("manifest_mismatch", f"{name} does not match the manifest's sha256")
    info = json.loads((run_dir / "run.json").read_text())
    if submission is not None and sha256(submission) != manifest["submission_sha256"]:
        report.fail("submission_mismatch", f"{submission} is not the submission this run evaluated")
    if info["submission_sha256"] != manifest["submission_sha256"]:
        report.fail("submission_mismatch", "run.json and manifest.json name different submissions")
    lines = read_lines(run_dir / "results.jsonl")
    if len(lines) != manifest["records"]:
        report.fail("record_count", f"{len(lines)} records, the manifest says {manifest['records']}")
    for problem in chain_problems(lines):
        report.fail("chain_broken", problem)
    records = [json.loads(line) for line in lines]
    check_records(records, info, report)
    if submission is not None:
        check_code_hashes(records, submission, report)
    check_summary(run_dir, records, info, report)


def check_records(records: list[dict], info: dict, report: Report) -> None:
    keys = [r["key"] for r in records]
    for key in {k for k in keys if keys.count(k) > 1}:
        report.fail("duplicate_key", f"key {key} appears {keys.count(key)} times")
    for r in records:
        if r["run_id"] != info["run_id"] or r["environment"].get("run_id") != info["run_id"]:
            report.fail("run_id_mismatch", f"record {r['key']} belongs to run {r['run_id']}, not {info['run_id']}")
        if r["environment"].get("seed") != info["seed"]:
            report.fail("seed_mismatch", f"record {r['key']} was evaluated with another seed")


def check_code_hashes(records: list[dict], submission: Path, report: Report) -> None:
    from kernelbenchx.evaluator.parent.submission import Candidate, read_submission

    hashes = {item.code_sha256 for item in read_submission(submission) if isinstance(item, Candidate)}
    for r in records:
        code = r["candidate"].get("code_sha256")
        if code is not None and code not in hashes:
            report.fail("unknown_code_hash", f"record {r['key']}: code {code[:12]}… is not in the submission")


def check_summary(run_dir: Path, records: list[dict], info: dict, report: Report) -> None:
    from kernelbenchx.evaluator.parent.summary import summarize
    from kernelbenchx.evaluator.result import Result

    published = json.loads((run_dir / "summary.json").read_text())
    results = [Result.from_json(r) for r in records]
    latest = {r.key: r for r in results}
    recomputed = summarize(list(latest.values()), published["task_set"],
                           submitted=[r.task_id for r in latest.values() if r.task_id], run=info)
    for part in ("candidates", "verdicts", "overall", "categories", "tasks"):
        if json.loads(json.dumps(recomputed[part])) != published.get(part):
            report.fail("summary_mismatch", f"summary.json's {part} differs from what the records give")


def check_environment(run_dir: Path, submission: Path | None, report: Report, *_: object) -> None:
    from kernelbenchx.evaluator.measure.roofline import target_for
    from kernelbenchx.evaluator.parent.rundir import read_lines

    envs = [json.loads(line)["environment"] for line in read_lines(run_dir / "results.jsonl")]
    for env in envs:
        missing = [k for k in ENV_KEYS if k not in env]
        if missing:
            report.fail("environment_incomplete", f"a record's environment lacks {missing}")
            return
    for key in SAME_ACROSS:
        values = {json.dumps(env.get(key)) for env in envs}
        if len(values) > 1:
            report.fail("environment_inconsistent", f"records disagree on {key}: {sorted(values)[:3]}")
    for env in envs[:1]:
        if env.get("target") and env.get("gpu") and target_for(env["gpu"]) not in (env["target"], None):
            report.fail("environment_inconsistent", f"target {env['target']} but the GPU is {env['gpu']}")


def rejudge_cpu(run_dir: Path, submission: Path | None, report: Report, sample: int | None, nonce: str | None
                ) -> str | None:
    if submission is None:
        return "not runnable: L3 needs the submission (--submission)"
    if problem := interpreter_problem():
        return f"not runnable: {problem}"
    claimed = replay(run_dir, submission, "cpu", sample, nonce, perf=False)
    if claimed is None:
        return None
    for key, (old, new) in claimed.items():
        if old.verdict.value in TIMING_VERDICTS or new.verdict.value == "unsupported_on_cpu":
            continue
        expected = "correct" if old.verdict.value == "correct" else old.verdict.value
        if new.verdict.value != expected or (expected != "correct" and new.reason != old.reason):
            report.fail("verdict_mismatch", f"{key}: claimed {old.verdict.value} {old.reason.value}, re-judged "
                                            f"{new.verdict.value} {new.reason.value}")
    return None


def remeasure_gpu(run_dir: Path, submission: Path | None, report: Report, sample: int | None, nonce: str | None
                  ) -> str | None:
    import torch

    if not torch.cuda.is_available():
        return "not runnable: L4 needs a GPU (and the same image)"
    if submission is None:
        return "not runnable: L4 needs the submission (--submission)"
    claimed = replay(run_dir, submission, "cuda", sample or 8, nonce, perf=True)
    for key, (old, new) in (claimed or {}).items():
        if new.verdict != old.verdict:
            report.fail("verdict_mismatch", f"{key}: claimed {old.verdict.value}, re-measured {new.verdict.value}")
        elif old.speedup() and new.speedup():
            ratio = new.speedup() / old.speedup()
            if abs(ratio - 1) > SPEEDUP_BAND:
                report.fail("speedup_mismatch", f"{key}: claimed {old.speedup():.3f}x, re-measured "
                                                f"{new.speedup():.3f}x (band ±{SPEEDUP_BAND:.0%})")
    return None


def replay(run_dir: Path, submission: Path, device: str, sample: int | None, nonce: str | None, perf: bool
           ) -> dict | None:
    """Re-evaluate (a sample of) the run's candidates with the run's published seed; (claimed, new) per key."""
    from kernelbenchx.evaluator.parent.context import RunConfig
    from kernelbenchx.evaluator.parent.run import evaluate_submission
    from kernelbenchx.evaluator.parent.rundir import read_results

    info = json.loads((run_dir / "run.json").read_text())
    claimed = {r.key: r for r in read_results(run_dir)}
    keys = sorted(claimed)
    if sample is not None and sample < len(keys):  # chosen from the results and the verifier's nonce
        digest = hashlib.sha256((nonce or secrets.token_hex(8)).encode() + sha256(run_dir / "results.jsonl").encode())
        keys = sorted(random.Random(digest.hexdigest()).sample(keys, sample))
    from kernelbenchx.evaluator.parent.submission import Candidate, read_submission

    chosen = [c for c in read_submission(submission) if isinstance(c, Candidate) and c.key in set(keys)]
    new: dict = {}
    with tempfile.TemporaryDirectory(prefix="kbx-verify-") as tmp:
        for attempt in range(2):  # a fault on the verifier's own side (harness_error) is retried once
            todo = [c for c in chosen if c.key not in new or new[c.key].reason.value == "harness_error"]
            if not todo:
                break
            picked = Path(tmp) / f"sample{attempt}.jsonl"  # explicit sample ids keep every key as it was
            picked.write_text("".join(json.dumps({"task_id": c.task_id, "code": c.code, "sample_id": c.sample_id,
                                                  "model": c.model, "method": c.method, "round": c.round}) + "\n"
                                      for c in todo))
            out = Path(tmp) / f"out{attempt}"
            evaluate_submission(picked, RunConfig(out_dir=out, device=device, seed=int(info["seed"]),
                                                  perf=perf, task_set="submitted", timeout_s=900))
            new.update({r.key: r for r in read_results(out)})
    return {k: (claimed[k], new[k]) for k in keys if k in new}
