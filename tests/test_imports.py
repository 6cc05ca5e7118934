"""The evaluator's layering: no import cycles between modules, the dataset never imports the evaluator, and the
candidate side never imports the parent side."""

import ast
from pathlib import Path

from tests.conftest import ROOT

PACKAGE = ROOT / "kernelbenchx"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports() -> dict[str, set[str]]:
    graph = {}
    for path in PACKAGE.rglob("*.py"):
        if "tasks" in path.parts or "solutions" in path.parts:
            continue
        name = module_name(path)
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("kernelbenchx"):
                found.add(node.module)
                found |= {f"{node.module}.{a.name}" for a in node.names}
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name.startswith("kernelbenchx")}
        graph[name] = found
    modules = set(graph)
    return {m: {d for d in deps if d in modules and d != m} for m, deps in graph.items()}


def test_no_import_cycles():
    graph = imports()
    state: dict[str, int] = {}

    def visit(node, path):
        state[node] = 1
        for dep in graph[node]:
            if state.get(dep) == 1:
                raise AssertionError("import cycle: " + " → ".join(path + [dep]))
            if dep not in state:
                visit(dep, path + [dep])
        state[node] = 2

    for node in graph:
        if node not in state:
            visit(node, [node])


def test_layers():
    graph = imports()
    for name, deps in graph.items():
        if name.startswith("kernelbenchx.dataset"):
            assert not any(d.startswith("kernelbenchx.evaluator") for d in deps), name
        if name.startswith("kernelbenchx.evaluator.child") or name.startswith("kernelbenchx.evaluator.trusted"):
            assert not any(d.startswith("kernelbenchx.evaluator.parent") for d in deps), (name, deps)
