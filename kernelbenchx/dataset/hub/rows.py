"""Rows of the ``tasks``, ``cases``, ``golden`` and ``solutions`` configs, from the task modules and the package's
data files. Every row is a function of the task sources (and, for ``cases``, of the torch build computing the
references): the same commit gives the same rows."""

from __future__ import annotations

import hashlib
import inspect
import json
from pathlib import Path

import torch

import kernelbenchx
from kernelbenchx.dataset import stochastic as stochastic_module
from kernelbenchx.dataset.cases import build_cases, run_reference
from kernelbenchx.dataset.hub.tensors import canonical, encode, to_bytes
from kernelbenchx.dataset.prompt import render_prompt
from kernelbenchx.dataset.provenance import task_hash
from kernelbenchx.dataset.task import Call, Task

PACKAGE = Path(kernelbenchx.__file__).resolve().parent
SOLUTIONS = PACKAGE / "solutions"
GOLDEN = PACKAGE / "golden"


def is_stochastic(task: Task) -> bool:
    """The reference samples: a seed argument, a contract that allows any repeat, or a check from the
    stochastic package (dropout masks, uniform and binomial draws)."""
    c = task.contract
    module = inspect.getmodule(task.reference)
    name = stochastic_module.__name__  # a package: its checks are defined in its submodules
    uses_rng_checks = any(v is stochastic_module for v in vars(module).values()) or any(
        str(getattr(v, "__module__", None)).startswith(name + ".") for v in vars(module).values())
    return bool(c.seed_kwarg) or c.deterministic is False or uses_rng_checks


def task_row(task: Task) -> dict:
    c, tol = task.contract, task.contract.tolerance
    return {
        "id": task.id, "category": task.category, "stem": task.stem, "difficulty": task.difficulty,
        "entry": task.entry, "signature": task.signature, "description": task.description, "math": task.math,
        "prompt": render_prompt(task), "contract": c.describe(custom_check=task.check is not None),
        "dtypes": c.dtypes, "rtol": tol.rtol, "atol": tol.atol, "atol_scale": tol.scale, "rel_rms": tol.rel_rms,
        "tf32": c.tf32, "accumulation": c.accumulation, "deterministic": c.deterministic,
        "seed_kwarg": c.seed_kwarg, "mutates": list(c.mutates), "layouts": list(c.layouts),
        "custom_check": task.check is not None, "stochastic": is_stochastic(task),
        "reference_source": inspect.getsource(task.reference),
        "deviations": [d.to_json() for d in task.deviations or ()], "in_paper": task.in_paper,
        "faithful": task.faithful, "task_sha256": task_hash(task),
    }


def reference_seed(task_id: str, case: str) -> int:
    """The global-RNG seed a case's reference runs under: fixed per task and case, so sampling references
    (no seed argument) give the same published outputs on every build."""
    return int.from_bytes(hashlib.sha256(f"{task_id}|{case}".encode()).digest()[:8], "little") >> 1


def seeded_reference(task: Task, name: str, call: Call) -> object:
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(reference_seed(task.id, name))
        return run_reference(task, call)


def case_rows(task: Task) -> list[dict]:
    """The task's stage-1 cases (fixed inputs, strided views included) with the reference's outputs."""
    build = {"device": "cpu", "torch": torch.__version__, "torch_git": torch.version.git_version,
             "cpu_capability": torch.backends.cpu.get_cpu_capability()}
    rows, digest, stochastic = [], task_hash(task), is_stochastic(task)
    for index, (name, call) in enumerate(build_cases(task, None)):
        expected = seeded_reference(task, name, call)
        in_tree, in_tensors, in_layouts = encode(call.to_payload(), "call")
        out_tree, out_tensors, out_layouts = encode(expected, "output", views=False)
        rows.append({
            "task_id": task.id, "case": name, "index": index, "inputs": to_bytes(in_tensors),
            "inputs_structure": canonical(in_tree), "input_layouts": canonical(in_layouts),
            "input_dtypes": [x["dtype"] for x in in_layouts], "input_shapes": [x["shape"] for x in in_layouts],
            "has_views": any(x["storage"] is not None for x in in_layouts), "expected": to_bytes(out_tensors),
            "expected_structure": canonical(out_tree), "expected_layouts": canonical(out_layouts),
            "expected_dtypes": [x["dtype"] for x in out_layouts],
            "expected_shapes": [x["shape"] for x in out_layouts], "stochastic": stochastic,
            "reference_rng_seed": reference_seed(task.id, name), **build, "task_sha256": digest,
        })
    return rows


def solution_rows(tasks: list[Task]) -> list[dict]:
    rows = []
    for task in tasks:
        path = SOLUTIONS / f"{task.id}.py"
        if path.is_file():
            code = path.read_text(encoding="utf-8")
            rows.append({"task_id": task.id, "path": f"{task.id}.py", "code": code,
                         "code_sha256": hashlib.sha256(code.encode()).hexdigest(),
                         "task_sha256": task_hash(task)})
    return rows


def golden_targets(golden_dir: Path = GOLDEN) -> dict[str, Path]:
    """target → golden file, for every kernelbenchx/golden/<target>.json."""
    return {p.stem: p for p in sorted(golden_dir.glob("*.json"))}


def golden_rows(path: Path, task_ids: set[str]) -> list[dict]:
    """One row per (task, perf case) of a golden file, for the tasks being built."""
    data = json.loads(path.read_text())
    environment, protocol = canonical(data["environment"]), canonical(data["protocol"])
    rows = []
    for task_id in sorted(data["tasks"]):
        if task_id not in task_ids:
            continue
        for case in data["tasks"][task_id]:
            rows.append({"task_id": task_id, "case": case["case"], "name": case["name"],
                         "eager_ms": case.get("eager_ms"), "compile_ms": case.get("compile_ms"),
                         "rel_ci95": case.get("rel_ci95"), "flops": case.get("flops"), "bytes": case.get("bytes"),
                         "error": case.get("error"), "target": data["target"], "environment": environment,
                         "protocol": protocol})
    return rows
