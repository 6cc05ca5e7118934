"""`kbx report --html`: the page of a real CPU run and of a recorded GPU run has every section, its figures and
one table row per candidate linking to the embedded record; run-to-run and method-to-method comparison; the
category × method statistic on known values; and, in headless Chromium, the figures actually render."""

import json
import math
import re
import shutil
import subprocess
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from kernelbenchx.cli import app
from kernelbenchx.evaluator.measure.roofline import PEAKS, target_for
from kernelbenchx.evaluator.parent.rundir import read_results
from kernelbenchx.evaluator.parent.run import RunConfig, evaluate_submission
from kernelbenchx.evaluator.parent.summary import FAST_P
from kernelbenchx.report.analysis import category_by_method, deviance_residual, fit_additive_logit
from kernelbenchx.report.compare import compare
from kernelbenchx.report.data import Series, fast_p_curve, load_series
from kernelbenchx.report.html import SECTIONS, render_html, write_html
from tests.conftest import ROOT, SOLUTIONS

GPU_RUN = ROOT / "tests" / "fixtures" / "gpu_run"
CHROMIUM = shutil.which("chromium")


@pytest.fixture(scope="module")
def cpu_run(tmp_path_factory) -> Path:
    """A real CPU run: two methods, three categories' worth of verdicts (correct, incorrect, no kernel,
    compile error)."""
    root = tmp_path_factory.mktemp("report")
    relu, add = (SOLUTIONS / "Activation" / "relu.py").read_text(), (SOLUTIONS / "Math" / "add.py").read_text()
    gelu = (SOLUTIONS / "Activation" / "gelu.py").read_text()
    lines = [{"task_id": "Activation/relu", "code": relu, "method": "solutions"},
             {"task_id": "Math/add", "code": add, "method": "solutions"},
             {"task_id": "Activation/gelu", "code": gelu.replace("0.7071067811865476", "0.7"), "method": "broken"},
             {"task_id": "Activation/relu", "code": "import torch\ndef relu(x):\n    return x\n", "method": "broken"},
             {"task_id": "Math/add", "code": "def add(:", "method": "broken"}]
    sub = root / "submission.jsonl"
    sub.write_text("".join(json.dumps(line) + "\n" for line in lines))
    evaluate_submission(sub, RunConfig(out_dir=root / "run", device="cpu", timeout_s=300, task_set="submitted",
                                       workers=2))
    return root / "run"


class Page(HTMLParser):
    """What the tests look for in a report: ids of sections and figures, table rows, links, embedded records."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.sections, self.figures, self.ids, self.links, self.svgs = [], [], set(), [], 0
        self.task_rows, self.records, self.external = 0, {}, []
        self.stack: list[str] = []
        self.table, self.record, self.pre = None, None, []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        self.ids.add(a.get("id"))
        if tag == "section":
            self.sections.append(a["id"])
        if tag == "figure" and "kbx-figure" in a.get("class", ""):
            self.figures.append(a["id"])
        if tag == "svg":
            self.svgs += 1
        if tag == "table":
            self.table = a.get("id")
        if tag == "tr" and self.table == "task-table" and "tbody" in self.stack:
            self.task_rows += 1
        if tag == "a" and a.get("href", "").startswith("#rec-"):
            self.links.append(a["href"][1:])
        if tag == "details" and a.get("id", "").startswith("rec-"):
            self.record = a["id"]
        if tag in ("script", "img", "link", "iframe") and (a.get("src") or a.get("href")):
            self.external.append((tag, a))
        self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        while self.stack and self.stack.pop() != tag:
            pass
        if tag == "details" and self.record:
            self.records[self.record] = json.loads(unescape("".join(self.pre)))
            self.record, self.pre = None, []

    def handle_data(self, data: str) -> None:
        if self.record and self.stack and self.stack[-1] == "pre":
            self.pre.append(data)


def section_text(text: str, ident: str) -> str:
    start = text.index(f'<section id="{ident}">')
    return text[start:text.index("</section>", start)]


def test_cpu_run_report_has_every_section_and_says_why_perf_is_missing(cpu_run, tmp_path):
    out = write_html([cpu_run], tmp_path / "cpu.html", "submitted")
    text = out.read_text()
    page = Page(text)
    records = read_results(cpu_run)
    assert page.sections == list(SECTIONS)
    assert page.external == [] and not re.search(r"""(src|href)=["']?https?:|url\(\s*["']?https?:""", text)
    for ident in ("fast-p", "roofline"):
        assert "Not measured" in section_text(text, ident) and "<svg" not in section_text(text, ident)
    # two methods in one run: categories, and the category × method analysis of correctness, are plotted
    assert page.figures == ["fig-categories", "fig-analysis-correct"] and page.svgs == 2
    assert page.task_rows == len(records) == 5
    assert sorted(page.links) == sorted(page.records) and len(page.records) == 5
    assert sorted(r["key"] for r in page.records.values()) == sorted(r.key for r in records)
    assert {r["verdict"] for r in page.records.values()} == {"correct", "incorrect", "no_triton_kernel",
                                                            "compile_error"}
    comparison = section_text(text, "comparison")
    assert "broken vs solutions" in comparison or "solutions vs broken" in comparison
    assert "Activation/relu" in comparison  # correct with one method, no kernel with the other
    assert "landlock" in section_text(text, "environment")


def test_methods_of_one_run_are_compared_task_by_task(cpu_run):
    series = load_series([cpu_run], "submitted")
    assert sorted(s.label for s in series) == ["broken", "solutions"]
    solutions = next(s for s in series if s.label == "solutions")
    broken = next(s for s in series if s.label == "broken")
    result = compare(solutions, broken)
    changes = {c.task_id: (c.before, c.after) for c in result.changes}
    assert changes["Activation/relu"] == ("correct", "no_triton_kernel")
    assert changes["Math/add"] == ("correct", "compile_error")
    assert changes["Activation/gelu"] == ("not_submitted", "incorrect")
    assert result.ratios == [] and result.ratio_geomean is None  # nothing was timed on the CPU
    analysis = category_by_method(series)
    assert analysis is not None and analysis.categories == ["Activation", "Math"] and analysis.df == 1
    assert analysis.cell("solutions", "Math").solved == 1 and analysis.cell("broken", "Math").solved == 0


def test_gpu_run_report_plots_curves_categories_and_roofline(tmp_path):
    text = write_html([GPU_RUN], tmp_path / "gpu.html", "submitted").read_text()
    page = Page(text)
    records = read_results(GPU_RUN)
    assert page.sections == list(SECTIONS)
    assert {"fig-fast-p", "fig-categories", "fig-roofline"} <= set(page.figures) and page.svgs == len(page.figures)
    assert "Not measured" not in text
    gpu = records[0].environment["gpu"]
    assert PEAKS[target_for(gpu)].name in section_text(text, "roofline")
    assert page.task_rows == len(records) and sorted(page.links) == sorted(page.records)
    assert {r["candidate"]["task_id"] for r in page.records.values()} == {r.task_id for r in records}
    assert gpu in section_text(text, "environment") and "seccomp" in section_text(text, "environment")


def test_fast_p_curve_agrees_with_the_summary_at_its_thresholds():
    (series,) = load_series([GPU_RUN], "submitted")
    assert series.timed
    grid = tuple(float(p) for p in FAST_P)
    curve = fast_p_curve(series, "eager", grid)
    assert curve == [series.summary["overall"]["fast_p"][f"{p:g}"] for p in FAST_P]
    assert fast_p_curve(series, "eager", (0.0,))[0] == series.summary["overall"]["correct_rate"] > 0


def test_two_runs_compare_side_by_side(tmp_path):
    copy = tmp_path / "gpu_run"
    shutil.copytree(GPU_RUN, copy)
    series = load_series([GPU_RUN, copy], "submitted")
    half = len(series) // 2  # the fixture's own series (one, or one per method/model), then the copy's
    assert series[0].label.startswith("gpu_run") and series[half].label.startswith("gpu_run (2)")
    result = compare(series[0], series[half])
    assert result.changes == [] and result.same == len(series[0].summary["tasks"])
    assert result.ratios and all(math.isclose(r.ratio, 1.0) for r in result.ratios)
    page = Page(render_html(series))
    assert "fig-ratio-1" in page.figures and "fig-analysis-fast_1" in page.figures
    assert page.task_rows == 2 * len(read_results(GPU_RUN))


def test_cli_report_html_and_text(tmp_path):
    runner = CliRunner()
    out = tmp_path / "r" / "report.html"
    result = runner.invoke(app, ["report", str(GPU_RUN), "--html", str(out), "--task-set", "submitted"])
    assert result.exit_code == 0, result.output
    assert out.exists() and str(out) in result.stdout
    both = runner.invoke(app, ["report", str(GPU_RUN), str(GPU_RUN / "results.jsonl"), "--task-set", "submitted"])
    assert both.exit_code == 0 and both.stdout.count("== ") == 2 and both.stdout.count("ALL") == 2
    missing = runner.invoke(app, ["report", str(GPU_RUN), str(tmp_path / "none"), "--html", str(out)])
    assert missing.exit_code == 2 and "no results file" in missing.output


# ---- the category × method statistic on known values --------------------------------------------------------


def test_deviance_residual_known_values():
    # 2 [8 ln(8/5) + 2 ln(2/5)] = 3.8549...; signed by k - e
    assert math.isclose(deviance_residual(10, 8, 5.0), math.sqrt(2 * (8 * math.log(1.6) + 2 * math.log(0.4))))
    assert math.isclose(deviance_residual(10, 2, 5.0), -deviance_residual(10, 8, 5.0))
    assert deviance_residual(10, 5, 5.0) == 0.0 and deviance_residual(0, 0, 0.0) == 0.0


def test_additive_logit_fit_keeps_the_margins_and_has_no_interaction():
    n = np.array([[20.0, 10.0, 6.0], [20.0, 10.0, 6.0]])
    k = np.array([[15.0, 2.0, 3.0], [9.0, 6.0, 1.0]])
    e = fit_additive_logit(n, k)
    assert np.allclose(e.sum(axis=0), k.sum(axis=0)) and np.allclose(e.sum(axis=1), k.sum(axis=1))
    logit = np.log(e / (n - e))
    interaction = logit - logit.mean(axis=0) - logit.mean(axis=1, keepdims=True) + logit.mean()
    assert np.allclose(interaction, 0.0, atol=1e-6)
    exact = 36 / (1 + np.exp(-(np.array([[0.5], [-0.3]]) + np.array([1.0, -1.0, 0.2]))))  # counts of an additive model
    assert np.allclose(fit_additive_logit(np.full((2, 3), 36.0), exact), exact, atol=1e-6)


def fake_series(label: str, solved: dict[str, tuple[int, int]]) -> Series:
    """A series whose summary rows solve `solved[category][0]` of `solved[category][1]` tasks."""
    tasks = {}
    for category, (k, n) in solved.items():
        for i in range(n):
            tasks[f"{category}/t{i}"] = {"correct": i < k, "best_speedup": None}
    return Series(label, None, None, None, [], {"tasks": tasks})


def test_category_by_method_names_what_each_method_wins_and_loses():
    a = fake_series("a", {"Fusion": (18, 20), "Math": (4, 20), "Reduce": (5, 10)})
    b = fake_series("b", {"Fusion": (3, 20), "Math": (17, 20), "Reduce": (5, 10)})
    result = category_by_method([a, b])
    assert [c.category for c in result.wins("a")] == ["Fusion"] and [c.category for c in result.losses("a")] == ["Math"]
    assert [c.category for c in result.wins("b")] == ["Math"] and [c.category for c in result.losses("b")] == ["Fusion"]
    assert result.df == 2 and result.g2 > 20
    even = category_by_method([a, fake_series("c", {"Fusion": (18, 20), "Math": (4, 20), "Reduce": (5, 10)})])
    assert even.g2 < 1e-9 and not even.wins("a") and not even.losses("c")
    assert category_by_method([a]) is None


# ---- the page in a real browser -----------------------------------------------------------------------------

MARKER_CSS = ("<style>figure.kbx-figure svg { background: #ff00ff !important; } "
              "figure.kbx-figure svg * { visibility: hidden !important; }</style></head>")
WINDOW = (1400, 9000)


def screenshot(html: Path, png: Path, profile: Path) -> np.ndarray:
    from PIL import Image

    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
                    "--force-device-scale-factor=1", f"--user-data-dir={profile}", f"--screenshot={png}",
                    f"--window-size={WINDOW[0]},{WINDOW[1]}", html.as_uri()],
                   check=True, capture_output=True, timeout=180)
    return np.asarray(Image.open(png).convert("RGB")).astype(int)


def marker_boxes(image: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Bounding boxes (top, bottom, left, right) of the magenta rectangles, one per band of rows."""
    magenta = (image[:, :, 0] > 230) & (image[:, :, 1] < 30) & (image[:, :, 2] > 230)
    rows = np.flatnonzero(magenta.any(axis=1))
    boxes = []
    for band in np.split(rows, np.flatnonzero(np.diff(rows) > 1) + 1) if rows.size else []:
        cols = np.flatnonzero(magenta[band[0]:band[-1] + 1].any(axis=0))
        boxes.append((int(band[0]), int(band[-1]) + 1, int(cols[0]), int(cols[-1]) + 1))
    return boxes


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_figures_render_in_headless_chromium(tmp_path):
    copy = tmp_path / "gpu_run_b"
    shutil.copytree(GPU_RUN, copy)
    page = tmp_path / "report.html"
    write_html([GPU_RUN, copy], page, "submitted")
    text = page.read_text()
    figures = Page(text).figures
    assert {"fig-fast-p", "fig-categories", "fig-roofline", "fig-ratio-1", "fig-analysis-correct",
            "fig-analysis-fast_1"} <= set(figures)
    marked = tmp_path / "marked.html"
    marked.write_text(text.replace("</head>", MARKER_CSS, 1))
    layout = screenshot(marked, tmp_path / "marked.png", tmp_path / "profile")
    boxes = marker_boxes(layout)
    assert len(boxes) == len(figures), f"{len(boxes)} figure regions on screen for {len(figures)} figures"
    shot = screenshot(page, tmp_path / "page.png", tmp_path / "profile")
    assert shot.shape == layout.shape
    for (top, bottom, left, right), name in zip(boxes, figures):
        assert bottom - top > 150 and right - left > 300, (name, top, bottom, left, right)
        marker = layout[top:bottom, left:right]
        assert (marker == [255, 0, 255]).all(axis=2).mean() > 0.97, name  # a solid box: the figure's own area
        crop = shot[top:bottom, left:right]
        ink = (np.abs(crop - 255).sum(axis=2) > 60).mean()  # share of pixels that are not (near) white
        colours = len(np.unique(crop.reshape(-1, 3) // 16, axis=0))
        assert 0.01 < ink < 0.9 and colours >= 6, (name, ink, colours)
        assert not (crop == [255, 0, 255]).all(axis=2).any(), name
