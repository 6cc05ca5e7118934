"""The run directory: run.json (the seed and what the run is of), results.jsonl (one record per candidate,
chained by hash), summary.json and manifest.json. Only the parent writes here; candidates cannot reach it.

A directory that holds another run is never silently replaced: `--resume` continues it (same submission,
checked by hash; same seed), `--overwrite` starts over. Records are appended as candidates finish; each
carries ``chain = {"index": n, "prev": sha256 of the previous line}`` so an inserted, dropped or edited line
is detectable (`kbx verify`). A record torn by an interruption is dropped on resume and the chain continues
from the last intact one.
"""

from __future__ import annotations

import hashlib
import gzip
import json
import os
import secrets

from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

from kernelbenchx import __version__
from kernelbenchx.errors import RunDirError
from kernelbenchx.evaluator.result import GENESIS, Result, line_hash

FILES = ("run.json", "results.jsonl", "summary.json", "manifest.json")


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_lines(path: Path) -> list[str]:
    """The intact lines of a results file (a torn last line, cut by a crash mid-write, is left out)."""
    if not path.exists():
        return []
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        try:
            json.loads(line)
        except json.JSONDecodeError:
            continue
        lines.append(line if line.endswith("\n") else line + "\n")
    return lines


def read_results(path: str | Path) -> list[Result]:
    """Results of results.jsonl (a file or its run directory); later records of the same key win."""
    path = Path(path)
    if path.is_dir():
        path = path / "results.jsonl"
    if not path.exists() and path.with_name(path.name + ".gz").exists():  # a run kept compressed (benchmarks/runs)
        with gzip.open(path.with_name(path.name + ".gz"), "rt", encoding="utf-8") as f:
            lines = f.read().splitlines()
    else:
        lines = read_lines(path)
    records: dict[str, Result] = {}
    for line in lines:
        result = Result.from_json(json.loads(line))
        records[result.key] = result
    return list(records.values())


@dataclass
class RunDir:
    path: Path
    info: dict  # run.json
    lines: list[str] = field(default_factory=list)  # intact records already written (on resume)

    @property
    def seed(self) -> int:
        return int(self.info["seed"])

    @property
    def run_id(self) -> str:
        return self.info["run_id"]

    def done(self) -> set[str]:
        return {json.loads(line)["key"] for line in self.lines}

    @classmethod
    def prepare(cls, path: Path, submission_sha: str, seed: int | None, device: str, resume: bool,
                overwrite: bool) -> "RunDir":
        run_file = path / "run.json"
        existing = run_file.exists() or (path / "results.jsonl").exists()
        if existing and resume:
            return cls.resumed(path, submission_sha)
        if existing and not overwrite:
            raise RunDirError(f"{path} already holds a run", hint="continue it with --resume, replace it with "
                              "--overwrite, or choose another --out")
        if resume and not existing:
            raise RunDirError(f"--resume: {path} holds no run to continue", hint="drop --resume to start one")
        make_dir(path)
        for name in FILES:
            (path / name).unlink(missing_ok=True)
        info = {"kbx": __version__, "run_id": new_run_id(), "seed": seed if seed is not None else secrets.randbits(62),
                "seed_fixed": seed is not None, "device": device, "submission_sha256": submission_sha,
                "created_at": now()}
        write_private(run_file, json.dumps(info, indent=2) + "\n")
        return cls(path, info)

    @classmethod
    def resumed(cls, path: Path, submission_sha: str) -> "RunDir":
        try:
            info = json.loads((path / "run.json").read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise RunDirError(f"{path}/run.json is missing or unreadable ({exc})",
                              hint="use --overwrite to start the run again") from None
        if info.get("submission_sha256") != submission_sha:
            raise RunDirError(f"--resume: {path} holds a run of a different submission",
                              hint="resume with the submission that run started with, or use --overwrite")
        lines = read_lines(path / "results.jsonl")
        (path / "results.jsonl").write_text("".join(lines), encoding="utf-8")  # drop a torn last record
        for name in ("summary.json", "manifest.json"):
            (path / name).unlink(missing_ok=True)
        return cls(path, info, lines)

    def writer(self) -> "RecordWriter":
        prev = line_hash(self.lines[-1]) if self.lines else GENESIS
        return RecordWriter(self.path / "results.jsonl", len(self.lines), prev)

    def write_summary(self, summary: dict) -> None:
        (self.path / "summary.json").write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n")

    def write_manifest(self, submission: Path | None) -> dict:
        """sha256 of the submission, the records and the summary, written last."""
        files = {name: sha256_file(self.path / name) for name in ("results.jsonl", "summary.json", "run.json")}
        manifest = {"kbx_manifest": 1, "kbx": __version__, "run_id": self.run_id, "files": files,
                    "submission_sha256": self.info["submission_sha256"], "records": len(read_lines(
                        self.path / "results.jsonl")), "written_at": now()}
        (self.path / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
        return manifest


class RecordWriter:
    """Appends chained records; each is flushed and fsynced before the next candidate's is written."""

    def __init__(self, path: Path, index: int, prev: str) -> None:
        self.path, self.index, self.prev = path, index, prev
        self.file = open(path, "a", encoding="utf-8")

    def append(self, result: Result) -> Result:
        result = result.chained(self.index, self.prev)
        line = result.line()
        self.file.write(line)
        self.file.flush()
        os.fsync(self.file.fileno())
        self.index, self.prev = self.index + 1, line_hash(line)
        return result

    def close(self) -> None:
        self.file.close()

    def __enter__(self) -> "RecordWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def make_dir(path: Path) -> None:
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".kbx-write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise RunDirError(f"cannot write to {path}: {exc.strerror or exc}",
                          hint="choose a writable --out (in a container: mount it and run with --user)") from None


def write_private(path: Path, text: str) -> None:
    path.write_text(text)
    os.chmod(path, 0o600)


def new_run_id() -> str:
    return f"{datetime.now(timezone.utc):%Y%m%dT%H%M%S}-{secrets.token_hex(3)}"


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def chain_problems(lines: list[str]) -> Iterator[str]:
    """Where the hash chain of a results file breaks (for `kbx verify`)."""
    prev = GENESIS
    for number, line in enumerate(lines, start=1):
        chain = json.loads(line).get("chain") or {}
        if chain.get("index") != number - 1 or chain.get("prev") != prev:
            yield f"line {number}: chain {chain} does not follow the previous record (expected index {number - 1})"
        prev = line_hash(line)


