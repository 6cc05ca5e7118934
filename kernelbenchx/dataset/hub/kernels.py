"""The ``kernels`` config: generated kernels with kbx's own verdicts, from a ``kbx eval`` run directory.

A corpus in upstream's ``all_records.jsonl`` format becomes a kbx submission with ``corpus_submission`` (one
candidate per record side, ``sample_id = 2·line + side``); ``kbx eval`` judges it; ``kernel_rows`` then reads the
run's records. When the run evaluated exactly that submission (its ``run.json`` holds the submission's sha256),
each row also carries the corpus record's provenance, upstream's own flags and speedups in ``upstream_*``
columns: facts about upstream's run, never kbx's verdict. Any other run gives rows without them.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from kernelbenchx.errors import UsageError

SIDES = ("before", "after")
METHOD = "GEAK"  # the agent that produced upstream's corpus (KernelBench-X paper, iterative refinement)
SOURCE_LINE = re.compile(r":(\d+)$")


def read_corpus(corpus: Path) -> list[dict]:
    """The corpus records, in file order; a line that is not an upstream record is a UsageError."""
    try:
        lines = corpus.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read corpus {corpus}: {exc}") from None
    records = []
    for number, line in enumerate(lines, start=1):
        try:
            record = json.loads(line)
            [(record[side], record[f"{side}_code"]) for side in SIDES]
            record["task_id"], record["from_round"], record["to_round"]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise UsageError(f"{corpus}:{number}: not an upstream corpus record ({type(exc).__name__}: {exc})",
                             hint="--corpus takes JSONL in upstream's all_records.jsonl format") from None
        records.append(record)
    return records


def round_number(name: str) -> int | None:
    """'round_2' → 2."""
    match = re.fullmatch(r"round_(\d+)", str(name))
    return int(match.group(1)) if match else None


def submission_lines(records: list[dict], model: str | None = None) -> list[dict]:
    """One kbx submission line per record side, in corpus order: line 2·i + s + 1 is record i's side s."""
    lines = []
    for index, record in enumerate(records):
        for side_index, (side, round_key) in enumerate(zip(SIDES, ("from_round", "to_round"))):
            lines.append({"task_id": record["task_id"], "code": record[f"{side}_code"], "method": METHOD,
                          "model": model, "round": round_number(record[round_key]),
                          "sample_id": 2 * index + side_index})
    return lines


def corpus_submission(corpus: str | Path, out: str | Path, model: str | None = None) -> int:
    """Write the kbx submission JSONL for an upstream corpus; returns its number of candidates. The bytes are
    a function of the corpus alone, so a run's submission_sha256 tells whether it evaluated this corpus."""
    text = submission_text(read_corpus(Path(corpus)), model)
    Path(out).write_text(text, encoding="utf-8")
    return text.count("\n")


def submission_text(records: list[dict], model: str | None = None) -> str:
    return "".join(json.dumps(line, sort_keys=True, ensure_ascii=False) + "\n"
                   for line in submission_lines(records, model))


def read_run(run_dir: Path) -> tuple[dict, list[dict]]:
    """run.json and the records of a finished `kbx eval` run directory."""
    paths = {name: run_dir / name for name in ("run.json", "results.jsonl", "manifest.json")}
    missing = [name for name, path in paths.items() if not path.is_file()]
    if missing:
        raise UsageError(f"{run_dir} is not a finished kbx run (no {', '.join(missing)})",
                         hint="give the --out folder of a completed `kbx eval`")
    run = json.loads(paths["run.json"].read_text())
    records = [json.loads(line) for line in paths["results.jsonl"].read_text().splitlines() if line.strip()]
    return run, records


def kernel_rows(run_dir: str | Path, corpus: str | Path | None = None, submission: str | Path | None = None
                ) -> list[dict]:
    """One row per record of the run, sorted by submission line. The code comes from `corpus` (the run must have
    evaluated corpus_submission(corpus); rows gain the corpus provenance) or from the JSONL `submission` the run
    evaluated (both checked by hash); with neither, `code` is null (a run keeps only code hashes)."""
    run, records = read_run(Path(run_dir))
    corpus_records = read_corpus(Path(corpus)) if corpus is not None else None
    if corpus_records is not None:
        text = submission_text(corpus_records, model_of(records)).encode()
    elif submission is not None:
        text = read_bytes(Path(submission))
    else:
        text = None
    if text is not None and hashlib.sha256(text).hexdigest() != run["submission_sha256"]:
        raise UsageError(f"the run in {run_dir} did not evaluate this {'corpus' if corpus else 'submission'}",
                         hint="evaluate `kbx dataset corpus-submission CORPUS sub.jsonl` with kbx eval first"
                         if corpus else "give the submission file the run's run.json hashes")
    codes = line_codes(text) if text is not None else {}
    rows = [kernel_row(record, run, codes) for record in records]
    if corpus_records is not None:
        for row in rows:
            row.update(upstream_columns(corpus_records, row["submission_line"]))
    else:
        for row in rows:
            row.update(dict.fromkeys(UPSTREAM_COLUMNS))
    return sorted(rows, key=lambda r: (r["submission_line"] or 0, r["key"]))


def read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read submission {path}: {exc.strerror or exc}") from None


def line_codes(text: bytes) -> dict[int, str]:
    """Submission line number → its code as submitted (kbx's or upstream's key), for lines that have one."""
    codes = {}
    for number, line in enumerate(text.split(b"\n"), start=1):
        try:
            obj = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue
        code = obj.get("code", obj.get("predict")) if isinstance(obj, dict) else None
        if isinstance(code, str):
            codes[number] = code
    return codes


def model_of(records: list[dict]) -> str | None:
    models = {r["candidate"].get("model") for r in records if r["candidate"].get("model")}
    return models.pop() if len(models) == 1 else None


def kernel_row(record: dict, run: dict, codes: dict[int, str]) -> dict:
    cand, perf = record["candidate"], record["stages"].get("perf") or {}
    match = SOURCE_LINE.search(cand.get("source") or "")
    line = int(match.group(1)) if match else None
    code = codes.get(line) if line is not None else None
    return {
        "key": record["key"], "task_id": cand.get("task_id"), "submission_line": line,
        "sample_id": cand.get("sample_id"), "model": cand.get("model"), "method": cand.get("method"),
        "round": cand.get("round"), "code": code,
        "code_sha256": hashlib.sha256(code.encode()).hexdigest() if code is not None else None,
        "evaluated_code_sha256": cand.get("code_sha256"),
        "verdict": record["verdict"], "reason": record["reason"]["code"], "message": record["reason"]["message"],
        "speedup_eager": (perf.get("speedup_geomean") or {}).get("eager"),
        "speedups": canonical(perf.get("speedup_geomean") or {}), "perf_status": perf.get("status"),
        "perf_reason": perf.get("reason"), "gpu": record["environment"].get("gpu"),
        "device": record["environment"].get("device"), "environment": canonical(record["environment"]),
        "run_id": record["run_id"], "task_set_sha256": record["environment"].get("task_set_sha256"),
        "run_seed": run.get("seed"),
    }


def upstream_columns(records: list[dict], line: int | None) -> dict:
    """The corpus record behind submission line `line`: which record and side, and upstream's own outcome."""
    empty = dict.fromkeys(UPSTREAM_COLUMNS)
    if line is None or not 1 <= line <= 2 * len(records):
        return empty
    record, side = records[(line - 1) // 2], SIDES[(line - 1) % 2]
    state = record[side]
    return {"corpus_line": (line - 1) // 2 + 1, "corpus_side": side, "upstream_task_id": record["task_id"],
            "upstream_transition": record.get("transition"), "upstream_kind": record.get("kind"),
            "upstream_call_ok": state.get("call_ok"), "upstream_exe_ok": state.get("exe_ok"),
            "upstream_perf_ok": state.get("perf_ok"), "upstream_speedup": as_float(state.get("speedup")),
            "upstream_runtime_ms": as_float(state.get("runtime_ms"))}


UPSTREAM_COLUMNS = ("corpus_line", "corpus_side", "upstream_task_id", "upstream_transition", "upstream_kind",
                    "upstream_call_ok", "upstream_exe_ok", "upstream_perf_ok", "upstream_speedup",
                    "upstream_runtime_ms")


def as_float(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
