"""HTML tables of the report: headline numbers, per category, per task (sortable), verdict changes, the
environment and isolation fingerprint, and the embedded records the task table links to."""

from __future__ import annotations

import json
from html import escape

from kernelbenchx.evaluator.result import Result
from kernelbenchx.report.compare import Comparison
from kernelbenchx.report.data import Series, max_roofline_fraction

# (key in summary["overall"] or a pseudo key, label, definition); "pct" values print as percentages
HEADLINE = (
    ("tasks", "tasks", "tasks in the task set: the denominator of every rate below", "int"),
    ("submitted", "submitted", "tasks with at least one candidate", "int"),
    ("undecided", "undecided", "tasks whose candidates the CPU interpreter cannot run (neither pass nor fail)",
     "int"),
    ("compile_rate", "compile rate", "share of the set's tasks with a candidate that imported", "pct"),
    ("correct_rate", "correct rate", "share of the set's tasks with a correct candidate (stage 1 and stage 2 "
                                     "passed, work done in Triton kernels)", "pct"),
    ("pass_at_1", "pass@1", "unbiased pass@1 per task (correct samples / decided samples), averaged over the set",
     "pct"),
    ("pass_at.5", "pass@5", "unbiased estimator 1 − C(n−c,5)/C(n,5) per task (k capped at n), averaged", "pct"),
    ("fast_p.1", "fast_1", "share of the set's tasks that are correct and faster than PyTorch eager (best sample)",
     "pct"),
    ("fast_p.2", "fast_2", "share of the set's tasks that are correct and at least 2x faster than eager", "pct"),
    ("speedup_geomean", "speedup geomean", "geometric mean over correct, timed tasks of the best sample's speedup "
                                           "(itself the geomean over the task's perf cases of eager/candidate "
                                           "median GPU time)", "x"),
    ("speedup_vs_solution_geomean", "vs kbx solution", "the same against kbx's reference Triton solution "
                                                       "(--baselines solution)", "x"),
)


def cell(value: object, sort: object | None = None, cls: str = "") -> str:
    attrs = f' data-v="{escape(str(sort))}"' if sort is not None else ""
    attrs += f' class="{cls}"' if cls else ""
    return f"<td{attrs}>{value}</td>"


def table(headers: list[str], rows: list[str], cls: str = "", tid: str = "") -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    ident = f' id="{tid}"' if tid else ""
    return (f'<table class="{cls}"{ident}><thead><tr>{head}</tr></thead><tbody>\n' + "\n".join(rows)
            + "\n</tbody></table>")


def lookup(agg: dict, key: str) -> object:
    for part in key.split("."):
        agg = (agg or {}).get(part) if isinstance(agg, dict) else None
    return agg


def fmt(value: object, kind: str) -> str:
    if value is None:
        return '<span class="na">–</span>'
    if kind == "pct":
        return f"{100 * float(value):.1f}%"
    if kind == "x":
        return f"{float(value):.2f}x"
    return str(value)


def headline_table(series: list[Series]) -> str:
    rows = []
    for key, label, definition, kind in HEADLINE:
        values = "".join(f"<td>{fmt(lookup(s.summary['overall'], key), kind)}</td>" for s in series)
        rows.append(f"<tr><th>{escape(label)}</th>{values}<td class=\"def\">{escape(definition)}</td></tr>")
    candidates = "".join(f"<td>{s.summary['candidates']}</td>" for s in series)
    rows.insert(0, f"<tr><th>candidates</th>{candidates}<td class=\"def\">records (samples) evaluated</td></tr>")
    return table(["", *[s.label for s in series], "definition"], rows, "headline")


def category_table(series: list[Series]) -> str:
    categories = sorted({c for s in series for c, agg in s.summary["categories"].items() if agg.get("tasks")})
    rows = []
    for c in categories:
        cells = []
        for s in series:
            agg = s.summary["categories"].get(c, {})
            cells.append(cell(fmt(agg.get("correct_rate"), "pct"), agg.get("correct_rate")))
            cells.append(cell(fmt(agg.get("speedup_geomean"), "x"), agg.get("speedup_geomean") or ""))
        tasks = max(s.summary["categories"].get(c, {}).get("tasks", 0) for s in series)
        rows.append(f"<tr>{cell(escape(c))}{cell(tasks, tasks)}{''.join(cells)}</tr>")
    headers = ["category", "tasks"] + [h for s in series for h in (f"{s.label}: correct", f"{s.label}: geomean")]
    return table(headers, rows, "sortable", "categories")


def record_id(index: int) -> str:
    return f"rec-{index}"


def task_rows(series: list[Series]) -> tuple[str, str]:
    """The per-candidate rows of the task table and the embedded records they link to."""
    rows, records, index = [], [], 0
    for s in series:
        for r in sorted(s.results, key=lambda r: (r.task_id or "", r.candidate.sample_id or 0)):
            rows.append(task_row(s, r, index))
            records.append(record_block(s, r, index))
            index += 1
    headers = ["task", "category", "series", "sample", "verdict", "reason", "message", "speedup", "roofline",
               "seconds", "record"]
    return table(headers, rows, "sortable tasks", "task-table"), "\n".join(records)


def task_row(series: Series, r: Result, index: int) -> str:
    tid = r.task_id or "?"
    speedup, roof = r.speedup(), max_roofline_fraction(r)
    message = r.message if len(r.message) <= 160 else r.message[:157] + "…"
    return ("<tr>" + cell(escape(tid)) + cell(escape(tid.split("/")[0])) + cell(escape(series.label))
            + cell(r.candidate.sample_id if r.candidate.sample_id is not None else "", r.candidate.sample_id or 0)
            + cell(escape(r.verdict.value), cls=f"v-{r.verdict.value}") + cell(escape(r.reason.value))
            + f'<td title="{escape(r.message)}">{escape(message)}</td>'
            + cell(fmt(speedup, "x"), speedup if speedup is not None else "")
            + cell(fmt(roof, "pct"), roof if roof is not None else "") + cell(f"{r.elapsed_s:.1f}", r.elapsed_s)
            + cell(f'<a href="#{record_id(index)}">record</a>') + "</tr>")


def record_block(series: Series, r: Result, index: int) -> str:
    body = escape(json.dumps(r.to_json(), indent=1, sort_keys=True))
    title = f"{r.task_id} · {series.label} · sample {r.candidate.sample_id} · {r.verdict.value}"
    return (f'<details class="record" id="{record_id(index)}"><summary>{escape(title)}</summary>'
            f"<pre>{body}</pre></details>")


def missing_tasks(series: list[Series]) -> str:
    parts = []
    for s in series:
        missing = [t for t, row in s.summary["tasks"].items() if not row["samples"]]
        if missing:
            parts.append(f"<details><summary>{escape(s.label)}: {len(missing)} tasks of the set have no candidate "
                         f"(counted as failed)</summary><p class=\"small\">{escape(', '.join(missing))}</p>"
                         "</details>")
    return "\n".join(parts)


def change_table(comparison: Comparison) -> str:
    rows = [f"<tr>{cell(escape(c.task_id))}{cell(escape(c.before), cls='v-' + c.before)}"
            f"{cell(escape(c.after), cls='v-' + c.after)}</tr>" for c in comparison.changes]
    return table(["task", comparison.reference, comparison.other], rows, "sortable changes")


def ratio_table(comparison: Comparison) -> str:
    rows = [f"<tr>{cell(escape(r.task_id))}{cell(f'{r.reference:.2f}x', r.reference)}"
            f"{cell(f'{r.other:.2f}x', r.other)}{cell(f'{r.ratio:.2f}', r.ratio)}</tr>" for r in comparison.ratios]
    return table(["task", f"{comparison.reference} speedup", f"{comparison.other} speedup", "ratio"], rows,
                 "sortable ratios")


ENV_KEYS = ("gpu", "gpu_count", "driver", "cuda", "device", "interpreter", "torch", "triton", "numpy", "python",
            "platform", "cpu", "cpu_count", "cpu_capability", "kbx", "kbx_commit", "task_set_sha256",
            "dataset_revision", "image_id", "target", "clocks")
VARYING = ("run_id", "seed", "clocks")  # differ between records of one machine and run by design


def environment_tables(series: list[Series]) -> str:
    parts, seen = [], set()
    for s in series:
        if s.run.path in seen:
            continue
        seen.add(s.run.path)
        envs = [r.environment or {} for r in s.run.results]
        env = envs[0]
        differing = sorted({k for e in envs for k in set(e) | set(env) if k not in VARYING and e.get(k) != env.get(k)})
        rows = [f"<tr><th>{escape(k)}</th><td>{escape(json.dumps(env.get(k)))}</td></tr>" for k in ENV_KEYS
                if k in env]
        note = ("all records share this fingerprint" if not differing else
                f"<strong>records differ in {escape(', '.join(differing))}</strong> (the first record's are shown; "
                "each record embeds its own)")
        parts.append(f"<h3>{escape(s.run.name)}</h3><p class=\"small\">{escape(str(s.run.path))}; run "
                     f"{escape(str(s.run.info.get('run_id', env.get('run_id', '?'))))}; {note}</p>"
                     + table(["field", "value"], rows, "env") + isolation_table(env.get("isolation") or {}))
    return "\n".join(parts)


def isolation_table(isolation: dict) -> str:
    if not isolation:
        return '<p class="warn">the records carry no isolation fingerprint</p>'
    applied = set(isolation.get("applied") or [])
    missing = isolation.get("missing") or {}
    layers = list(dict.fromkeys([*(isolation.get("layers") or []), *applied, *missing]))
    rows = []
    for layer in layers:
        state = "applied" if layer in applied else ("missing" if layer in missing else "planned, not applied")
        rows.append(f"<tr><th>{escape(layer)}</th>{cell(state, cls='iso-' + state.split(',')[0])}"
                    f"<td>{escape(str(missing.get(layer, '')))}</td></tr>")
    return table(["isolation layer", "state", "why missing"], rows, "isolation")
