"""Builds the dataset folder: one parquet shard per config and split, the card, and MANIFEST.json.

The build is deterministic: the same kbx commit, task set and library versions give byte-identical files
(rows sorted, references seeded, JSON canonical, safetensors keys sorted, parquet written with fixed options; the
only varying parquet metadata, the writer's ``created_by``, names the pyarrow version, which MANIFEST.json
records). A rebuild replaces the folder as a whole, so no stale file survives.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from kernelbenchx import __version__
from kernelbenchx.dataset.hub.card import render as render_card
from kernelbenchx.dataset.hub.columns import check_rows, features
from kernelbenchx.dataset.hub.kernels import kernel_rows, read_corpus, read_run
from kernelbenchx.dataset.hub.rows import case_rows, golden_rows, golden_targets, solution_rows, task_row
from kernelbenchx.dataset.provenance import kbx_commit, task_set_hash
from kernelbenchx.dataset.registry import all_tasks, get_task
from kernelbenchx.dataset.task import Task
from kernelbenchx.errors import UsageError

FORMAT = 1  # MANIFEST.json's kbx_dataset: bumped when the folder's layout or a column's meaning changes
MANIFEST = "MANIFEST.json"
ROW_GROUP = 64  # rows per parquet row group: case rows carry tensors, and the Hub's viewer reads by group
CONFIGS = ("tasks", "cases", "kernels", "golden", "solutions")


@dataclass
class Built:
    """What a build wrote: rows per config and split, and the manifest."""

    out_dir: Path
    rows: dict[str, dict[str, int]] = field(default_factory=dict)
    manifest: dict = field(default_factory=dict)


def shard_path(config: str, split: str) -> str:
    return f"data/{config}/{split}-00000-of-00001.parquet"


def write_parquet(rows: list[dict], config: str, path: Path) -> None:
    """Rows in the config's schema, written with fixed options (no timestamps: parquet stores none)."""
    check_rows(config, rows)
    schema = features(config).arrow_schema
    table = pa.Table.from_pylist(rows, schema=schema)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, compression="zstd", compression_level=9, row_group_size=ROW_GROUP,
                   use_dictionary=True, write_statistics=True, data_page_version="1.0", version="2.6")


def select_tasks(task_ids: list[str] | None) -> list[Task]:
    if not task_ids:
        return list(all_tasks().values())
    return sorted({get_task(t).id: get_task(t) for t in task_ids}.values(), key=lambda t: t.id)


def config_rows(tasks: list[Task], corpus: Path | None, kernels_run: Path | None, submission: Path | None,
                configs: tuple[str, ...]) -> dict[str, dict[str, list[dict]]]:
    """config → split → rows, sorted."""
    out: dict[str, dict[str, list[dict]]] = {}
    ids = {t.id for t in tasks}
    if "kernels" in configs and kernels_run is not None:  # read first: a bad run fails before the long work
        out["kernels"] = {"test": kernel_rows(kernels_run, corpus, submission)}
    if "tasks" in configs:
        out["tasks"] = {"test": [task_row(t) for t in tasks]}
    if "cases" in configs:
        out["cases"] = {"test": [row for t in tasks for row in case_rows(t)]}
    if "golden" in configs:
        out["golden"] = {target: golden_rows(path, ids) for target, path in golden_targets().items()}
    if "solutions" in configs:
        out["solutions"] = {"test": solution_rows(tasks)}
    return {name: out[name] for name in CONFIGS if name in out}


def build_dataset(out_dir: str | Path, corpus: str | Path | None = None, kernels_run: str | Path | None = None,
                  task_ids: list[str] | None = None, configs: tuple[str, ...] = CONFIGS,
                  submission: str | Path | None = None) -> Built:
    """Write the dataset folder. `task_ids` builds a subset (tests, previews); `kernels_run` is the --out folder
    of a kbx eval run: of corpus_submission(corpus) with `corpus`, or of the JSONL `submission` (the kernels'
    code); without a run there is no kernels config."""
    out = Path(out_dir)
    unknown = set(configs) - set(CONFIGS)
    if unknown:
        raise UsageError(f"unknown configs {sorted(unknown)}", hint=f"configs: {', '.join(CONFIGS)}")
    check_sources(corpus, kernels_run, submission)
    check_target(out)
    tasks = select_tasks(task_ids)
    task_set_hash()  # the task sources, read once now: every hash in the build describes this snapshot
    rows = config_rows(tasks, *(Path(p) if p else None for p in (corpus, kernels_run, submission)), configs)
    staging = out.parent / f".{out.name}.building"
    shutil.rmtree(staging, ignore_errors=True)
    for config, splits in rows.items():
        for split, split_rows in splits.items():
            write_parquet(split_rows, config, staging / shard_path(config, split))
    manifest = make_manifest(tasks, rows, corpus, kernels_run)
    counts = {c: {s: len(r) for s, r in splits.items()} for c, splits in rows.items()}
    (staging / "README.md").write_text(render_card(manifest, counts), encoding="utf-8")
    manifest["files"] = file_hashes(staging)
    (staging / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    if out.exists():
        shutil.rmtree(out)
    staging.rename(out)
    return Built(out, counts, manifest)


def check_sources(corpus: str | Path | None, kernels_run: str | Path | None,
                  submission: str | Path | None) -> None:
    """The kernels sources make sense together; a malformed corpus is reported by file and line first."""
    if corpus is not None:
        read_corpus(Path(corpus))
    if corpus is not None and submission is not None:
        raise UsageError("give --corpus or --submission, not both: the corpus defines the run's submission")
    if (corpus is not None or submission is not None) and kernels_run is None:
        raise UsageError("--corpus and --submission need --kernels-run: the kernels config holds kbx's verdicts",
                         hint="kbx dataset corpus-submission CORPUS sub.jsonl && kbx eval sub.jsonl --out RUN, "
                              "then --kernels-run RUN")


def check_target(out: Path) -> None:
    """Refuse to replace a non-empty folder that is not an earlier build (it would be deleted)."""
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / MANIFEST).is_file())):
        raise UsageError(f"{out} exists and is not a kbx dataset folder; it would be replaced",
                         hint="give a new or empty folder, or an earlier `kbx dataset build` output")


def file_hashes(folder: Path) -> dict[str, str]:
    """sha256 of every file but the manifest; hidden top-level entries (a download's .cache/) are not data."""
    files = (p for p in sorted(folder.rglob("*")) if p.is_file() and p.name != MANIFEST)
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in files if not p.relative_to(folder).parts[0].startswith(".")}


def make_manifest(tasks: list[Task], rows: dict, corpus: Path | str | None,
                  kernels_run: Path | str | None) -> dict:
    complete = len(tasks) == len(all_tasks())
    manifest = {
        "kbx_dataset": FORMAT, "version": __version__, "kbx_commit": kbx_commit(),
        "task_set_sha256": task_set_hash(), "complete_task_set": complete,
        "task_ids": None if complete else [t.id for t in tasks], "tasks": len(tasks),
        "configs": {c: {s: {"path": shard_path(c, s), "rows": len(r)} for s, r in splits.items()}
                    for c, splits in rows.items()},
        "generator": {name: version(name) for name in ("torch", "pyarrow", "datasets", "safetensors",
                                                        "huggingface-hub", "numpy")},
        "python": ".".join(map(str, sys.version_info[:3])), "sources": sources(corpus, kernels_run),
    }
    return manifest


def sources(corpus: Path | str | None, kernels_run: Path | str | None) -> dict:
    """Where the kernels and golden rows came from, by hash."""
    info: dict = {"golden": {t: hashlib.sha256(p.read_bytes()).hexdigest() for t, p in golden_targets().items()}}
    if corpus is not None:
        info["corpus_sha256"] = hashlib.sha256(Path(corpus).read_bytes()).hexdigest()
    if kernels_run is not None:
        run, records = read_run(Path(kernels_run))
        gpus = sorted({r["environment"]["gpu"] for r in records if r["environment"].get("gpu")})
        info["kernels_run"] = {"run_id": run["run_id"], "submission_sha256": run["submission_sha256"],
                               "device": run["device"], "gpus": gpus,
                               "task_set_sha256": sorted({str(r["environment"].get("task_set_sha256"))
                                                          for r in records}),
                               "results_sha256": hashlib.sha256(
                                   (Path(kernels_run) / "results.jsonl").read_bytes()).hexdigest()}
    return info
