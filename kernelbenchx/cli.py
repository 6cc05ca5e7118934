"""The `kbx` command line: thin commands over library functions.

Every command calls one library function and renders its result. User errors (kernelbenchx.errors) become
one line on stderr, a hint where one helps, and exit status 2 (130 when interrupted); `--debug` shows the
traceback. Anything else is a bug and keeps its traceback.

Examples:
    kbx eval examples/submission.jsonl --out results
    kbx eval submission.jsonl --out results --resume
    kbx tasks show Activation/gelu
    kbx validate results/results.jsonl
    kbx report results --html report.html
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import click
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from kernelbenchx.errors import INTERRUPTED, KbxError, UsageError

err = Console(stderr=True, soft_wrap=True)
DEBUG = {"on": False}


class Guarded(typer.core.TyperGroup):
    """The CLI's one error table: user errors → message, hint, exit code; tracebacks only with --debug."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except KbxError as exc:
            if DEBUG["on"]:
                raise
            err.print(f"[bold red]error:[/] {exc.message}")
            if exc.hint:
                err.print(f"[dim]hint:[/] {exc.hint}")
            ctx.exit(exc.exit_code)
        except KeyboardInterrupt:
            err.print("[bold red]interrupted[/]")
            ctx.exit(INTERRUPTED)


app = typer.Typer(cls=Guarded, help="KernelBench-X evaluator for LLM-written Triton kernels.",
                  no_args_is_help=True, pretty_exceptions_enable=False, add_completion=False)
tasks_app = typer.Typer(help="Browse the task set.", no_args_is_help=True)
dataset_app = typer.Typer(help="Build, publish and download the Hugging Face dataset.", no_args_is_help=True)
hw_app = typer.Typer(help="Measure the current GPU.", no_args_is_help=True)
image_app = typer.Typer(help="Build evaluation images (containers/Dockerfile).", no_args_is_help=True)
app.add_typer(tasks_app, name="tasks")
app.add_typer(image_app, name="image")
app.add_typer(dataset_app, name="dataset")
app.add_typer(hw_app, name="hw")


@app.callback()
def main_options(debug: Annotated[bool, typer.Option("--debug", help="show tracebacks of user errors")] = False
                 ) -> None:
    DEBUG["on"] = debug


def split(value: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in value.split(",") if v.strip())


@app.command("eval")
def eval_(
    submission: Annotated[Path, typer.Argument(help="JSONL file, upstream JSONL, .py file or folder of <stem>.py")],
    out: Annotated[Path, typer.Option(help="results folder")] = Path("results"),
    resume: Annotated[bool, typer.Option(help="continue the interrupted run in OUT (same submission)")] = False,
    overwrite: Annotated[bool, typer.Option(help="replace a run already in OUT")] = False,
    device: Annotated[Optional[str], typer.Option(help="cpu or cuda [default: cuda when available]")] = None,
    workers: Annotated[int, typer.Option(help="candidates evaluated in parallel (0: automatic; 20 per GPU, at most "
                                              "5 per 4 cores; on the CPU one per core, at most 8)")] = 0,
    timeout: Annotated[float, typer.Option(help="wall-clock seconds per candidate (import and checks)")] = 300.0,
    perf_timeout: Annotated[float, typer.Option(help="perf-stage seconds, from holding the GPU")] = 90.0,
    baselines: Annotated[str, typer.Option(help="comma-separated: eager, compile, solution")] = "eager",
    perf: Annotated[bool, typer.Option(help="time candidates on the GPU")] = True,
    warm_up: Annotated[bool, typer.Option(help="compile each candidate's kernels on fake inputs before its "
                                               "correctness cases and before its timing")] = True,
    compile_slots: Annotated[int, typer.Option(help="candidates compiling their correctness kernels at once (0: "
                                                    "automatic, the usable cores over --compile-threads)")] = 0,
    compile_threads: Annotated[int, typer.Option(help="compile threads per candidate's correctness warm-up")] = 4,
    task_set: Annotated[str, typer.Option(help="summary denominator: paper, all, faithful or submitted")] = "paper",
    order: Annotated[str, typer.Option(help="which candidates start first: expected (the longest expected work "
                                            "first), mixed (the same, the first wave alternating heavy and light) "
                                            "or submission (as given)")] = "expected",
    quiet_host: Annotated[bool, typer.Option(help="stop the other candidate processes while a timing measures "
                                                  "host time (eager timings of work that synchronizes)")] = False,
    fork_server: Annotated[bool, typer.Option(help="fork candidate processes from a zygote that imported torch "
                                                   "and triton once (off: each process starts from scratch)")] = True,
    judge_processes: Annotated[int, typer.Option(help="worker processes that judge outputs against the tasks' "
                                                      "contracts (-1: automatic, one per 8 usable cores on GPUs, "
                                                      "none on the CPU; 0: the evaluating process itself)")] = -1,
    device_opens: Annotated[int, typer.Option(help="candidate processes creating their CUDA context at once, "
                                                   "in the order they started (0: no limit)")] = 0,
    seed: Annotated[Optional[int], typer.Option(help="fix the secret seed (reproduction only)")] = None,
    require_isolation: Annotated[bool, typer.Option(help="refuse to run without every OS isolation layer")] = False,
    ray: Annotated[Optional[str], typer.Option(help="spread over a Ray cluster: auto, an address, or local")] = None,
    image: Annotated[Optional[str], typer.Option(help="run inside this kbx-eval image (Docker engine)")] = None,
    memory: Annotated[Optional[str], typer.Option(help="with --image: the container's memory limit, e.g. 32g")] = None,
    cpus: Annotated[Optional[float], typer.Option(help="with --image: the container's CPU limit")] = None,
) -> None:
    """Evaluate a submission; results.jsonl, summary.json and manifest.json go to OUT."""
    from kernelbenchx.evaluator.parent.run import RunConfig, evaluate_submission
    from kernelbenchx.evaluator.parent.summary import format_table

    config = RunConfig(out_dir=out, device=device, seed=seed, resume=resume, overwrite=overwrite, workers=workers,
                       timeout_s=timeout, perf_timeout_s=perf_timeout, baselines=split(baselines), perf=perf,
                       warm_up=warm_up, compile_slots=compile_slots, compile_threads=compile_threads,
                       task_set=task_set, order=order, quiet_host=quiet_host, fork_server=fork_server,
                       judge_processes=judge_processes, device_opens=device_opens,
                       require_isolation=require_isolation, ray=ray)
    config.check()
    if image is not None:
        from kernelbenchx.image.run import Limits, eval_in_image

        done = eval_in_image(image, submission, config, Limits(memory=memory, cpus=cpus))
        err.print(f"image {done.image_id[:19]} ({done.target}): results in {done.out_dir}")
        raise typer.Exit(done.exit_code)
    if config.resolved_device() == "cpu":
        err.print("[dim]no GPU: kernels run under Triton's CPU interpreter; timing is skipped (it would say "
                  "nothing about speed)[/]")
    # redrawn twice a second on a terminal, else only when a candidate finishes: the redraw thread shares the
    # parent's interpreter with twenty candidates' workers (3% of its GIL in run 66, ten redraws a second to a file)
    live = err.is_terminal
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        TextColumn("eta"), TimeRemainingColumn(), console=err, transient=False,
                        auto_refresh=live, refresh_per_second=2)
    bar = {}

    def tick(done: int, total: int, result) -> None:  # the bar appears once the submission has been read
        if not bar:
            progress.start()
            bar["id"] = progress.add_task("evaluating", total=total)
        label = f"{result.task_id or '?'}: {result.verdict.value}" if result is not None else "evaluating"
        progress.update(bar["id"], total=total, completed=done, description=label, refresh=not live)

    config.progress = tick
    try:
        summary = evaluate_submission(submission, config)
    finally:
        progress.stop()
    typer.echo(format_table(summary))
    typer.echo(f"\nresults: {out / 'results.jsonl'}\nsummary: {out / 'summary.json'}")


@app.command()
def report(
    runs: Annotated[list[Path], typer.Argument(help="results folders (or results.jsonl files); several: compared")],
    task_set: Annotated[str, typer.Option(help="paper, all, faithful or submitted")] = "paper",
    as_json: Annotated[bool, typer.Option("--json", help="print the summary as JSON")] = False,
    html: Annotated[Optional[Path], typer.Option("--html", help="write the HTML report (plots; several runs, or "
                                                                "methods/models in one, compared) here")] = None,
) -> None:
    """Print the summary table of each results folder (recomputed from its records), or write an HTML report.

    Examples: kbx report results/ · kbx report results/ --html report.html ·
    kbx report run_a/ run_b/ --html compare.html --task-set submitted
    """
    from kernelbenchx.evaluator.parent.summary import format_table
    from kernelbenchx.report.data import run_summaries

    if html is not None:
        from kernelbenchx.report.html import write_html

        typer.echo(f"report: {write_html(runs, html, task_set)}")
        return
    summaries = run_summaries(runs, task_set)
    if as_json:
        typer.echo(json.dumps(summaries[0][1] if len(runs) == 1 else {str(run.path): summary for run, summary in
                                                                      summaries}, indent=2))
        return
    for i, (run, summary) in enumerate(summaries):
        if len(runs) > 1:
            typer.echo(f"{chr(10) if i else ''}== {run.path}")
        typer.echo(format_table(summary))


@app.command()
def validate(
    file: Annotated[Path, typer.Argument(help="a submission .jsonl, results.jsonl, summary.json or golden file")],
    kind: Annotated[Optional[str], typer.Option(help="submission, result, summary or golden [default: guess]")] = None,
) -> None:
    """Check a file against kbx's JSON Schemas; exit 0 valid, 1 invalid, 2 usage error."""
    from kernelbenchx.validate import KINDS, validate_file

    if kind is not None and kind not in KINDS:
        raise UsageError(f"--kind must be one of {', '.join(KINDS)}")
    try:
        problems = validate_file(file, kind)
    except OSError as exc:
        raise UsageError(f"cannot read {file}: {exc.strerror or exc}") from None
    for problem in problems:
        typer.echo(problem)
    if problems:
        raise typer.Exit(1)
    typer.echo(f"{file}: valid")


@app.command()
def verify(
    run_dir: Annotated[Path, typer.Argument(help="the --out folder of a kbx eval run")],
    submission: Annotated[Optional[Path], typer.Option(help="the submission it evaluated (L1 hashes, L3, L4)")] = None,
    level: Annotated[int, typer.Option(help="0 schemas, 1 integrity, 2 environment, 3 re-judge on CPU, 4 GPU")] = 3,
    sample: Annotated[Optional[int], typer.Option(help="re-run only this many candidates (L3, L4)")] = None,
    nonce: Annotated[Optional[str], typer.Option(help="the verifier's nonce for choosing the sample")] = None,
) -> None:
    """Verify a run directory; exit 0 verified, 1 failed, 2 usage, 3 a level not runnable here."""
    from kernelbenchx.verify import verify as run_verify

    report = run_verify(run_dir, submission, level, sample, nonce)
    for code, message in report.problems:
        typer.echo(f"FAIL {code}: {message}")
    for n, outcome in sorted(report.levels.items()):
        typer.echo(f"L{n}: {outcome}")
    raise typer.Exit(report.status)


@image_app.command("build")
def image_build(
    target: Annotated[str, typer.Option(help="cpu or h100")] = "cpu",
    tag: Annotated[Optional[str], typer.Option(help="image tag [default: kbx-eval:TARGET]")] = None,
    base: Annotated[Optional[str], typer.Option(help="Debian bookworm base image [default: the Dockerfile's "
                                                     "digest-pinned one]; containers/base.sh makes one")] = None,
    wheels: Annotated[Optional[Path], typer.Option(help="folder holding the target's torch wheel if not on PyPI")
                      ] = None,
    ca_file: Annotated[Optional[Path], typer.Option(help="CA bundle for pip behind a proxy [default: $PIP_CERT]")
                       ] = None,
    dry_run: Annotated[bool, typer.Option(help="print the plan (build args, labels, files) and stop")] = False,
) -> None:
    """Build the kbx-eval image for TARGET with the pinned locks; prints its tag, ID, size and labels."""
    from kernelbenchx.image.build import build_image, plan_build

    plan = plan_build(target, tag, base, wheels, ca_file)
    if dry_run:
        typer.echo(json.dumps({"tag": plan.tag, "args": plan.args, "labels": plan.labels, "ca_secret": str(
            plan.ca_file) if plan.ca_file else None, "wheel": str(plan.wheel) if plan.wheel else None,
                               "files": len(plan.files)}, indent=2))
        return
    built = build_image(plan)
    typer.echo(f"{built.tag}: {built.id} ({built.size_bytes / 1e9:.2f} GB, {built.seconds:.0f} s)")
    typer.echo("\n".join(f"  {k}={v}" for k, v in sorted(built.labels.items())))


@tasks_app.command("list")
def tasks_list(
    category: Annotated[Optional[str], typer.Option(help="only this category")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object per task")] = False,
    markdown: Annotated[bool, typer.Option(help="the docs/tasks.md table")] = False,
) -> None:
    """List the registered tasks: id, difficulty (1 easy … 5 hard, from the paper), faithful/kbx-only, dtypes."""
    from kernelbenchx.dataset.catalog import markdown_table, task_summary
    from kernelbenchx.dataset.registry import CATEGORIES, tasks_in

    if category is not None and category not in CATEGORIES:
        raise UsageError(f"unknown category {category!r}", hint=f"categories: {', '.join(CATEGORIES)}")
    tasks = tasks_in(category)
    if markdown:
        from kernelbenchx.dataset.mutate import load_scores

        typer.echo(markdown_table(tasks, load_scores()), nl=False)
    elif as_json:
        for t in tasks:
            typer.echo(json.dumps(task_summary(t)))
    else:
        typer.echo(f"{'id':<55} {'difficulty':<11} {'set':<9} dtypes")
        for t in tasks:
            kind = "faithful" if t.faithful else ("paper" if t.in_paper else "kbx-only")
            typer.echo(f"{t.id:<55} {t.difficulty:<11} {kind:<9} {t.contract.dtypes}")


@tasks_app.command("show")
def tasks_show(task_id: Annotated[str, typer.Argument(help="Category/stem (a bare stem works when unique)")]) -> None:
    """Print the exact prompt a model is given for TASK_ID."""
    from kernelbenchx.dataset.prompt import render_prompt
    from kernelbenchx.dataset.registry import by_stem, get_task

    task = by_stem(task_id) if "/" not in task_id else None
    typer.echo(render_prompt(task or get_task(task_id)), nl=False)


@dataset_app.command("build")
def dataset_build(
    out_dir: Annotated[Path, typer.Argument(help="folder to write (replaced whole if it holds an earlier build)")],
    kernels_run: Annotated[Optional[Path], typer.Option(help="a kbx eval --out folder: the kernels config")] = None,
    corpus: Annotated[Optional[Path], typer.Option(help="upstream corpus the run evaluated (adds upstream_*)")] = None,
    submission: Annotated[Optional[Path], typer.Option(help="or: the JSONL the run evaluated (the kernels' code)")
                          ] = None,
    tasks: Annotated[Optional[str], typer.Option(help="comma-separated task ids [default: all]")] = None,
    configs: Annotated[str, typer.Option(help="comma-separated configs")] = "tasks,cases,kernels,golden,solutions",
) -> None:
    """Write the dataset folder (parquet shards, README card, MANIFEST.json) for datasets.load_dataset.

    Examples: kbx dataset build hf/ ; kbx dataset build hf/ --corpus ../shared/upstream/all_records.jsonl
    --kernels-run runs/corpus ; kbx dataset build preview/ --tasks Activation/gelu,Reduce/sum
    """
    from kernelbenchx.dataset.hub import build_dataset

    built = build_dataset(out_dir, corpus, kernels_run, list(split(tasks)) if tasks else None, split(configs),
                          submission)
    for config, splits in built.rows.items():
        typer.echo(f"{config}: " + ", ".join(f"{s} {n} rows" for s, n in splits.items()))
    typer.echo(f"task set {built.manifest['task_set_sha256'][:16]}… → {out_dir}")


@dataset_app.command("corpus-submission")
def dataset_corpus_submission(
    corpus: Annotated[Path, typer.Argument(help="upstream all_records.jsonl")],
    out: Annotated[Path, typer.Argument(help="submission JSONL to write")],
    model: Annotated[Optional[str], typer.Option(help="the model that wrote the corpus, when known")] = None,
) -> None:
    """Write the kbx submission of an upstream corpus (one candidate per record side) for kbx eval.

    Example: kbx dataset corpus-submission ../shared/upstream/all_records.jsonl sub.jsonl
    """
    from kernelbenchx.dataset.hub import corpus_submission

    typer.echo(f"{corpus_submission(corpus, out, model)} candidates → {out}")


@dataset_app.command("push")
def dataset_push(
    repo: Annotated[str, typer.Argument(help="dataset repository on the Hub, ORG/NAME")],
    folder: Annotated[Path, typer.Option(help="the built folder")] = Path("hf"),
    tag: Annotated[Optional[str], typer.Option(help="tag the uploaded commit vX.Y.Z (never moves an existing tag)")
                   ] = None,
    private: Annotated[bool, typer.Option(help="create the repository private")] = False,
) -> None:
    """Upload a built dataset folder and tag the commit (HF_TOKEN with write access).

    Example: kbx dataset push ORG/kernelbench-x --folder hf/ --tag v0.2.0
    """
    from kernelbenchx.dataset.hub import push_dataset

    pushed = push_dataset(folder, repo, tag, private=private)
    typer.echo(f"{repo}@{pushed.commit}" + (f" tagged {pushed.tag}" if pushed.tag else ""))


@dataset_app.command("download")
def dataset_download(
    repo: Annotated[str, typer.Argument(help="dataset repository on the Hub, ORG/NAME")],
    revision: Annotated[str, typer.Option(help="tag, branch or commit to pin")],
    to: Annotated[Path, typer.Option(help="folder to download into")],
) -> None:
    """Download one revision, check it against its MANIFEST.json and load every config offline.

    Example: kbx dataset download ORG/kernelbench-x --revision v0.2.0 --to data/
    """
    from kernelbenchx.dataset.hub import download_dataset

    got = download_dataset(repo, revision, to)
    for config, splits in got.rows.items():
        typer.echo(f"{config}: " + ", ".join(f"{s} {n} rows" for s, n in splits.items()))
    typer.echo(f"{repo}@{got.commit or revision} → {to}  (export KBX_DATASET_REVISION={got.commit or revision})")


@app.command()
def golden(
    target: Annotated[str, typer.Option(help="GPU target name, e.g. h100")],
    out: Annotated[Optional[Path], typer.Option(help="file to write [default: the package's golden data]")] = None,
    baselines: Annotated[str, typer.Option(help="eager or eager,compile")] = "eager",
    tasks: Annotated[Optional[str], typer.Option(help="comma-separated task ids [default: all]")] = None,
) -> None:
    """Measure baseline timings of every task on this GPU into the golden file for TARGET."""
    from kernelbenchx.dataset.registry import get_task
    from kernelbenchx.evaluator.measure.golden_run import measure_golden

    ids = [get_task(t).id for t in split(tasks)] if tasks else None  # unknown ids fail here, with suggestions
    path = measure_golden(target, out, split(baselines), ids, progress=lambda msg: err.print(msg))
    typer.echo(f"golden timings → {path}")


@hw_app.command("probe")
def hw_probe(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """Measure achievable copy bandwidth and matmul throughput next to the datasheet peaks."""
    from kernelbenchx.evaluator.measure.hwprobe import probe

    result = probe()
    typer.echo(json.dumps(result, indent=2) if as_json else "\n".join(f"{k}: {v}" for k, v in result.items()))


def main() -> None:
    app()


if __name__ == "__main__":
    main()
