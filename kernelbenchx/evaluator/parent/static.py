"""Static checks on candidate source, in the trusted parent, before any candidate code runs.

The rules are an allowlist (parent/allowlist.py): imports, the dotted names usable on imported modules,
attribute names usable on values (host code and kernel code separately) and builtins. On top of it:
- no module object as a value (`f = torch.nn`), no private or dunder attributes, no computed getattr,
  no setattr/delattr, no assignment to a module's attributes, no class definitions, no global/nonlocal;
- a `@triton.jit` kernel exists and is launched on the call path of the entry;
- the call path keeps no state across calls and hides no fallback behind try/except.
The first violation found ends the check with its reason. The runtime layer (the child's observations,
judged by the parent) backs these rules up; neither is trusted alone.
"""

from __future__ import annotations

import ast
import threading
from dataclasses import dataclass

from kernelbenchx.evaluator.parent import allowlist as allow
from kernelbenchx.evaluator.reasons import Reason, Rejected

LAUNCH_CALLBACKS = {"pre_hook", "post_hook", "prune_configs_by", "perf_model", "early_config_prune", "do_bench"}
ALLOWED_DECORATORS = {"triton.jit", "triton.autotune", "triton.heuristics", "torch.no_grad", "torch.inference_mode",
                      "typing.overload"}
MUTATORS = {"append", "update", "setdefault", "extend", "insert", "add", "pop", "clear"}
INTERPRETER_LIMITS = {"triton.autotune": "autotune",
                      "triton.language.extra.libdevice": "libdevice",
                      "triton.language.extra.cuda.libdevice": "libdevice",
                      "triton.language.inline_asm_elementwise": "inline asm"}


@dataclass(frozen=True)
class StaticReport:
    kernels: list[str]
    reachable: list[str]
    launches: int
    interpreter_limits: list[str]  # constructs the CPU interpreter cannot run (autotune, libdevice, inline asm)


def reject(node: ast.AST | None, code: str, message: str) -> Rejected:
    """A static-rule rejection; `code` is a Reason code (the allowlist's named denials are Reason codes)."""
    line = getattr(node, "lineno", None)
    return Rejected(Reason(code), f"line {line}: {message}" if line else message)


# CPython 3.11 keeps the AST constructor's recursion depth in state shared by threads (gh-106905): parses on
# several worker threads at once failed now and then with "SystemError: AST constructor recursion depth
# mismatch", and an honest candidate ended as a harness error. Our parses take turns; a parse that still
# meets the error (another library building an AST meanwhile) is repeated once.
PARSE_LOCK = threading.Lock()


def parse(code: str) -> ast.Module:
    with PARSE_LOCK:
        try:
            return ast.parse(code)
        except SystemError as exc:
            if "recursion depth mismatch" not in str(exc):
                raise
            return ast.parse(code)


def check_source(code: str, entry: str) -> StaticReport:
    """Raise Rejected with the first problem found, else describe what was found."""
    try:
        tree = parse(code)
    except SyntaxError as exc:
        raise Rejected(Reason.SYNTAX_ERROR, f"line {exc.lineno}: {exc.msg}") from None
    functions = {n.name: n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    top_level = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if entry not in top_level | module_names(tree):
        raise Rejected(Reason.MISSING_ENTRY, f"no top-level function named {entry!r}")
    scanner = Scanner(tree)
    scanner.scan()
    kernels = sorted(name for name, fn in functions.items() if scanner.is_kernel(fn))
    if not kernels:
        raise Rejected(Reason.NO_JIT_KERNEL, "no @triton.jit kernel is defined")
    reachable = reachable_from(entry, functions, tree)
    launches = count_launches(reachable, functions, set(kernels))
    if launches == 0:
        raise Rejected(Reason.KERNEL_NOT_LAUNCHED,
                       f"no Triton kernel is launched on the call path of {entry!r} (kernel[grid](...))")
    check_reachable_state(reachable, functions, module_names(tree))
    return StaticReport(kernels, sorted(reachable), launches, sorted(scanner.interpreter_limits))


def dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


class Scanner(ast.NodeVisitor):
    """Whole-module walk applying the allowlist; tracks aliases of imported modules and kernel context."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.aliases: dict[str, str] = {}
        self.bound = bound_names(tree)
        self.in_kernel = False
        self.interpreter_limits: set[str] = set()

    def scan(self) -> None:
        for node in ast.walk(self.tree):  # aliases first: a use may precede its import in walk order
            if isinstance(node, ast.Import):
                self.import_(node)
            elif isinstance(node, ast.ImportFrom):
                self.import_from(node)
        self.visit(self.tree)

    # -- imports --------------------------------------------------------------------------------
    def import_(self, node: ast.Import) -> None:
        for alias in node.names:
            self.check_module(node, alias.name)
            if alias.asname:
                self.aliases[alias.asname] = alias.name
            else:
                root = alias.name.split(".")[0]
                self.aliases[root] = root

    def import_from(self, node: ast.ImportFrom) -> None:
        if node.level:
            raise reject(node, "import_not_allowed", "relative imports are not allowed")
        module = node.module or ""
        names, _ = self.check_module(node, module)
        for alias in node.names:
            if alias.name == "*":
                raise reject(node, "import_not_allowed", f"'from {module} import *' is not allowed")
            full = f"{module}.{alias.name}"
            if names is not None and alias.name not in names:
                raise reject(node, allow.denial(full) or "import_not_allowed",
                             f"importing {alias.name!r} from {module!r} is not allowed")
            self.check_chain(node, full, in_import=True)
            self.aliases[alias.asname or alias.name] = full

    def check_module(self, node: ast.AST, module: str) -> tuple[frozenset[str] | None, str]:
        if module in allow.IMPORTS:
            return allow.IMPORTS[module]
        allowed = ", ".join(sorted(m for m in allow.IMPORTS if m != "__future__"))
        raise reject(node, allow.denial(module) or "import_not_allowed",
                     f"import of {module!r} is not allowed (allowed: {allowed})")

    # -- names and attributes ---------------------------------------------------------------------
    def resolve(self, chain: str) -> str | None:
        head, _, rest = chain.partition(".")
        if head not in self.aliases:
            return None
        return self.aliases[head] + (f".{rest}" if rest else "")

    def check_chain(self, node: ast.AST, chain: str, in_import: bool = False) -> None:
        """A dotted name on an imported module: module paths, then one allowed name, then value attributes."""
        parts = chain.split(".")
        depth = 0
        while depth < len(parts) and ".".join(parts[:depth + 1]) in allow.MODULE_PATHS:
            depth += 1
        for name, limit in INTERPRETER_LIMITS.items():
            if chain == name or chain.startswith(name + "."):
                self.interpreter_limits.add(limit)
        if depth == len(parts):
            if in_import:
                return
            raise reject(node, "module_value", f"the module {chain} cannot be used as a value")
        head = ".".join(parts[:depth + 1])
        if depth == 0 or not allow.allowed_chain(head):
            code = allow.denial(head) or ("torch_surface" if parts[0] == "torch" else "attribute_not_allowed")
            raise reject(node, code, f"{head} is not in the allowed surface (allocation, views, metadata, dtypes, "
                                     "launch helpers and the Triton language)")
        for attr in parts[depth + 1:]:
            self.check_attribute(node, attr)

    def check_attribute(self, node: ast.AST, attr: str) -> None:
        allowed = allow.kernel_attributes() if self.in_kernel else allow.HOST_ATTRIBUTES
        if attr in allowed:
            return
        if attr.startswith("__") and attr.endswith("__"):
            raise reject(node, "introspection", f"access to .{attr} is not allowed")
        if attr.startswith("_"):
            raise reject(node, "private_attribute", f"access to the private attribute .{attr} is not allowed")
        where = "in kernel code" if self.in_kernel else "in host code (PyTorch may only allocate, view and copy)"
        raise reject(node, allow.denial(attr) or "attribute_not_allowed", f".{attr} is not allowed {where}")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        chain = dotted(node)
        resolved = self.resolve(chain) if chain else None
        if resolved is not None:
            self.check_chain(node, resolved)
            return  # the whole chain is checked
        self.check_attribute(node, node.attr)
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        name = node.id
        if name in self.aliases and isinstance(node.ctx, ast.Load):
            self.check_chain(node, self.aliases[name])  # a bare alias: fine for values, not for modules
            return
        if name.startswith("__") and name.endswith("__") and name != "__name__":
            raise reject(node, "introspection", f"use of {name} is not allowed")
        if isinstance(node.ctx, ast.Load) and name not in self.bound and name not in allow.BUILTINS:
            import builtins

            if hasattr(builtins, name):
                raise reject(node, allow.denial(name) or "builtin_not_allowed", f"use of {name}() is not allowed")

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id not in self.bound:
            name = node.func.id
            if name in ("getattr", "hasattr"):
                attr = node.args[1] if len(node.args) > 1 else None
                if not (isinstance(attr, ast.Constant) and isinstance(attr.value, str)):
                    raise reject(node, "computed_attribute", f"{name}() needs a constant attribute name")
                target = dotted(node.args[0])
                resolved = self.resolve(target) if target else None
                if resolved is not None:  # getattr(module, "name") is the chain module.name
                    self.check_chain(node, f"{resolved}.{attr.value}")
                    for arg in node.args[2:]:
                        self.visit(arg)
                    return
                self.check_attribute(node, attr.value)
            if name == "type" and len(node.args) != 1:
                raise reject(node, "dynamic_code", "type() with three arguments creates classes")
        target = dotted(node.func)
        if target and self.resolve(target) in ("triton.autotune", "triton.Config"):
            hooks = sorted(k.arg for k in node.keywords if k.arg in LAUNCH_CALLBACKS)
            if hooks:
                raise reject(node, "launch_callback", f"{', '.join(hooks)}: callables that Triton runs outside "
                                                      "the launch's observation are not allowed")
        self.generic_visit(node)

    # -- definitions and statements ---------------------------------------------------------------
    def is_kernel(self, fn: ast.AST) -> bool:
        return any(self.decorator_name(d) == "triton.jit" for d in getattr(fn, "decorator_list", []))

    def decorator_name(self, dec: ast.AST) -> str:
        target = dec.func if isinstance(dec, ast.Call) else dec
        chain = dotted(target)
        return (self.resolve(chain) or chain) if chain else ""

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        for dec in node.decorator_list:
            name = self.decorator_name(dec)
            if name not in ALLOWED_DECORATORS:
                raise reject(dec, allow.denial(name) or "decorator_not_allowed",
                             f"decorator {name or ast.unparse(dec)} is not allowed")
        outer = self.in_kernel
        self.in_kernel = outer or self.is_kernel(node)
        self.generic_visit(node)
        self.in_kernel = outer

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        raise reject(node, "threads", "async functions are not allowed")

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        if any(self.resolve(dotted(b)) == "torch.Tensor" for b in node.bases if dotted(b)):
            raise reject(node, "tensor_subclass", f"class {node.name} subclasses torch.Tensor")
        raise reject(node, "class_definition", f"class {node.name}: classes are not allowed (kernel code needs "
                                               "functions only; subclasses and dunder methods reach the runtime)")

    def visit_Global(self, node: ast.Global) -> None:
        raise reject(node, "cross_call_state", "global declarations are not allowed (state across calls)")

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        raise reject(node, "cross_call_state", "nonlocal declarations are not allowed (state across calls)")

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self.check_store(target)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.check_store(node.target)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.check_store(node.target)
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            self.check_store(target)
        self.generic_visit(node)

    def check_store(self, target: ast.AST) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            for t in target.elts:
                self.check_store(t)
        elif isinstance(target, (ast.Attribute, ast.Subscript)):
            chain = dotted(target.value if isinstance(target, ast.Subscript) else target)
            if chain and self.resolve(chain) is not None:
                raise reject(target, "monkeypatch", f"assignment to {self.resolve(chain)} is not allowed")


def bound_names(tree: ast.Module) -> set[str]:
    """Names the submission binds itself (a parameter called `input` is not the builtin)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.alias):
            names.add(node.asname or node.name.split(".")[0])
    return names


def module_names(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) else []
        names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def reachable_from(entry: str, functions: dict[str, ast.AST], tree: ast.Module) -> set[str]:
    aliases = {n.targets[0].id: n.value.id for n in tree.body if isinstance(n, ast.Assign)
               and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Name)}
    seen, todo = set(), [aliases.get(entry, entry)]
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
    """Launch sites on the call path: a kernel subscripted with a grid (called at once or bound first, e.g.
    through functools.partial), a kernel's .run(...), or a subscript-call of something that is not one of the
    submission's own functions (a kernel held in a variable)."""
    launches = 0
    for name in reachable:
        for node in ast.walk(functions[name]):
            if isinstance(node, ast.Subscript) and dotted(node.value).split(".")[-1] in kernels:
                launches += 1
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript):
                base = dotted(node.func.value)
                if base and base.split(".")[-1] not in kernels and base not in functions:
                    launches += 1
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "run" \
                    and dotted(node.func.value) in kernels:
                launches += 1
    return launches


def check_reachable_state(reachable: set[str], functions: dict[str, ast.AST], globals_: set[str]) -> None:
    """Code on the call path must not keep state across calls (result caches keyed by pointer, shape, ...),
    nor hide a fallback behind try/except."""
    for name in sorted(reachable):
        for node in ast.walk(functions[name]):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                    isinstance(d, (ast.Dict, ast.List, ast.Set, ast.Call)) for d in node.args.defaults
                    + [d for d in node.args.kw_defaults if d is not None]):
                raise reject(node, "cross_call_state",
                             f"{node.name}() has a mutable default argument (state across calls)")
            if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
                raise reject(node, "try_except_fallback", "try/except on the call path of the entry is not allowed")
            if isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, (ast.Subscript, ast.Attribute)) and dotted(t.value) in globals_:
                        raise reject(node, "cross_call_state", f"{name}() writes module-level state")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in MUTATORS and dotted(node.func.value) in globals_:
                raise reject(node, "cross_call_state", f"{name}() mutates module-level {dotted(node.func.value)}")


def main(argv: list[str]) -> int:
    """`python -m kernelbenchx.evaluator.parent.static FILE TASK_ID`: the static verdict on one file."""
    from kernelbenchx.dataset.registry import get_task

    if len(argv) != 2:
        print("usage: python -m kernelbenchx.evaluator.parent.static FILE TASK_ID")
        return 2
    try:
        report = check_source(open(argv[0], encoding="utf-8").read(), get_task(argv[1]).entry)
    except Rejected as rejected:
        print(f"{rejected.verdict.value} {rejected.reason.value}: {rejected.message}")
        return 1
    print(f"ok: kernels {report.kernels}, {report.launches} launch site(s), interpreter limits "
          f"{report.interpreter_limits or 'none'}")
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
