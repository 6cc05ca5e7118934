"""The `kbx` command line: thin commands over library functions."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

app = typer.Typer(help="KernelBench-X evaluator for LLM-written Triton kernels.", no_args_is_help=True,
                  pretty_exceptions_enable=False, add_completion=False)
tasks_app = typer.Typer(help="Browse the task set.", no_args_is_help=True)
dataset_app = typer.Typer(help="Build the Hugging Face dataset.", no_args_is_help=True)
hw_app = typer.Typer(help="Measure the current GPU.", no_args_is_help=True)
app.add_typer(tasks_app, name="tasks")
app.add_typer(dataset_app, name="dataset")
app.add_typer(hw_app, name="hw")
err = Console(stderr=True)


def fail(message: str, code: int = 2) -> None:
    err.print(f"[bold red]error:[/] {message}")
    raise typer.Exit(code)


@app.command("eval")
def eval_(
    submission: Annotated[Path, typer.Argument(help="JSONL file, upstream JSONL, .py file or folder of <stem>.py")],
    out: Annotated[Path, typer.Option(help="results folder")] = Path("results"),
    resume: Annotated[bool, typer.Option(help="continue an interrupted run in OUT")] = False,
    device: Annotated[Optional[str], typer.Option(help="cpu or cuda (default: cuda when available)")] = None,
    workers: Annotated[int, typer.Option(help="candidates evaluated in parallel")] = 0,
    timeout: Annotated[float, typer.Option(help="wall-clock seconds per candidate (import and checks)")] = 300.0,
    perf_timeout: Annotated[float, typer.Option(help="perf-stage seconds, from holding the GPU")] = 90.0,
    baselines: Annotated[str, typer.Option(help="comma-separated: eager, compile")] = "eager",
    perf: Annotated[bool, typer.Option(help="time candidates on the GPU")] = True,
    task_set: Annotated[str, typer.Option(help="denominator of the summary: paper, all or submitted")] = "paper",
    seed: Annotated[Optional[int], typer.Option(help="fix the secret seed (reproduction only)")] = None,
) -> None:
    """Evaluate a submission; results.jsonl and summary.json go to OUT."""
    from kernelbenchx.evaluator.report import format_table
    from kernelbenchx.evaluator.run import RunConfig, evaluate_submission
    from kernelbenchx.evaluator.submission import SubmissionError

    names = tuple(b.strip() for b in baselines.split(",") if b.strip())
    if not set(names) <= {"eager", "compile"} or "eager" not in names:
        fail(f"--baselines must include eager and may add compile, got {baselines!r}")
    if task_set not in ("paper", "all", "submitted"):
        fail(f"--task-set must be paper, all or submitted, got {task_set!r}")
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err, transient=False) as progress:
        bar = progress.add_task("evaluating", total=None)

        def tick(done: int, total: int, record: dict) -> None:
            progress.update(bar, total=total, completed=done,
                            description=f"{record['candidate'].get('task_id') or '?'}: {record['verdict']}")

        config = RunConfig(out_dir=out, device=device, seed=seed, resume=resume, timeout_s=timeout,
                           perf_timeout_s=perf_timeout, baselines=names, perf=perf, task_set=task_set, progress=tick)
        if workers:
            config.workers = workers
        try:
            summary = evaluate_submission(submission, config)
        except SubmissionError as exc:
            fail(str(exc))
    typer.echo(format_table(summary))
    typer.echo(f"\nresults: {out / 'results.jsonl'}\nsummary: {out / 'summary.json'}")


@app.command()
def report(
    results: Annotated[Path, typer.Argument(help="results folder or results.jsonl")],
    task_set: Annotated[str, typer.Option(help="paper, all or submitted")] = "paper",
    as_json: Annotated[bool, typer.Option("--json", help="print the summary as JSON")] = False,
) -> None:
    """Print the summary table of a results folder (recomputed from its records)."""
    from kernelbenchx.evaluator.report import format_table, read_results, summarize

    path = results / "results.jsonl" if results.is_dir() else results
    if not path.exists():
        fail(f"no results file at {path}")
    records = read_results(path)
    summary = summarize(records, task_set, submitted=[r["candidate"]["task_id"] for r in records
                                                      if r["candidate"].get("task_id")])
    typer.echo(json.dumps(summary, indent=2) if as_json else format_table(summary))


@app.command()
def validate(
    file: Annotated[Path, typer.Argument(help="a submission .jsonl, results.jsonl, summary.json or golden file")],
    kind: Annotated[Optional[str], typer.Option(help="submission, result, summary or golden (default: guess)")] = None,
) -> None:
    """Check a file against kbx's JSON Schemas; exit 0 valid, 1 invalid, 2 usage error."""
    from kernelbenchx.validate import KINDS, validate_file

    if kind is not None and kind not in KINDS:
        fail(f"--kind must be one of {', '.join(KINDS)}")
    try:
        problems = validate_file(file, kind)
    except OSError as exc:
        fail(f"cannot read {file}: {exc.strerror or exc}")
    for problem in problems:
        typer.echo(problem)
    if problems:
        raise typer.Exit(1)
    typer.echo(f"{file}: valid")


@tasks_app.command("list")
def tasks_list(
    category: Annotated[Optional[str], typer.Option(help="only this category")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object per task")] = False,
    markdown: Annotated[bool, typer.Option(help="the docs/tasks.md table")] = False,
) -> None:
    """List the registered tasks."""
    from kernelbenchx.dataset.catalog import markdown_table, task_summary
    from kernelbenchx.dataset.registry import CATEGORIES, tasks_in

    if category is not None and category not in CATEGORIES:
        fail(f"unknown category {category!r}; categories: {', '.join(CATEGORIES)}")
    tasks = tasks_in(category)
    if markdown:
        typer.echo(markdown_table(tasks), nl=False)
    elif as_json:
        for t in tasks:
            typer.echo(json.dumps(task_summary(t)))
    else:
        for t in tasks:
            typer.echo(f"{t.id:<55} d{t.difficulty}  {t.contract.dtypes}")


@tasks_app.command("show")
def tasks_show(task_id: Annotated[str, typer.Argument(help="Category/stem")]) -> None:
    """Print the exact prompt a model is given for TASK_ID."""
    from kernelbenchx.dataset.prompt import render_prompt
    from kernelbenchx.dataset.registry import UnknownTask, get_task

    try:
        typer.echo(render_prompt(get_task(task_id)), nl=False)
    except UnknownTask as exc:
        fail(str(exc))


@dataset_app.command("build")
def dataset_build(
    out_dir: Annotated[Path, typer.Argument(help="folder to write")],
    corpus: Annotated[Optional[Path], typer.Option(help="upstream-format corpus JSONL to include as 'kernels'")] = None,
) -> None:
    """Write the dataset folder (parquet + README card) for datasets.load_dataset."""
    from kernelbenchx.dataset.hub import build_dataset

    if corpus is not None and not corpus.exists():
        fail(f"corpus not found: {corpus}")
    counts = build_dataset(out_dir, corpus)
    typer.echo(", ".join(f"{k}: {v} rows" for k, v in counts.items()) + f" → {out_dir}")


@app.command()
def golden(
    target: Annotated[str, typer.Option(help="GPU target name, e.g. h100")],
    out: Annotated[Optional[Path], typer.Option(help="file to write (default: the package's golden data)")] = None,
    baselines: Annotated[str, typer.Option(help="eager or eager,compile")] = "eager",
    tasks: Annotated[Optional[str], typer.Option(help="comma-separated task ids (default: all)")] = None,
) -> None:
    """Measure baseline timings of every task on this GPU into the golden file for TARGET."""
    from kernelbenchx.evaluator.golden_run import measure_golden

    try:
        path = measure_golden(target, out, tuple(baselines.split(",")), tasks.split(",") if tasks else None,
                              progress=lambda msg: err.print(msg))
    except RuntimeError as exc:
        fail(str(exc))
    typer.echo(f"golden timings → {path}")


@hw_app.command("probe")
def hw_probe(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """Measure achievable copy bandwidth and matmul throughput next to the datasheet peaks."""
    from kernelbenchx.evaluator.hwprobe import probe

    try:
        result = probe()
    except RuntimeError as exc:
        fail(str(exc))
    typer.echo(json.dumps(result, indent=2) if as_json else "\n".join(f"{k}: {v}" for k, v in result.items()))


def main() -> None:
    app()


if __name__ == "__main__":
    sys.exit(main())
