"""Mutation testing of the task set: do a task's cases catch plausible bugs in a correct kernel?

Mechanical operators are applied to a task's reference solution (kernelbenchx/solutions/<id>.py), one site at
a time; each mutant runs in a forked process on the CPU interpreter against the task's stage-1 cases and the
stage-2 cases of a fixed seed, judged by the task's contract. A mutant is *killed* when some case fails
(a wrong output, an error, a hang); a *survivor* is a bug the cases would let through, unless it is
equivalent to the original or outside the contract — such survivors are listed with their reason in
solutions/mutants-equivalent.json and do not count against the score.

    python -m kernelbenchx.dataset.mutate [TASK_ID ...] [--sample N] [--workers N] [--json OUT] [--write]

`--write` merges the per-task scores into solutions/mutation-scores.json, which docs/tasks.md shows;
`--rescore REPORT.json` re-counts a saved report after survivors were triaged; `--rerun REPORT.json` first runs
each mutant that report saw killed on the killing case alone, and on every case only if it now passes (after
triage); `TASK --sweep OPERATOR#SITE` judges one mutant of a one-input float32 task on 840,006 inputs (the
evidence for "within tolerance"). The full set (every kept solution, about 2,600 mutants at ~5 s each on the
interpreter) is a maintainers' run:
`python -m kernelbenchx.dataset.mutate --workers 16 --write`; CI mutates a small sample (tests/test_mutate.py).
`--device cuda` runs the mutants compiled on a GPU instead (the interpreter computes bfloat16 wrongly and
silently promotes a loop-carried variable whose dtype changes, where the compiler refuses the kernel);
`--operators a,b` restricts a run to some operators (such a run is evidence, not a score: it cannot --write).

Operators: drop_mask (a load/store without its mask), shift_bound (< ↔ <=, > ↔ >=), ignore_stride (a view's
strides replaced by contiguous ones), ignore_parameter (a defaulted parameter forced to its default),
lower_precision (an fp32 accumulator or cast in fp16, fp64 in fp32), change_constant (a float literal × 1.01),
skip_last_program (triton.cdiv → floor division in a grid), infinite_identity (float("±inf") → 0.0: a max/min
reduction's identity or a masked load's `other`), unstable_exp (exp(x - m) → exp(x): softmax without its shift).
"""

from __future__ import annotations

import ast
import copy
import json
import multiprocessing
import os
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator

if TYPE_CHECKING:
    import torch

SOLUTIONS = Path(__file__).resolve().parents[1] / "solutions"
EQUIVALENT = SOLUTIONS / "mutants-equivalent.json"
SCORES = SOLUTIONS / "mutation-scores.json"
MAX_SITES = 3  # per operator and task: mutants are chosen deterministically among the sites
TIMEOUT_S = 120.0
SEED = 1234


@dataclass(frozen=True)
class Mutant:
    task_id: str
    operator: str
    site: int  # index among the operator's sites in the solution
    line: int
    source: str

    @property
    def name(self) -> str:
        return f"{self.operator}#{self.site}@{self.line}"


# ---------------------------------------------------------------------------------------------------------------
# Operators: each yields (line, transform) where transform mutates a deep copy of the tree at that site.


def is_call_to(node: ast.AST, *names: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in names


def drop_mask(tree: ast.Module) -> Iterator[ast.AST]:
    for node in ast.walk(tree):
        if is_call_to(node, "load", "store") and any(k.arg == "mask" for k in node.keywords):
            yield node


def apply_drop_mask(node: ast.Call) -> None:
    node.keywords = [k for k in node.keywords if k.arg not in ("mask", "other")]


SHIFT = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}


def shift_bound(tree: ast.Module) -> Iterator[ast.AST]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and type(node.ops[0]) in SHIFT:
            yield node


def apply_shift_bound(node: ast.Compare) -> None:
    node.ops[0] = SHIFT[type(node.ops[0])]()


def ignore_stride(tree: ast.Module) -> Iterator[ast.AST]:
    for node in ast.walk(tree):
        if is_call_to(node, "stride") or is_call_to(node, "contiguous"):
            yield node


def apply_ignore_stride(node: ast.Call) -> None:
    if node.func.attr == "contiguous":  # x.contiguous() → x (the kernel then sees the view)
        node.func = ast.Attribute(value=node.func.value, attr="view_as", ctx=ast.Load())
        node.args = [copy.deepcopy(node.func.value)]
    else:  # x.stride(d) → x.contiguous().stride(d): contiguous strides, the view's pointer
        node.func.value = ast.Call(func=ast.Attribute(value=node.func.value, attr="contiguous", ctx=ast.Load()),
                                   args=[], keywords=[])


def ignore_parameter(tree: ast.Module, entry: str = "") -> Iterator[ast.AST]:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == entry:
            args = node.args
            positional = args.args[len(args.args) - len(args.defaults):]
            for arg, default in list(zip(positional, args.defaults)) + [
                    (a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]:
                yield (node, arg.arg, default)


def apply_ignore_parameter(site: tuple) -> None:
    fn, name, default = site
    fn.body.insert(0, ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=copy.deepcopy(default)))


LOWER = {"float32": "float16", "float64": "float32"}


def lower_precision(tree: ast.Module) -> Iterator[ast.AST]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in LOWER and isinstance(node.value, ast.Name) \
                and node.value.id in ("tl", "torch"):
            yield node


def apply_lower_precision(node: ast.Attribute) -> None:
    node.attr = LOWER[node.attr]


def change_constant(tree: ast.Module) -> Iterator[ast.AST]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, float) and node.value not in (0.0,):
            yield node


def apply_change_constant(node: ast.Constant) -> None:
    node.value = node.value * 1.01


def skip_last_program(tree: ast.Module) -> Iterator[ast.AST]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "cdiv" \
                and len(node.args) == 2:
            yield node


def apply_skip_last_program(node: ast.Call) -> None:
    node.func = ast.Name(id="_floordiv", ctx=ast.Load())


def is_infinity(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float"
            and len(node.args) == 1 and isinstance(node.args[0], ast.Constant)
            and str(node.args[0].value).strip().lower().lstrip("+-") in ("inf", "infinity"))


def infinite_identity(tree: ast.Module) -> Iterator[ast.AST]:
    for node in ast.walk(tree):
        if is_infinity(node):
            yield node


def apply_infinite_identity(node: ast.Call) -> None:
    node.args = [ast.Constant(value=0.0)]  # float("-inf") → float(0.0)


def unstable_exp(tree: ast.Module) -> Iterator[ast.AST]:
    for node in ast.walk(tree):
        if is_call_to(node, "exp", "exp2") and len(node.args) == 1 and isinstance(node.args[0], ast.BinOp) \
                and isinstance(node.args[0].op, ast.Sub):
            yield node


def apply_unstable_exp(node: ast.Call) -> None:
    node.args = [node.args[0].left]  # exp(x - max) → exp(x): equal in exact arithmetic, overflows in float


OPERATORS: dict[str, tuple[Callable, Callable]] = {
    "drop_mask": (drop_mask, apply_drop_mask),
    "shift_bound": (shift_bound, apply_shift_bound),
    "ignore_stride": (ignore_stride, apply_ignore_stride),
    "ignore_parameter": (ignore_parameter, apply_ignore_parameter),
    "lower_precision": (lower_precision, apply_lower_precision),
    "change_constant": (change_constant, apply_change_constant),
    "skip_last_program": (skip_last_program, apply_skip_last_program),
    "infinite_identity": (infinite_identity, apply_infinite_identity),
    "unstable_exp": (unstable_exp, apply_unstable_exp),
}
FLOORDIV = "\n\ndef _floordiv(a, b):\n    return a // b\n"


def mutants(task_id: str, entry: str) -> list[Mutant]:
    source = (SOLUTIONS / f"{task_id}.py").read_text()
    out = []
    for name, (find, apply) in OPERATORS.items():
        tree = ast.parse(source)
        sites = list(find(tree, entry) if name == "ignore_parameter" else find(tree))
        chosen = sorted(random.Random(f"{task_id}/{name}").sample(range(len(sites)), min(MAX_SITES, len(sites))))
        for index in chosen:
            mutated = ast.parse(source)
            site = list(find(mutated, entry) if name == "ignore_parameter" else find(mutated))[index]
            apply(site)
            text = ast.unparse(ast.fix_missing_locations(mutated)) + (FLOORDIV if name == "skip_last_program" else "")
            line = getattr(site[0] if isinstance(site, tuple) else site, "lineno", 0)
            if text != ast.unparse(ast.parse(source)):
                out.append(Mutant(task_id, name, index, line, text))
    return out


# ---------------------------------------------------------------------------------------------------------------
# Running a mutant


def load_entry(source: str, entry: str, name: str) -> Callable:
    """`entry` of a module made from `source`, imported from a file as kbx imports a candidate: Triton's
    interpreter rewrites a kernel from its source file, and one exec'd from a string runs unrewritten (a loop
    counter then stays a Python int, say), which failed kept solutions that kbx eval judges correct."""
    import importlib.util
    import tempfile

    path = Path(tempfile.mkdtemp(prefix="kbx-mutant-")) / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # Triton's JIT looks kernels' modules up by name
    spec.loader.exec_module(module)
    return getattr(module, entry)


def killed_by(task_id: str, source: str, device: str = "cpu", only: str | None = None) -> str | None:
    """The first case the mutant fails (None when it passes every case, or case `only` when given). Runs in the
    forked child. On "cuda" the kernels are compiled and each case reaches them on the GPU with its layout; the
    reference runs on the CPU."""
    if device == "cpu":
        os.environ["TRITON_INTERPRET"] = "1"
    from kernelbenchx.dataset.cases import build_cases, run_reference
    from kernelbenchx.dataset.task import map_tensors
    from kernelbenchx.dataset.views import call_guarded
    from kernelbenchx.dataset.registry import get_task

    task = get_task(task_id)
    try:
        entry = load_entry(source, task.entry, f"mutant_{task.stem}")
    except Exception as exc:
        return f"import: {type(exc).__name__}"
    for name, call in build_cases(task, None) + build_cases(task, SEED):
        if only is not None and name != only:
            continue
        expected = run_reference(task, call)
        try:
            mine, out, overrun = call_guarded(call.to(device), entry)
            got = map_tensors(task.contract.compared_outputs(mine, out), lambda t: t.cpu())
            reason = task.judge(call, got, expected) or overrun
        except Exception as exc:  # a crash on an allowed input is a kill
            return f"{name}: {type(exc).__name__}"
        if reason:
            return f"{name}: {reason[:120]}"
    return None


def child_main(task_id: str, source: str, device: str, only: str | None, conn) -> None:
    try:
        conn.send(killed_by(task_id, source, device, only))
    except BaseException as exc:  # whatever happened in the mutant, the parent gets an answer
        conn.send(f"error: {type(exc).__name__}")


def forkserver(device: str = "cpu") -> multiprocessing.context.BaseContext:
    """Mutants fork from a single-threaded server that has imported torch, triton and this module once: forking
    the caller itself deadlocked under pytest-xdist and with the thread pool of --workers (a lock held by
    another thread at fork time). A process has one server, so one device: the first call's."""
    # Triton reads TRITON_INTERPRET when it is imported: the server preloads triton, so it must start in
    # interpreter mode. Set only in the child, triton.language's own @jit helpers (tl.cdiv, ...) stayed compiled
    # functions, and every kernel calling one raised InterpreterError: each mutant and the kept solution "killed".
    # On CUDA the server never initialises the device (torch is imported, not used), so each child may; a
    # TRITON_INTERPRET inherited from the caller (a test session sets it) would silently interpret instead.
    if device == "cpu":
        os.environ["TRITON_INTERPRET"] = "1"
    else:
        os.environ.pop("TRITON_INTERPRET", None)
    # As kbx eval's CPU children: fresh allocations hold poison, not a previous result. Without it a mutant that
    # skips its last program passed whenever torch.empty reused the memory of an earlier, correct output.
    from kernelbenchx.dataset.views import MALLOC_POISON

    os.environ["GLIBC_TUNABLES"] = MALLOC_POISON
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["torch", "triton", "kernelbenchx.dataset.mutate"])
    return ctx


def run_mutant(mutant: Mutant, device: str = "cpu", only: str | None = None) -> str | None:
    """What killed the mutant (None: it passed every case, or case `only`), from a forked child."""
    ctx = forkserver(device)
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=child_main, args=(mutant.task_id, mutant.source, device, only, child))
    proc.start()
    child.close()
    answer: str | None = f"timeout after {TIMEOUT_S:.0f} s"
    if parent.poll(TIMEOUT_S):
        try:
            answer = parent.recv()
        except EOFError:  # the mutant killed its process (an access far out of bounds, say)
            proc.join(10)
            answer = f"crash (exit {proc.exitcode})"
        proc.join(10)
    if proc.is_alive():
        proc.kill()
        proc.join()
    return answer


def sweep_inputs() -> torch.Tensor:
    """840,006 float32 values: ±1e-38…1e38 log-spaced, [-200, 200] by 1e-3, [-2, 2] by 1e-5, and ±0."""
    import torch

    mags = torch.logspace(-38, 38, 20001, dtype=torch.float64)
    return torch.cat([mags, -mags, torch.linspace(-200, 200, 400001, dtype=torch.float64),
                      torch.linspace(-2, 2, 400001, dtype=torch.float64), torch.tensor([0.0, -0.0])]).float()


def sweep(task_id: str, name: str) -> str:
    """For a one-input float32 task: the kept solution and mutant `name` ("operator#site") judged against the
    reference on sweep_inputs(), and their largest difference: the evidence for a within-tolerance claim."""
    os.environ["TRITON_INTERPRET"] = "1"
    from kernelbenchx.dataset.registry import get_task
    from kernelbenchx.dataset.task import Call

    task = get_task(task_id)
    call = Call(sweep_inputs())
    mutant = next(m for m in mutants(task_id, task.entry) if f"{m.operator}#{m.site}" == name)
    outs = []
    for i, source in enumerate(((SOLUTIONS / f"{task_id}.py").read_text(), mutant.source)):
        outs.append(call.invoke(load_entry(source, task.entry, f"sweep_{task.stem}_{i}")))
    expected = task.reference(*call.args)
    verdicts = [task.judge(call, out, expected) or "ok" for out in outs]
    diff = (outs[1].double() - outs[0].double()).abs().nan_to_num(0.0)
    at = int(diff.argmax())
    return (f"{task_id} {name}: kept solution {verdicts[0][:100]}; mutant {verdicts[1][:100]}; largest change "
            f"{float(diff[at]):.3g} at x = {float(call.args[0][at]):.9g}")


def interpreter_problem() -> str | None:
    """Why Triton's interpreter would fail correct kernels in this environment (None when it should not)."""
    import numpy

    if tuple(int(part) for part in numpy.__version__.split(".")[:2]) >= (2, 4):
        # numpy 2.4 refuses int() of a 1-element array, which triton 3.6's interpreter does for a loop bound
        # held in a tensor: every kept solution with a runtime-bounded loop "fails", and its task goes unscored.
        return (f"numpy {numpy.__version__} breaks runtime-bounded loops in Triton's interpreter; "
                "install numpy<2.4 (as pyproject.toml pins) to mutate on the CPU")
    return None


def equivalent() -> dict[str, str]:
    """Survivors documented as equivalent or out of contract: "task_id operator#site" → reason."""
    return json.loads(EQUIVALENT.read_text()) if EQUIVALENT.exists() else {}


def case_names(task_id: str) -> set[str]:
    """The names of the cases a mutant of the task runs against."""
    from kernelbenchx.dataset.cases import build_cases
    from kernelbenchx.dataset.registry import get_task

    task = get_task(task_id)
    return {name for name, _ in build_cases(task, None) + build_cases(task, SEED)}


def earlier_killers(previous: dict[str, dict], task_ids: list[str]) -> dict[tuple[str, str], str]:
    """(task id, mutant name) → the case that killed it in `previous`, where the task still has that case. The
    mutant is first run on that case alone: cases added during triage may change an earlier case's data, so
    a kill is carried only when it happens again. A timeout or a crash names no case."""
    killers = {}
    for task_id in task_ids:
        rows = previous.get(task_id, {}).get("rows", [])
        names = case_names(task_id) if rows else set()
        for row in rows:
            case = (row["killed_by"] or "").split(": ")[0]
            if case in names:
                killers[(task_id, row["mutant"])] = case
    return killers


def score(task_ids: list[str], log: Callable[[str], None] = print, workers: int = 1, device: str = "cpu",
          operators: frozenset[str] = frozenset(OPERATORS), previous: dict[str, dict] | None = None) -> dict[str, dict]:
    """Runs every mutant of the tasks made by `operators` (each in its own forked process, `workers` at a time),
    a mutant that `previous` (an earlier report of this device) saw killed by a case is first run on that case
    alone, and on every case only when it now passes it."""
    from concurrent.futures import ThreadPoolExecutor
    from functools import partial

    from kernelbenchx.dataset.registry import get_task

    known = equivalent()
    made = [m for task_id in task_ids for m in mutants(task_id, get_task(task_id).entry) if m.operator in operators]
    kept = [Mutant(task_id, "unmutated", 0, 0, (SOLUTIONS / f"{task_id}.py").read_text()) for task_id in task_ids]
    with ThreadPoolExecutor(max(1, workers)) as pool:
        run = partial(run_mutant, device=device)
        baselines = dict(zip(task_ids, pool.map(run, kept)))
        todo = [m for m in made if baselines[m.task_id] is None]  # a kill means nothing if the kept one fails
        earlier = earlier_killers(previous or {}, task_ids)
        first = [m for m in todo if (m.task_id, m.name) in earlier]
        again = pool.map(lambda m: run(m, only=earlier[(m.task_id, m.name)]), first)
        killers = {m: killer for m, killer in zip(first, again) if killer is not None}
        rest = [m for m in todo if m not in killers]
        killers.update(zip(rest, pool.map(run, rest)))
    report = {}
    for task_id, failure in baselines.items():
        if failure is not None:
            log(f"{task_id}: NOT SCORED, the kept solution itself fails the cases here: {failure}")
            report[task_id] = {"mutants": 0, "counted": 0, "killed": 0, "rows": [], "baseline_failure": failure}
    for task_id in (t for t in task_ids if baselines[t] is None):
        rows = []
        for mutant in (m for m in made if m.task_id == task_id):
            killer = killers.get(mutant)
            key = f"{task_id} {mutant.operator}#{mutant.site}"
            rows.append({"mutant": mutant.name, "line": mutant.line, "killed_by": killer,
                         "equivalent": known.get(key)})
            if killer is None:
                log(f"  survivor {key} (line {mutant.line})" + (f": {known[key]}" if key in known else ""))
        counted = [r for r in rows if not r["equivalent"]]
        killed = sum(r["killed_by"] is not None for r in counted)
        report[task_id] = {"mutants": len(rows), "counted": len(counted), "killed": killed, "rows": rows,
                           "device": device}
        log(f"{task_id}: {killed}/{len(counted)} killed ({len(rows) - len(counted)} equivalent)")
    return report


def rescore(report: dict[str, dict]) -> dict[str, dict]:
    """A saved report (--json) re-counted against the current equivalents: survivors triaged after the run
    need no second run. Valid only while the tasks' solutions are those the report mutated."""
    known = equivalent()
    out = {}
    for task_id, r in report.items():
        if r.get("baseline_failure"):
            out[task_id] = r
            continue
        rows = [{**row, "equivalent": known.get(f"{task_id} {row['mutant'].split('@')[0]}")} for row in r["rows"]]
        counted = [row for row in rows if not row["equivalent"]]
        out[task_id] = {"mutants": len(rows), "counted": len(counted), "rows": rows, "device": r.get("device", "cpu"),
                        "killed": sum(row["killed_by"] is not None for row in counted)}
    return out


def summary_cells(report: dict[str, dict]) -> dict[str, str]:
    """task id → "killed/counted (+n equivalent)[, on the GPU]", the docs/tasks.md column."""
    return {tid: f"{r['killed']}/{r['counted']}" + (f" (+{r['mutants'] - r['counted']} equivalent)"
                                                     if r["mutants"] > r["counted"] else "")
            + (", on the GPU" if r.get("device") == "cuda" else "")
            for tid, r in report.items()}


def load_scores() -> dict[str, str]:
    """The committed scores (SCORES, written by `--write`), as docs/tasks.md shows them."""
    return json.loads(SCORES.read_text())["tasks"] if SCORES.exists() else {}


def write_scores(report: dict[str, dict]) -> None:
    """Merges a run's per-task cells into SCORES (a sampled run updates only its tasks)."""
    cells = {**load_scores(), **summary_cells(report)}
    SCORES.write_text(json.dumps({"generator": "python -m kernelbenchx.dataset.mutate --write TASK...",
                                  "max_sites": MAX_SITES, "tasks": dict(sorted(cells.items()))}, indent=1) + "\n")


def main(argv: list[str]) -> int:
    """python -m kernelbenchx.dataset.mutate [TASK...] [--sample N] [--workers N] [--json FILE] [--write]"""
    import argparse

    from kernelbenchx.dataset.registry import all_tasks, get_task
    from kernelbenchx.errors import KbxError

    parser = argparse.ArgumentParser(prog="python -m kernelbenchx.dataset.mutate",
                                     description="Mutation testing of the tasks' cases on their kept solutions.")
    parser.add_argument("tasks", nargs="*", help="task ids (default: every task with a kept solution)")
    parser.add_argument("--sample", type=int, help="mutate N tasks drawn with seed N")
    parser.add_argument("--workers", type=int, default=1, help="mutants run at once (each in its own process)")
    parser.add_argument("--json", help="write the per-mutant report here")
    parser.add_argument("--write", action="store_true", help=f"merge the per-task scores into {SCORES.name}")
    parser.add_argument("--sweep", metavar="OPERATOR#SITE", help="judge one mutant of a one-input float32 task "
                                                                  "on a dense input sweep (evidence for triage)")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                        help="cpu: Triton's interpreter (the scores' backend); cuda: compiled kernels on the GPU, "
                             "for what the interpreter cannot show (bf16, a loop-carried dtype change)")
    parser.add_argument("--operators", help="comma-separated operators to apply (default: all); "
                                            "a partial run does not --write")
    parser.add_argument("--rerun", metavar="JSON", help="run each mutant this earlier report saw killed on the "
                                                        "killing case alone first (fast re-measure after triage)")
    parser.add_argument("--rescore", metavar="JSON", help="re-count a saved --json report with the current "
                                                          "equivalents instead of running mutants")
    opts = parser.parse_args(argv)
    try:
        for task_id in opts.tasks:
            get_task(task_id)
    except KbxError as exc:
        parser.error(str(exc))
    operators = frozenset(opts.operators.split(",")) if opts.operators else frozenset(OPERATORS)
    if operators - set(OPERATORS):
        parser.error(f"unknown operator(s) {sorted(operators - set(OPERATORS))}; known: {', '.join(OPERATORS)}")
    if opts.write and operators != set(OPERATORS):
        parser.error("--write needs every operator: a partial run's score is not the task's score")
    if opts.device == "cpu" and not opts.rescore and (problem := interpreter_problem()):
        parser.error(problem)
    if opts.sweep:
        for task_id in opts.tasks:
            print(sweep(task_id, opts.sweep))
        return 0
    ids = opts.tasks or [t for t in all_tasks() if (SOLUTIONS / f"{t}.py").exists()]
    if opts.sample is not None:
        ids = sorted(random.Random(opts.sample).sample(ids, min(opts.sample, len(ids))))
    report = rescore(json.loads(Path(opts.rescore).read_text())) if opts.rescore else \
        score(ids, workers=opts.workers, device=opts.device, operators=operators,
              previous=json.loads(Path(opts.rerun).read_text()) if opts.rerun else None)
    counted = sum(r["counted"] for r in report.values())
    killed = sum(r["killed"] for r in report.values())
    unscored = sorted(t for t, r in report.items() if r.get("baseline_failure"))
    print(f"mutation score: {killed}/{counted} = {killed / max(counted, 1):.1%} over {len(report)} tasks"
          + (f"; NOT SCORED (kept solution fails): {', '.join(unscored)}" if unscored else ""))
    if opts.json:
        Path(opts.json).write_text(json.dumps(report, indent=1) + "\n")
    if opts.write:
        write_scores({t: r for t, r in report.items() if not r.get("baseline_failure")})
    return 0 if killed == counted and not unscored else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
