"""Reports of run directories: an HTML page with plots (html.py, figures.py), run-to-run and
method-to-method comparison (compare.py) and the category × method analysis (analysis.py), all computed from
the records (read_results) and their summaries (summarize).

    from kernelbenchx.report import write_html
    write_html(["results"], "report.html", task_set="submitted")
"""

# name → (module, attribute): imported on first use, so the text report never imports matplotlib.
_EXPORTS = {
    "write_html": ("kernelbenchx.report.html", "write_html"),
    "render_html": ("kernelbenchx.report.html", "render_html"),
    "load_series": ("kernelbenchx.report.data", "load_series"),
    "load_run": ("kernelbenchx.report.data", "load_run"),
    "category_by_method": ("kernelbenchx.report.analysis", "category_by_method"),
    "compare": ("kernelbenchx.report.compare", "compare"),
}
__all__ = list(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        import importlib

        module, attr = _EXPORTS[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'kernelbenchx.report' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
