"""The report's plots, drawn with matplotlib's object API (no pyplot state, no backend switch) and returned
as inline SVG text: the HTML needs no network and no image files. Text stays text (svg.fonttype none), so the
browser draws it with its own fonts and the files stay small; the output is deterministic (fixed hash salt,
no date).
"""

from __future__ import annotations

import io
import math
import re

import numpy as np
from matplotlib import rc_context
from matplotlib.figure import Figure

from kernelbenchx.evaluator.measure.roofline import Peaks
from kernelbenchx.report.analysis import THRESHOLD, Analysis
from kernelbenchx.report.compare import Comparison
from kernelbenchx.report.data import P_GRID, P_MAX, PerfPoint, Series, fast_p_curve

RC = {"svg.fonttype": "none", "svg.hashsalt": "kbx-report", "font.size": 9, "axes.grid": True,
      "grid.alpha": 0.3, "axes.spines.top": False, "axes.spines.right": False}
METADATA = re.compile(r"\s*<metadata>.*?</metadata>", re.DOTALL)  # RDF naming the creator tool: not needed
COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
          "#17becf")


def color(i: int) -> str:
    return COLORS[i % len(COLORS)]


def to_svg(fig: Figure) -> str:
    """The figure as an <svg> element (the XML prolog and doctype dropped)."""
    buffer = io.StringIO()
    with rc_context(RC):
        fig.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
    text = buffer.getvalue()
    return METADATA.sub("", text[text.index("<svg"):])


def new_figure(width: float, height: float) -> Figure:
    with rc_context(RC):
        return Figure(figsize=(width, height), layout="constrained")


def fast_p_figure(series: list[Series], baselines: list[str]) -> str:
    """fast_p against p: one series, one line per baseline; several, one panel per baseline with a line per
    timed series (colours follow the series' order in the report)."""
    timed = [(i, s) for i, s in enumerate(series) if s.timed]
    with rc_context(RC):
        if len(timed) == 1:
            fig = new_figure(8.5, 4.4)
            ax = fig.subplots()
            for j, baseline in enumerate(baselines):
                ax.step(P_GRID, fast_p_curve(timed[0][1], baseline), where="post", color=color(j), label=baseline)
            style_fast_p(ax, f"{timed[0][1].label}: against each baseline")
            return to_svg(fig)
        columns = min(2, len(baselines))
        rows = math.ceil(len(baselines) / columns)
        fig = new_figure(6.0 * columns, 4.2 * rows)
        axes = fig.subplots(rows, columns, squeeze=False).ravel()
        for ax, baseline in zip(axes, baselines):
            for i, s in timed:
                ax.step(P_GRID, fast_p_curve(s, baseline), where="post", color=color(i), label=s.label)
            style_fast_p(ax, f"against {baseline}")
        for ax in axes[len(baselines):]:
            ax.set_visible(False)
        return to_svg(fig)


def style_fast_p(ax, title: str) -> None:
    ax.axvline(1.0, color="black", lw=0.8, ls=":")
    ax.set(xlim=(0, P_MAX), ylim=(0, 1.02), xlabel="p (speedup threshold)", ylabel="fast_p (share of tasks)",
           title=title)
    ax.legend(loc="best", fontsize=8)


def grouped_bars(ax, series: list[tuple[int, Series]], categories: list[str],
                 values: list[list[float | None]]) -> None:
    width = 0.8 / len(series)
    x = np.arange(len(categories))
    for k, ((i, s), row) in enumerate(zip(series, values)):
        heights = [v if v is not None else np.nan for v in row]
        ax.bar(x + (k - (len(series) - 1) / 2) * width, heights, width, color=color(i), label=s.label)
    ax.set_xticks(x, categories, rotation=35, ha="right")


def category_figure(series: list[Series]) -> str:
    """Correct rate per category and, for the timed series, the speedup geomean per category."""
    categories = sorted({c for s in series for c, agg in s.summary["categories"].items() if agg.get("tasks")})
    indexed = list(enumerate(series))
    timed = [(i, s) for i, s in indexed if s.timed]
    with rc_context(RC):
        width = min(13.0, max(8.0, 0.35 * len(categories) * (len(series) + 1) + 2))
        fig = new_figure(width, 7.6 if timed else 4.0)
        axes = fig.subplots(2 if timed else 1, 1, squeeze=False)[:, 0]
        rates = [[s.summary["categories"].get(c, {}).get("correct_rate") for c in categories] for s in series]
        grouped_bars(axes[0], indexed, categories, rates)
        axes[0].set(ylim=(0, 1.02), ylabel="correct rate", title="correct rate per category")
        axes[0].legend(loc="upper right", fontsize=8)
        if timed:
            geos = [[s.summary["categories"].get(c, {}).get("speedup_geomean") for c in categories] for _, s in timed]
            grouped_bars(axes[1], timed, categories, geos)
            axes[1].set_yscale("log")
            axes[1].axhline(1.0, color="black", lw=0.8, ls=":")
            axes[1].set(ylabel="speedup geomean (x eager)",
                        title="speedup geomean per category (correct, timed tasks)")
        return to_svg(fig)


def roofline_figure(points: list[PerfPoint], peaks: Peaks, labels: list[str]) -> str:
    """Left: achieved TFLOP/s against arithmetic intensity under the GPU's roofs (cases that compute).
    Right: achieved GB/s against bytes moved under the peak bandwidth (every case)."""
    with rc_context(RC):
        fig = new_figure(12.0, 4.8)
        roof, band = fig.subplots(1, 2)
        computing = [p for p in points if p.flops > 0]
        draw_roofs(roof, computing, peaks)
        for i, label in enumerate(labels):
            mine = [p for p in computing if p.series == label]
            scatter(roof, mine, [p.flops / p.nbytes for p in mine], [p.tflops for p in mine],
                    [p.baseline_tflops for p in mine], color(i), label)
            mine = [p for p in points if p.series == label]
            scatter(band, mine, [p.nbytes for p in mine], [p.gbs for p in mine], [p.baseline_gbs for p in mine],
                    color(i), label)
        roof.set(xscale="log", yscale="log", xlabel="arithmetic intensity (FLOP/byte)", ylabel="TFLOP/s",
                 title=f"roofline ({peaks.name})")
        band.axhline(peaks.bandwidth_gbs, color="black", lw=1.0)
        band.text(0.01, peaks.bandwidth_gbs, f" peak {peaks.bandwidth_gbs:,.0f} GB/s", va="bottom",
                  transform=band.get_yaxis_transform(), fontsize=8)
        band.set(xscale="log", yscale="log", xlabel="compulsory bytes moved", ylabel="GB/s",
                 title="memory throughput per perf case")
        band.legend(loc="lower right", fontsize=8)
        return to_svg(fig)


def scatter(ax, points: list[PerfPoint], x: list[float], y: list[float], base: list[float | None], c: str,
            label: str) -> None:
    if not points:
        return
    ax.scatter(x, y, color=c, s=22, label=f"{label} (candidate)", zorder=3)
    bx = [xi for xi, b in zip(x, base) if b]
    ax.scatter(bx, [b for b in base if b], facecolors="none", edgecolors=c, s=22, label=f"{label} (eager)",
               zorder=2)
    bad = [(xi, yi) for xi, yi, p in zip(x, y, points) if p.implausible]
    if bad:
        ax.scatter(*zip(*bad), marker="x", color="red", s=40, label="implausible", zorder=4)


def draw_roofs(ax, points: list[PerfPoint], peaks: Peaks) -> None:
    intensities = [p.flops / p.nbytes for p in points] or [1.0]
    lo, hi = min(intensities) / 10, max(intensities) * 10
    for unit in sorted({p.unit for p in points}) or ["fp32"]:
        peak = peaks.tflops.get(unit, peaks.tflops["fp32"])
        ridge = peak * 1e3 / peaks.bandwidth_gbs
        xs = np.geomspace(min(lo, ridge / 10), max(hi, ridge * 10), 200)
        ax.plot(xs, np.minimum(peak, xs * peaks.bandwidth_gbs / 1e3), color="black", lw=1.0)
        ax.text(xs[-1], peak, f"{unit} {peak:g}", ha="right", va="bottom", fontsize=8)


def ratio_figure(comparison: Comparison) -> str:
    """Per-task speedup ratio other/reference, tasks sorted by ratio, on a log scale."""
    ratios = sorted(comparison.ratios, key=lambda r: r.ratio)
    with rc_context(RC):
        fig = new_figure(min(12.0, max(7.0, 0.2 * len(ratios) + 3)), 4.2)
        ax = fig.subplots()
        values = [r.ratio for r in ratios]
        ax.bar(range(len(values)), values, color=["#2ca02c" if v >= 1 else "#d62728" for v in values],
               bottom=0)
        ax.axhline(1.0, color="black", lw=0.8)
        ax.set_yscale("log")
        if len(ratios) <= 40:
            ax.set_xticks(range(len(ratios)), [r.task_id for r in ratios], rotation=60, ha="right", fontsize=7)
        else:
            ax.set_xlabel("tasks solved by both, by ratio")
        ax.set(ylabel=f"speedup {comparison.other} / {comparison.reference}",
               title=f"per-task speedup ratio, geomean {comparison.ratio_geomean or math.nan:.2f}x")
        return to_svg(fig)


def residual_figure(analysis: Analysis) -> str:
    """Signed deviance residuals, series × category, annotated with solved/tasks."""
    matrix = analysis.matrix()
    limit = max(THRESHOLD * 1.5, float(np.abs(matrix).max()) if matrix.size else 1.0)
    with rc_context(RC):
        fig = new_figure(min(13.0, max(7.0, 0.8 * len(analysis.categories) + 3)), 0.45 * len(analysis.series) + 2.6)
        ax = fig.subplots()
        image = ax.imshow(matrix, cmap="RdBu", vmin=-limit, vmax=limit, aspect="auto")
        ax.set_xticks(range(len(analysis.categories)), analysis.categories, rotation=35, ha="right")
        ax.set_yticks(range(len(analysis.series)), analysis.series)
        ax.grid(False)
        for i, s in enumerate(analysis.series):
            for j, c in enumerate(analysis.categories):
                cell = analysis.cell(s, c)
                ax.text(j, i, f"{cell.solved}/{cell.tasks}", ha="center", va="center", fontsize=8,
                        color="white" if abs(cell.residual) > limit * 0.6 else "black")
        fig.colorbar(image, ax=ax, label="signed deviance residual")
        ax.set_title(f"{analysis.outcome}: wins (blue, ≥ {THRESHOLD:g}) and losses (red, ≤ −{THRESHOLD:g})")
        return to_svg(fig)
