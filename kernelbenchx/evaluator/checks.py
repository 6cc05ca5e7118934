"""Static checks on candidate source, by AST and reachability from the entry function.

They run in the trusted parent before any candidate code executes. Each finding names a rule; the first
finding decides the verdict. Runtime checks (monitor.py) back these up: static analysis alone can be evaded.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from kernelbenchx.evaluator.verdict import Rejected, Verdict

# numpy is not here: host-side numpy compute is invisible to the PyTorch operator recorder.
ALLOWED_IMPORTS = {"torch", "triton", "math", "typing", "functools", "itertools", "numbers", "dataclasses",
                   "collections", "operator", "enum", "__future__"}
# Modules whose import gets a specific reason, so a reviewer sees the intent and not just "not allowed".
NAMED_IMPORTS = {
    "kernelbenchx": "imports_reference", "threading": "threads", "multiprocessing": "subprocesses",
    "concurrent": "threads", "subprocess": "subprocesses", "ctypes": "ctypes", "cffi": "ctypes",
    "gc": "introspection", "inspect": "introspection", "os": "os_access", "sys": "os_access",
    "socket": "network", "importlib": "dynamic_import", "builtins": "monkeypatch", "asyncio": "threads",
}
FORBIDDEN_BUILTINS = {"exec": "dynamic_code", "eval": "dynamic_code", "compile": "dynamic_code",
                      "__import__": "dynamic_import", "open": "file_access", "globals": "introspection",
                      "vars": "introspection", "setattr": "monkeypatch", "delattr": "monkeypatch",
                      "breakpoint": "introspection"}
FORBIDDEN_DUNDERS = {"__code__", "__globals__", "__dict__", "__class__", "__bases__", "__subclasses__",
                     "__builtins__", "__setattr__", "__getattribute__", "__closure__", "f_back", "f_globals",
                     "_getframe", "__mro__"}
# torch / triton attribute chains that are forbidden wherever they appear, with their reason.
FORBIDDEN_CHAINS = {
    "torch.compile": "torch_compile", "torch._dynamo": "torch_compile", "torch._inductor": "torch_compile",
    "torch.cuda.Stream": "streams", "torch.cuda.stream": "streams", "torch.cuda.ExternalStream": "streams",
    "torch.cuda.CUDAGraph": "cuda_graphs", "torch.cuda.graph": "cuda_graphs",
    "torch.utils.cpp_extension": "native_extension", "torch._C": "native_extension",
    "torch.library": "native_extension", "torch.Tensor._make_subclass": "tensor_subclass",
    "torch.multiprocessing": "subprocesses", "torch.jit": "torch_compile",
}
STREAM_METHODS = {"wait_stream": "streams", "record_stream": "streams", "tolist": "host_compute",
                  "numpy": "host_compute"}
MUTATORS = {"append", "update", "setdefault", "extend", "insert", "add", "__setitem__", "pop", "clear"}


@dataclass(frozen=True)
class StaticReport:
    kernels: list[str]
    reachable: list[str]
    launches: int


def check_source(code: str, entry: str) -> StaticReport:
    """Raise Rejected with the first problem found, else describe what was found."""
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        raise Rejected(Verdict.COMPILE_ERROR, "syntax_error", f"line {exc.lineno}: {exc.msg}") from None
    functions = {n.name: n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    top_level = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    assigned = {t.id for n in tree.body if isinstance(n, (ast.Assign, ast.AnnAssign))
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
    if entry not in top_level | assigned:
        raise Rejected(Verdict.MISSING_ENTRY, "missing_entry", f"no top-level function named {entry!r}")
    kernels = [name for name, fn in functions.items() if is_triton_kernel(fn)]
    if not kernels:
        raise Rejected(Verdict.NO_TRITON_KERNEL, "no_jit_kernel", "no @triton.jit kernel is defined")
    Scanner(tree).scan()
    reachable = reachable_from(entry, functions, tree)
    launches = count_launches(reachable, functions, set(kernels))
    if launches == 0:
        raise Rejected(Verdict.NO_TRITON_KERNEL, "kernel_not_launched",
                       f"no Triton kernel is launched on the call path of {entry!r} (kernel[grid](...))")
    check_reachable_state(reachable, functions, module_names(tree))
    return StaticReport(sorted(kernels), sorted(reachable), launches)


def dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def is_triton_kernel(fn: ast.AST) -> bool:
    for dec in fn.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        if dotted(target).split(".")[-1] == "jit":
            return True
    return False


class Scanner(ast.NodeVisitor):
    """Whole-module scan for imports, builtins, dunder access, monkeypatching and forbidden torch APIs."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.bound = bound_names(tree)  # a parameter called `compile` is not the builtin
        self.aliases = {"torch": "torch", "triton": "triton", "tl": "triton.language", "F": "torch.nn.functional"}

    def scan(self) -> None:
        self.visit(self.tree)

    def reject(self, node: ast.AST, code: str, message: str) -> None:
        raise Rejected(Verdict.FORBIDDEN, code, f"line {getattr(node, 'lineno', '?')}: {message}")

    def check_module(self, node: ast.AST, module: str) -> None:
        top = module.split(".")[0]
        if top in NAMED_IMPORTS:
            self.reject(node, NAMED_IMPORTS[top], f"import of {module!r} is not allowed")
        if top not in ALLOWED_IMPORTS:
            self.reject(node, "import_not_allowed", f"import of {module!r} is not allowed "
                        f"(allowed: {', '.join(sorted(ALLOWED_IMPORTS - {'__future__'}))})")
        self.check_chain(node, module)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.check_module(node, alias.name)
            self.aliases[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else \
                alias.name.split(".")[0]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level:
            self.reject(node, "import_not_allowed", "relative imports are not allowed")
        self.check_module(node, module)
        for alias in node.names:
            full = f"{module}.{alias.name}"
            self.check_chain(node, full)
            self.aliases[alias.asname or alias.name] = full

    def resolve(self, node: ast.AST) -> str:
        chain = dotted(node)
        head, _, rest = chain.partition(".")
        if head in self.aliases:
            return self.aliases[head] + (f".{rest}" if rest else "")
        return chain

    def check_chain(self, node: ast.AST, chain: str) -> None:
        for prefix, code in FORBIDDEN_CHAINS.items():
            if chain == prefix or chain.startswith(prefix + "."):
                self.reject(node, code, f"use of {prefix} is not allowed")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in FORBIDDEN_DUNDERS:
            self.reject(node, "introspection", f"access to .{node.attr} is not allowed")
        if node.attr in STREAM_METHODS:
            self.reject(node, STREAM_METHODS[node.attr], f".{node.attr} is not allowed")
        self.check_chain(node, self.resolve(node))
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in FORBIDDEN_BUILTINS and isinstance(node.ctx, ast.Load) and node.id not in self.bound:
            self.reject(node, FORBIDDEN_BUILTINS[node.id], f"use of {node.id}() is not allowed")
        if node.id in FORBIDDEN_DUNDERS:
            self.reject(node, "introspection", f"use of {node.id} is not allowed")

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for base in node.bases:
            if self.resolve(base) in ("torch.Tensor", "torch._C.TensorBase"):
                self.reject(node, "tensor_subclass", f"class {node.name} subclasses torch.Tensor")
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self.check_patch(target)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.check_patch(node.target)
        self.generic_visit(node)

    def check_patch(self, target: ast.AST) -> None:
        if isinstance(target, ast.Attribute):
            root = self.resolve(target).split(".")[0]
            if root in ("torch", "triton", "math", "numpy", "builtins", "functools"):
                self.reject(target, "monkeypatch", f"assignment to {self.resolve(target)} is not allowed")
        elif isinstance(target, (ast.Tuple, ast.List)):
            for t in target.elts:
                self.check_patch(t)


def bound_names(tree: ast.Module) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
    return names


def reachable_from(entry: str, functions: dict[str, ast.AST], tree: ast.Module) -> set[str]:
    aliases = {n.targets[0].id: n.value.id for n in tree.body if isinstance(n, ast.Assign)
               and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Name)}
    start = aliases.get(entry, entry)
    seen, todo = set(), [start]
    while todo:
        name = todo.pop()
        if name in seen or name not in functions:
            continue
        seen.add(name)
        for node in ast.walk(functions[name]):
            if isinstance(node, ast.Name) and node.id in functions:
                todo.append(node.id)
    return seen


def count_launches(reachable: set[str], functions: dict[str, ast.AST], kernels: set[str]) -> int:
    launches = 0
    for name in reachable:
        for node in ast.walk(functions[name]):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript):
                base = dotted(node.func.value)
                if base in kernels or base.split(".")[-1] in kernels or base not in functions:
                    launches += 1
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "run" \
                    and dotted(node.func.value) in kernels:
                launches += 1
    return launches


def module_names(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) else []
        names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def check_reachable_state(reachable: set[str], functions: dict[str, ast.AST], globals_: set[str]) -> None:
    """Code on the call path must not keep state across calls (result caches keyed by pointer, shape, ...),
    nor hide a fallback behind try/except."""
    for name in sorted(reachable):
        for node in ast.walk(functions[name]):
            line = f"line {getattr(node, 'lineno', '?')}"
            if isinstance(node, (ast.Global, ast.Nonlocal)):
                raise Rejected(Verdict.FORBIDDEN, "cross_call_state",
                               f"{line}: {name}() declares global/nonlocal state")
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                    isinstance(d, (ast.Dict, ast.List, ast.Set, ast.Call)) for d in node.args.defaults
                    + [d for d in node.args.kw_defaults if d is not None]):
                raise Rejected(Verdict.FORBIDDEN, "cross_call_state",
                               f"{line}: {node.name}() has a mutable default argument (state across calls)")
            if isinstance(node, ast.Try):
                raise Rejected(Verdict.FORBIDDEN, "try_except_fallback",
                               f"{line}: try/except on the call path of the entry is not allowed")
            if isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, (ast.Subscript, ast.Attribute)) and dotted(
                            t.value if isinstance(t, ast.Subscript) else t.value) in globals_:
                        raise Rejected(Verdict.FORBIDDEN, "cross_call_state",
                                       f"{line}: {name}() writes module-level state")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in MUTATORS and dotted(node.func.value) in globals_:
                raise Rejected(Verdict.FORBIDDEN, "cross_call_state",
                               f"{line}: {name}() mutates module-level {dotted(node.func.value)}")
