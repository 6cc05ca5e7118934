"""`kbx report RUN [RUN ...] --html OUT.html`: one self-contained HTML page (inline SVG, inline CSS and a few
lines of JS for sorting; nothing fetched at view time).

Sections: headline numbers with their definitions; fast_p curves over p in [0, 4] against every baseline the
records carry; correct rate and speedup geomean per category; the roofline scatter of every timed perf case
against the GPU's datasheet peaks; with several series (runs, or methods/models within a run) the comparison
with the first series and the category × method analysis; the sortable per-candidate table linking to each
embedded record; the environment and isolation fingerprint. Without timing the perf sections say why instead
of plotting nothing.
"""

from __future__ import annotations

from datetime import datetime, timezone
from html import escape
from pathlib import Path

from kernelbenchx import __version__
from kernelbenchx.errors import UsageError
from kernelbenchx.report import figures, tables
from kernelbenchx.report.analysis import OUTCOMES, THRESHOLD, Analysis, category_by_method
from kernelbenchx.report.compare import Comparison, comparisons
from kernelbenchx.report.data import Series, baselines_present, load_series, peaks_of, perf_points

SECTIONS = ("headline", "fast-p", "categories", "roofline", "comparison", "analysis", "tasks", "environment",
            "records")
ASSETS = Path(__file__).with_name("assets")


def write_html(paths: list[str | Path] | list[Path], out: str | Path, task_set: str = "paper") -> Path:
    """Render the report of the runs at `paths` into the file `out` (its folder is created)."""
    out = Path(out)
    page = render_html(load_series(paths, task_set))
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {out}: {exc.strerror or exc}", hint="choose a writable --html path") from None
    return out


def render_html(series: list[Series]) -> str:
    names = sorted({s.run.name for s in series})
    title = f"kbx report: {', '.join(names)}"
    rows, records = tables.task_rows(series)
    body = "\n".join([
        header(series, title), section("headline", "Headline numbers", headline(series)),
        section("fast-p", "fast_p curves", fast_p(series)),
        section("categories", "Per category", figure("categories", figures.category_figure(series),
                                                     "correct rate and speedup geomean per category")
                + tables.category_table(series)),
        section("roofline", "Roofline", roofline(series)),
        section("comparison", "Comparison", comparison(series)),
        section("analysis", "Category × method", analysis(series)),
        section("tasks", "Per task", task_table(series, rows)),
        section("environment", "Environment and isolation", tables.environment_tables(series)),
    ])
    body += "\n" + section("records", "Records", "<p class=\"small\">each candidate's record as results.jsonl "
                           "holds it (the task table links here)</p>" + records)
    return PAGE.format(title=escape(title), css=(ASSETS / "report.css").read_text(),
                       js=(ASSETS / "report.js").read_text(), body=body)


def header(series: list[Series], title: str) -> str:
    task_set = series[0].summary["task_set"]
    runs = ", ".join(sorted({f"{s.run.name} ({s.run.info.get('run_id', '?')})" for s in series}))
    stamp = datetime.now(timezone.utc).isoformat(timespec="seconds")
    nav = " · ".join(f'<a href="#{s}">{s}</a>' for s in SECTIONS)
    return (f"<header><h1>{escape(title)}</h1><p>runs: {escape(runs)}; series: "
            f"{escape(', '.join(s.label for s in series))}; task set <b>{escape(task_set)}</b>; rendered by kbx "
            f"{__version__} at {stamp}</p><nav>{nav}</nav></header>")


def section(ident: str, heading: str, content: str) -> str:
    return f'<section id="{ident}"><h2>{escape(heading)}</h2>\n{content}\n</section>'


def figure(ident: str, svg: str, caption: str) -> str:
    return (f'<figure class="kbx-figure" id="fig-{ident}">{svg}<figcaption>{escape(caption)}</figcaption>'
            "</figure>")


def scroll(table: str) -> str:
    return f'<div class="scroll">{table}</div>'


def note(text: str) -> str:
    return f'<p class="note">{escape(text)}</p>'


def untimed(series: list[Series]) -> str | None:
    """Why nothing can be plotted from timings (None when some series was timed)."""
    if any(s.timed for s in series):
        return None
    return "Not measured: " + (series[0].summary["timing"] or "no series was timed")


def partly_timed(series: list[Series]) -> str:
    """A note naming the series left out of the timing plots (empty when every series was timed)."""
    left_out = [s.label for s in series if not s.timed]
    if not left_out or len(left_out) == len(series):
        return ""
    return note(f"Not timed, so not plotted here: {', '.join(left_out)} (no GPU timed their candidates).")


def headline(series: list[Series]) -> str:
    text = tables.headline_table(series)
    if untimed(series):
        text += note(untimed(series))
    return text


def fast_p(series: list[Series]) -> str:
    if untimed(series):
        return note(untimed(series) + ". fast_p needs GPU timings; the curves appear for runs on a GPU.")
    baselines = baselines_present(series)
    caption = ("fast_p(p): share of the set's tasks that are correct with a best speedup above p, for p from 0 "
               "to 4, one panel per baseline (eager: PyTorch under the contract's precision admission; "
               "eager_fp32: strict fp32; compile: torch.compile; solution: kbx's Triton solution)")
    return figure("fast-p", figures.fast_p_figure(series, baselines), caption) + partly_timed(series)


def roofline(series: list[Series]) -> str:
    if untimed(series):
        return note(untimed(series) + ". The roofline places timed perf cases; none were timed.")
    points = [p for s in series for p in perf_points(s)]
    peaks = peaks_of(series)
    if not points:
        return note("No correct candidate was timed, so no perf case can be placed on the roofline.")
    if peaks is None:
        return note("The GPU that timed these records is not in kbx's peak table "
                    "(kernelbenchx.evaluator.measure.roofline.PEAKS): no roofline to draw against.")
    _, peak = peaks
    svg = figures.roofline_figure(points, peak, [s.label for s in series])
    caption = (f"every perf case of every timed correct candidate (filled) and the eager baseline on the same "
               f"inputs (hollow); roofs from the {peak.name} datasheet ({peak.source}); red crosses are "
               f"implausible (faster than the roofline allows)")
    return figure("roofline", svg, caption) + partly_timed(series)


def comparison(series: list[Series]) -> str:
    if len(series) < 2:
        return note("One series only: pass several run folders (kbx report RUN_A RUN_B --html ...), or a run "
                    "whose records carry several methods or models, to compare them.")
    return "\n".join(comparison_block(comp, i) for i, comp in enumerate(comparisons(series), start=1))


def comparison_block(comp: Comparison, number: int) -> str:
    geo = comp.ratio_geomean
    summary = (f"<p><b>{escape(comp.other)}</b> against <b>{escape(comp.reference)}</b>: "
               f"{len(comp.gained())} tasks became correct, {len(comp.lost())} stopped being correct, "
               f"{len(comp.changes)} changed verdict, {comp.same} kept it; speedup ratio geomean over the "
               f"{len(comp.ratios)} tasks both solved and timed: {f'{geo:.2f}x' if geo else '–'}</p>")
    parts = [f"<h3>{escape(comp.other)} vs {escape(comp.reference)}</h3>", summary]
    if comp.ratios:
        parts.append(figure(f"ratio-{number}", figures.ratio_figure(comp),
                            "per-task speedup ratio (best correct sample of each series, against eager)"))
        parts.append(scroll(tables.ratio_table(comp)))
    else:
        parts.append(note("No task has a timed correct candidate in both series: no speedup ratio to show."))
    if comp.changes:
        parts.append("<h4>Verdict changes</h4>" + scroll(tables.change_table(comp)))
    return "\n".join(parts)


def analysis(series: list[Series]) -> str:
    found = [category_by_method(series, "correct")]
    timed = [s for s in series if s.timed]
    if len(timed) >= 2:
        found.append(category_by_method(timed, "fast_1"))
    if found[0] is None:
        return note("The category × method analysis needs at least two series (methods, models or runs) and "
                    "two categories in the task set.")
    parts = [f"<p class=\"small\">Signed deviance residuals of each series and category against the additive "
             f"logit model (series strength + category difficulty, no interaction); a series wins a category "
             f"where the residual is ≥ {THRESHOLD:g} and loses it where it is ≤ −{THRESHOLD:g}. See "
             f"kernelbenchx/report/analysis.py for the statistic and why.</p>"]
    for result in found:
        if result is not None:
            parts.append(analysis_block(result))
    return "\n".join(parts)


def analysis_block(result: Analysis) -> str:
    rows = []
    for s in result.series:
        wins = ", ".join(f"{c.category} ({c.residual:+.1f})" for c in result.wins(s)) or "–"
        losses = ", ".join(f"{c.category} ({c.residual:+.1f})" for c in result.losses(s)) or "–"
        rows.append(f"<tr><th>{escape(s)}</th><td>{escape(wins)}</td><td>{escape(losses)}</td></tr>")
    return (f"<h3>outcome: {escape(OUTCOMES[result.outcome])}</h3>"
            + figure(f"analysis-{result.outcome}", figures.residual_figure(result),
                     f"signed deviance residuals (cells: solved/tasks); interaction G² = {result.g2:.2f} on "
                     f"{result.df} degrees of freedom")
            + tables.table(["series", "wins", "losses"], rows, "analysis"))


def task_table(series: list[Series], rows: str) -> str:
    return ("<p class=\"small\">one row per candidate; click a column header to sort; speedup: geomean over the "
            "perf cases against eager; roofline: the highest fraction of the roofline over its perf cases</p>"
            + scroll(rows) + tables.missing_tasks(series))


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
{css}
</style></head>
<body>
{body}
<script>
{js}
</script>
</body></html>
"""
