"""Builds the Hugging Face dataset folder: parquet files per config plus a README card with ``configs:``.

Configs:
- ``tasks``: one row per task: id, category, prompt, signature, contract, reference source, difficulty.
- ``cases``: the public stage-1 inputs and reference outputs, as ``torch.save`` bytes (load with
  ``torch.load(io.BytesIO(b), weights_only=True)``). Stage-2 inputs are drawn per run and never published.
- ``kernels`` (when a corpus file is given): collected generated kernels with their recorded outcome.

Load offline with ``datasets.load_dataset(OUT_DIR, "tasks")``.
"""

from __future__ import annotations

import inspect
import io
import json
from pathlib import Path

import datasets
import torch

from kernelbenchx import __version__
from kernelbenchx.errors import UsageError
from kernelbenchx.dataset.prompt import render_prompt
from kernelbenchx.dataset.registry import all_tasks, normalize_id
from kernelbenchx.dataset.cases import build_cases, run_reference
from kernelbenchx.dataset.task import Task


def task_row(task: Task) -> dict:
    c = task.contract
    return {
        "id": task.id, "category": task.category, "stem": task.stem, "entry": task.entry,
        "prompt": render_prompt(task), "signature": task.signature, "description": task.description,
        "math": task.math, "contract": c.describe(custom_check=task.check is not None), "dtypes": c.dtypes, "rtol": c.tolerance.rtol,
        "atol": c.tolerance.atol, "atol_scale": c.tolerance.scale, "tf32": c.tf32,
        "accumulation": c.accumulation, "deterministic": c.deterministic,
        "custom_check": task.check is not None, "reference_source": inspect.getsource(task.reference),
        "difficulty": task.difficulty, "in_paper": task.in_paper,
    }


def to_bytes(value: object) -> bytes:
    buf = io.BytesIO()
    torch.save(value, buf)
    return buf.getvalue()


def case_rows(task: Task) -> list[dict]:
    rows = []
    for name, call in build_cases(task, None):
        expected = run_reference(task, call)
        rows.append({"task_id": task.id, "case": name, "inputs": to_bytes(call.to_payload()),
                     "expected": to_bytes(expected)})
    return rows


def kernel_rows(corpus: Path) -> list[dict]:
    """Rows from an upstream-format corpus (all_records.jsonl); tasks outside our set are kept, flagged."""
    known = set(all_tasks())
    rows = []
    for number, line in enumerate(corpus.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            record = json.loads(line)
            record["task_id"], record["before"], record["after"]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise UsageError(f"{corpus}:{number}: not an upstream corpus record ({type(exc).__name__}: {exc})",
                             hint="--corpus takes JSONL in upstream's all_records.jsonl format") from None
        task_id = normalize_id(record["task_id"])
        for side in ("before", "after"):
            state = record[side]
            rows.append({"task_id": task_id, "in_task_set": task_id in known, "transition": record["transition"],
                         "side": side, "code": record[f"{side}_code"], "call_ok": state["call_ok"],
                         "exe_ok": state["exe_ok"], "perf_ok": state["perf_ok"],
                         "speedup": state.get("speedup"), "source": "upstream GEAK run (KernelBench-X corpus)"})
    return rows


def build_dataset(out_dir: str | Path, corpus: str | Path | None = None) -> dict[str, int]:
    """Write the dataset folder; returns the number of rows per config."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    kernels = kernel_rows(Path(corpus)) if corpus else None  # a bad corpus fails before the long work
    tasks = list(all_tasks().values())
    configs = {"tasks": [task_row(t) for t in tasks], "cases": [r for t in tasks for r in case_rows(t)]}
    if kernels is not None:
        configs["kernels"] = kernels
    for name, rows in configs.items():
        (out / name).mkdir(exist_ok=True)
        datasets.Dataset.from_list(rows).to_parquet(str(out / name / "train.parquet"))
    (out / "README.md").write_text(card(configs))
    return {name: len(rows) for name, rows in configs.items()}


def card(configs: dict[str, list]) -> str:
    yaml = "\n".join(f"- config_name: {name}\n  data_files:\n  - split: train\n    path: {name}/train.parquet"
                     + ("\n  default: true" if name == "tasks" else "") for name in configs)
    counts = "\n".join(f"- `{name}`: {len(rows)} rows" for name, rows in configs.items())
    return f"""---
license: apache-2.0
pretty_name: KernelBench-X (kernelbenchx {__version__})
configs:
{yaml}
---

# KernelBench-X tasks (kernelbenchx {__version__})

Tasks for LLM-written Triton kernels: each row of `tasks` holds the exact prompt a model is given, the
PyTorch reference, and the numerical contract the evaluator enforces (`kbx eval`). Task semantics follow
the KernelBench-X catalogue (Apache-2.0); contracts were rewritten so that a correct kernel can meet them.

{counts}

```python
import datasets
tasks = datasets.load_dataset("PATH_OR_REPO", "tasks", split="train")
```
"""
