"""Mutation testing of the agent's core: do the tests notice when the code is wrong?

Each *mutant* is the code with one small deliberate bug (a comparison flipped, a constant
changed, a call removed...). The tests that exercise the module run against it; if one fails,
the mutant is *killed*. A mutant that survives marks behaviour no test pins down.

Why an own runner rather than mutmut: mutmut 3 copies the project into `mutants/` and
rewrites every function into a trampoline, which does not fit a repository whose checkpoints
are generated folders that each hold a package named `pi`. This runner writes nothing. Per
module, a forked server imports what the mutants share (pytest, pydantic, the SDKs, and every
`pi` module that does not import the mutated one); a traced baseline run of the module's
configured test files records which test executes which line. Each mutant then runs in a
forked child that loads the mutated module straight from its AST through an import hook and
runs only the tests that execute its lines, quickest first, with `-x` and a timeout. A
mutant on a line no selected test executes survives without a run.

    python shared/mutation/mutate.py            # every module of the latest checkpoint
    python shared/mutation/mutate.py -m loop    # one module
    python shared/mutation/mutate.py --list -m loop

Configuration (modules, their tests, thresholds) is `mutation.toml` beside this file; the
accepted equivalent mutants, each with its reason, are `equivalent.toml`.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import importlib
import importlib.abc
import importlib.machinery
import importlib.metadata
import importlib.util
import json
import os
import signal
import sys
import tempfile
import time
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import CodeType, FrameType, ModuleType
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
console = Console(highlight=False, width=None if sys.stdout.isatty() else 120)

# --- the operator set ------------------------------------------------------------------------

COMPARE_SWAPS: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.LtE, ast.LtE: ast.Lt,
    ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
    ast.In: ast.NotIn, ast.NotIn: ast.In,
}
BINOP_SWAPS: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div, ast.Mod: ast.Div,
}
OPERATORS = {
    "compare": "== != < <= > >= is in: each swapped with its neighbour or negation",
    "boolean": "`and` <-> `or`",
    "not": "`not x` -> `x`",
    "arith": "+ <-> -, * <-> /, // -> /, % -> / (also in `+=`)",
    "number": "an int or float constant n -> n + 1",
    "bool": "True <-> False",
    "string": "a string constant s -> 'XX' + s + 'XX' (docstrings excepted)",
    "call": "a statement that is a call (or awaits one) -> `pass`",
    "return": "`return x` -> `return None` (not for None or a bool constant)",
    "assign": "`x = value` -> `x = None` (not for None, a bool constant or a type alias)",
    "argument": "a keyword argument `f(k=v)` -> `f(k=None)` (not for None or a bool)",
    "loop": "`break` <-> `continue`",
}


@dataclass(frozen=True)
class Site:
    """One place a mutant can be made: in `parent.field[index]`, `old` becomes `new`."""

    parent: ast.AST
    field: str
    index: int | None
    old: ast.AST
    new: ast.AST
    operator: str
    function: str
    statement_line: int  # where the statement holding the mutant begins
    ancestors: tuple[ast.AST, ...] = ()  # enclosing expressions, innermost first


@dataclass(frozen=True)
class Mutant:
    module: str  # the configured name, e.g. "loop"
    number: int  # its place in this module's enumeration (not stable across code changes)
    function: str
    line: int
    end_line: int
    line_text: str
    operator: str
    original: str  # the smallest enclosing expression that tells this mutant apart...
    replacement: str  # ...and the same expression mutated
    statement_line: int
    occurrence: int = 1  # counts mutants of one function that read the same even so

    def lines(self) -> set[int]:
        """The lines a test must execute to meet this mutant."""
        return {self.statement_line, *range(self.line, self.end_line + 1)}

    def describe(self) -> str:
        again = f" (occurrence {self.occurrence})" if self.occurrence > 1 else ""
        return (f"{self.module}:{self.line} {self.function}: {shorten(self.original)} -> "
                f"{shorten(self.replacement)} [{self.operator}]{again}")


def shorten(text: str, width: int = 70) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def docstring_nodes(tree: ast.AST) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0]))
                found.add(id(body[0].value))
    return found


SKIPPED_FIELDS = {"annotation", "returns", "decorator_list", "type_comment", "type_params"}


def replacements(node: ast.AST, skip: set[int]) -> Iterator[tuple[ast.AST, str]]:
    """Every mutant of `node` itself (not of its children), with its operator's name."""
    if id(node) in skip:
        return
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        swap = COMPARE_SWAPS.get(type(node.ops[0]))
        if swap is not None:
            yield ast.Compare(left=node.left, ops=[swap()], comparators=node.comparators), \
                "compare"
    elif isinstance(node, ast.BoolOp):
        other = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        yield ast.BoolOp(op=other, values=node.values), "boolean"
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield node.operand, "not"
    elif isinstance(node, ast.BinOp) and type(node.op) in BINOP_SWAPS:
        yield ast.BinOp(left=node.left, op=BINOP_SWAPS[type(node.op)](), right=node.right), \
            "arith"
    elif isinstance(node, ast.AugAssign) and type(node.op) in BINOP_SWAPS:
        yield ast.AugAssign(target=node.target, op=BINOP_SWAPS[type(node.op)](),
                            value=node.value), "arith"
    elif isinstance(node, ast.Constant):
        yield from constant_replacements(node)
    elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call | ast.Await):
        yield ast.Pass(), "call"
    elif isinstance(node, ast.Return) and node.value is not None and \
            not is_none_or_bool(node.value):
        yield ast.Return(value=ast.Constant(value=None)), "return"
    elif isinstance(node, ast.Assign) and not is_none_or_bool(node.value):
        if not any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets) and \
                not is_type_expression(node.value):
            yield ast.Assign(targets=node.targets, value=ast.Constant(value=None)), "assign"
    elif isinstance(node, ast.keyword) and node.arg is not None and \
            not is_none_or_bool(node.value):
        yield ast.keyword(arg=node.arg, value=ast.Constant(value=None)), "argument"
    elif isinstance(node, ast.Break):
        yield ast.Continue(), "loop"
    elif isinstance(node, ast.Continue):
        yield ast.Break(), "loop"


def is_none_or_bool(node: ast.expr) -> bool:
    """None stays None; a bool constant is flipped by the `bool` operator, not set to None."""
    return isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, bool))


TYPE_NAMES = {"Callable", "Literal", "Union", "Optional", "Annotated", "type", "dict", "list",
              "tuple", "set", "frozenset"}


def is_type_expression(node: ast.expr) -> bool:
    """A type alias (`Opener = Callable[...]`, `Message = A | B`): only annotations read it."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return all(is_type_operand(side) for side in (node.left, node.right))
    return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and \
        node.value.id in TYPE_NAMES


def is_type_operand(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return node.value is None
    return isinstance(node, ast.Name | ast.Attribute) or is_type_expression(node)


def constant_replacements(node: ast.Constant) -> Iterator[tuple[ast.AST, str]]:
    value = node.value
    if isinstance(value, bool):
        yield ast.Constant(value=not value), "bool"
    elif isinstance(value, int | float):
        yield ast.Constant(value=value + 1), "number"
    elif isinstance(value, str):
        yield ast.Constant(value=f"XX{value}XX"), "string"


def sites(tree: ast.Module) -> list[Site]:
    """Every mutation site of a module, in a fixed order (a depth-first walk)."""
    skip = docstring_nodes(tree)
    found: list[Site] = []

    def visit(node: ast.AST, function: str, statement: int,
              ancestors: tuple[ast.AST, ...]) -> None:
        if isinstance(node, ast.stmt):
            statement, ancestors = node.lineno, ()
        elif isinstance(node, ast.expr):
            ancestors = (node, *ancestors)
        if isinstance(node, ast.Import | ast.ImportFrom):
            return
        if isinstance(node, ast.JoinedStr):
            return  # the literal parts of an f-string are not mutated
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            function = node.name if function == "<module>" else f"{function}.{node.name}"
        for name, value in ast.iter_fields(node):
            if name in SKIPPED_FIELDS:
                continue
            children = value if isinstance(value, list) else [value]
            for index, child in enumerate(children):
                if not isinstance(child, ast.AST):
                    continue
                where = index if isinstance(value, list) else None
                line = child.lineno if isinstance(child, ast.stmt) else statement
                for new, operator in replacements(child, skip):
                    ast.copy_location(new, child)
                    found.append(Site(node, name, where, child, new, operator, function, line,
                                      ancestors if isinstance(child, ast.expr) else ()))
                visit(child, function, statement, ancestors)

    visit(tree, "<module>", 1, ())
    return found


def apply(site: Site) -> None:
    new = copy.copy(site.new)
    ast.copy_location(new, site.old)
    if site.index is None:
        setattr(site.parent, site.field, new)
    else:
        getattr(site.parent, site.field)[site.index] = new


def unparse(node: ast.AST) -> str:
    return "pass" if isinstance(node, ast.Pass) else ast.unparse(node)


def texts(site: Site) -> list[tuple[str, str]]:
    """(original, mutated) source of the mutated node and of each enclosing expression."""
    before = [unparse(site.old), *(unparse(a) for a in site.ancestors)]
    apply(site)
    current = getattr(site.parent, site.field)
    placed = current if site.index is None else current[site.index]
    after = [unparse(placed), *(unparse(a) for a in site.ancestors)]
    if site.index is None:
        setattr(site.parent, site.field, site.old)
    else:
        current[site.index] = site.old
    return list(zip(before, after, strict=True))


def enumerate_mutants(name: str, source: str) -> list[Mutant]:
    """Every mutant, each described by the smallest expression that tells it apart."""
    lines = source.splitlines()
    found = sites(ast.parse(source))
    levels = [texts(site) for site in found]
    chosen: list[tuple[str, str]] = []
    for i, site in enumerate(found):
        others = [levels[j] for j, other in enumerate(found)
                  if j != i and other.function == site.function]
        pick = levels[i][-1]
        first = 1 if isinstance(site.old, ast.Constant) and len(levels[i]) > 1 else 0
        for depth, pair in enumerate(levels[i]):  # a constant is shown with its expression
            if depth >= first and all(pair != other[min(depth, len(other) - 1)]
                                      for other in others):
                pick = pair
                break
        chosen.append(pick)
    mutants, seen = [], dict[tuple[str, str, str, str], int]()
    for number, (site, (original, replacement)) in enumerate(zip(found, chosen, strict=True)):
        key = (site.function, site.operator, original, replacement)
        seen[key] = seen.get(key, 0) + 1
        line = getattr(site.old, "lineno", 1)
        end = getattr(site.old, "end_lineno", line) or line
        mutants.append(Mutant(name, number, site.function, line, end,
                              lines[line - 1].strip() if line <= len(lines) else "",
                              site.operator, original, replacement, site.statement_line,
                              seen[key]))
    return mutants


def mutated_code(source: str, path: Path, number: int) -> CodeType:
    tree = ast.parse(source)
    apply(sites(tree)[number])
    ast.fix_missing_locations(tree)
    return compile(tree, str(path), "exec")


# --- configuration and accepted equivalents --------------------------------------------------

@dataclass(frozen=True)
class ModuleConfig:
    name: str
    module: str  # dotted, e.g. "pi.agent.loop"
    tests: tuple[str, ...]

    def path(self, checkpoint: Path) -> Path:
        return checkpoint / (self.module.replace(".", "/") + ".py")


@dataclass(frozen=True)
class Config:
    modules: tuple[ModuleConfig, ...]
    overall: float
    per_module: float
    max_equivalent: float
    timeout_factor: float
    min_timeout: float


def load_config(path: Path) -> Config:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    thresholds = data.get("thresholds", {})
    modules = tuple(ModuleConfig(name, spec["module"], tuple(spec["tests"]))
                    for name, spec in data["modules"].items())
    return Config(modules, float(thresholds.get("overall", 0.95)),
                  float(thresholds.get("per_module", 0.90)),
                  float(thresholds.get("max_equivalent", 0.05)),
                  float(data.get("timeout_factor", 4.0)), float(data.get("min_timeout", 10.0)))


@dataclass(frozen=True)
class Equivalent:
    """An accepted equivalent mutant, found again by what it changes, never by number."""

    module: str
    function: str
    original: str
    replacement: str
    reason: str
    occurrence: int = 1

    def matches(self, mutant: Mutant) -> bool:
        return (mutant.module == self.module and mutant.function == self.function
                and same(mutant.original, self.original)
                and same(mutant.replacement, self.replacement)
                and mutant.occurrence == self.occurrence)


def same(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def load_equivalents(path: Path) -> list[Equivalent]:
    if not path.exists():
        return []
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    found = []
    for item in data.get("equivalent", []):
        if not str(item.get("reason", "")).strip():
            raise SystemExit(f"{path}: every equivalent mutant needs a reason: {item}")
        found.append(Equivalent(item["module"], item["function"], item["original"],
                                item["replacement"], item["reason"],
                                int(item.get("occurrence", 1))))
    return found


# --- running mutants in forked children ------------------------------------------------------

class MutantFinder(importlib.abc.MetaPathFinder):
    """Serves one module from a compiled mutant instead of its file."""

    def __init__(self, module: str, path: Path, code: CodeType) -> None:
        self.module, self.path, self.code = module, path, code

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None,
                  ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.module:
            return None
        return importlib.util.spec_from_file_location(fullname, self.path,
                                                      loader=MutantLoader(self.code))


class MutantLoader(importlib.abc.Loader):
    def __init__(self, code: CodeType) -> None:
        self.code = code

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        exec(self.code, module.__dict__)


def warm_up(checkpoint: Path) -> None:
    """Import, once in the parent, every third-party module the checkpoint and tests use."""
    local = {p.stem for p in (checkpoint / "tests").glob("*.py")} | {"pi", "course", "conftest"}
    names: set[str] = {"pytest"}
    for file in [*checkpoint.glob("pi/**/*.py"), *checkpoint.glob("course/**/*.py"),
                 *checkpoint.glob("tests/*.py")]:
        try:
            tree = ast.parse(file.read_text(encoding="utf-8"))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module)
    for name in sorted(names):
        if name.split(".")[0] not in local:
            with contextlib.suppress(Exception):
                importlib.import_module(name)
    for plugin in importlib.metadata.entry_points(group="pytest11"):
        with contextlib.suppress(Exception):
            plugin.load()


def child_pytest(tests: Sequence[str], quiet: bool = True) -> int:
    """In a forked child: run pytest on `tests`, stopping at the first failure."""
    if quiet:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
    import pytest

    return int(pytest.main(["-x", "-q", "-p", "no:cacheprovider", *tests]))


@dataclass
class Job:
    pid: int
    mutant: Mutant
    deadline: float
    started: float


def fork(body: Any) -> int:
    pid = os.fork()
    if pid == 0:
        code = 3
        try:
            os.setpgid(0, 0)
            code = int(body())
        except BaseException:
            code = 3
        finally:
            os._exit(code)
    return pid


def kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


COLLECTION = "<collection>"  # lines run while the test files are imported


class CoverageRecorder:
    """A pytest plugin: which test runs which line of one file, and how long each test takes."""

    def __init__(self, target: str) -> None:
        self.target, self.current = target, COLLECTION
        self.hits: dict[int, set[str]] = {}
        self.seconds: dict[str, float] = {}

    def tracer(self, frame: FrameType, event: str, arg: object) -> Any:
        if frame.f_code.co_filename != self.target:
            return None
        self.hits.setdefault(frame.f_lineno, set()).add(self.current)
        return self.local

    def local(self, frame: FrameType, event: str, arg: object) -> Any:
        if event == "line":
            self.hits.setdefault(frame.f_lineno, set()).add(self.current)
        return self.local

    def pytest_runtest_protocol(self, item: Any) -> Iterator[None]:
        self.current, started = item.nodeid, time.monotonic()
        yield
        self.seconds[item.nodeid] = time.monotonic() - started
        self.current = COLLECTION

    pytest_runtest_protocol.hookwrapper = True  # type: ignore[attr-defined]


@dataclass
class Baseline:
    """The unmutated run of one module's tests: its time, and who runs which line."""

    seconds: float
    hits: dict[int, list[str]]
    test_seconds: dict[str, float]

    def tests_for(self, mutant: Mutant, files: Sequence[str]) -> list[str]:
        """The tests that run the mutant's lines, quickest first; all files at import level."""
        found: set[str] = set()
        for line in mutant.lines():
            found.update(self.hits.get(line, ()))
        if COLLECTION in found:
            return list(files)
        return sorted(found, key=lambda t: (self.test_seconds.get(t, 0.0), t))


def baseline(spec: ModuleConfig, checkpoint: Path) -> Baseline:
    """Run the module's tests once, unmutated, tracing which test executes which line."""
    recorder = CoverageRecorder(str(spec.path(checkpoint)))
    with tempfile.NamedTemporaryFile("r", suffix=".json", delete=False) as handle:
        out = Path(handle.name)

    def traced() -> int:
        import threading

        import pytest

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        sys.settrace(recorder.tracer)
        threading.settrace(recorder.tracer)
        code = int(pytest.main(["-q", "-p", "no:cacheprovider", *spec.tests],
                               plugins=[recorder]))
        sys.settrace(None)
        hits = {str(line): sorted(tests) for line, tests in recorder.hits.items()}
        out.write_text(json.dumps({"hits": hits, "seconds": recorder.seconds}),
                       encoding="utf-8")
        return code

    started = time.monotonic()
    pid = fork(traced)
    _, status = os.waitpid(pid, 0)
    seconds = time.monotonic() - started
    code = os.waitstatus_to_exitcode(status)
    text = out.read_text(encoding="utf-8")
    out.unlink(missing_ok=True)
    if code != 0 or not text:
        raise SystemExit(f"mutation: the tests of {spec.name} fail without any mutant "
                         f"(pytest exit {code}); run `cd {checkpoint} && python -m pytest -x "
                         f"{' '.join(spec.tests)}`")
    data = json.loads(text)
    hits = {int(line): tests for line, tests in data["hits"].items()}
    return Baseline(seconds, hits, data["seconds"])


@dataclass
class Outcome:
    mutant: Mutant
    status: str  # killed | timeout | survived | uncovered | equivalent
    seconds: float = 0.0


@dataclass
class ModuleReport:
    name: str
    outcomes: list[Outcome] = field(default_factory=list)
    seconds: float = 0.0

    def count(self, *statuses: str) -> int:
        return sum(1 for o in self.outcomes if o.status in statuses)

    @property
    def total(self) -> int:
        return len(self.outcomes)

    @property
    def killed(self) -> int:
        return self.count("killed", "timeout")

    @property
    def equivalent(self) -> int:
        return self.count("equivalent")

    @property
    def score(self) -> float:
        judged = self.total - self.equivalent
        return self.killed / judged if judged else 1.0


def run_module(spec: ModuleConfig, checkpoint: Path, config: Config,
               equivalents: list[Equivalent], jobs: int) -> ModuleReport:
    path = spec.path(checkpoint)
    source = path.read_text(encoding="utf-8")
    report = ModuleReport(spec.name)
    started = time.monotonic()
    base = baseline(spec, checkpoint)
    timeout = max(config.min_timeout, config.timeout_factor * base.seconds)
    queue: list[Mutant] = []
    for mutant in enumerate_mutants(spec.name, source):
        if any(e.matches(mutant) for e in equivalents):
            report.outcomes.append(Outcome(mutant, "equivalent"))
        elif not base.tests_for(mutant, spec.tests):
            report.outcomes.append(Outcome(mutant, "uncovered"))
        else:
            queue.append(mutant)
    running: dict[int, Job] = {}
    while queue or running:
        while queue and len(running) < jobs:
            mutant = queue.pop(0)
            code = mutated_code(source, path, mutant.number)
            finder = MutantFinder(spec.module, path, code)

            tests = base.tests_for(mutant, spec.tests)

            def body(finder: MutantFinder = finder, tests: list[str] = tests) -> int:
                sys.meta_path.insert(0, finder)
                return child_pytest(tests)

            now = time.monotonic()
            pid = fork(body)
            running[pid] = Job(pid, mutant, now + timeout, now)
        time.sleep(0.01)
        for pid, job in list(running.items()):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                del running[pid]
                kind = "survived" if os.waitstatus_to_exitcode(status) == 0 else "killed"
                report.outcomes.append(Outcome(job.mutant, kind, time.monotonic() - job.started))
            elif time.monotonic() > job.deadline:
                kill_group(pid)
                del running[pid]
                report.outcomes.append(Outcome(job.mutant, "timeout", timeout))
    report.outcomes.sort(key=lambda o: o.mutant.number)
    report.seconds = time.monotonic() - started
    return report


def module_names(checkpoint: Path) -> dict[str, Path]:
    """Every module of the checkpoint's `pi` and `course` packages, by dotted name."""
    names = {}
    files = [*(checkpoint / "pi").rglob("*.py"), *(checkpoint / "course").rglob("*.py")]
    for file in sorted(files):
        parts = file.relative_to(checkpoint).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = file
    return names


def imports_of(name: str, file: Path, known: set[str]) -> set[str]:
    """The modules `name` makes Python import: what it imports, and its parent packages."""
    package = name if file.name == "__init__.py" else name.rpartition(".")[0]
    found = {name.rsplit(".", depth)[0] for depth in range(1, name.count(".") + 1)}
    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    closed: set[str] = set()
    for module in found:  # importing a.b.c imports a and a.b first
        parts = module.split(".")
        closed.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return closed & known


def independent_modules(checkpoint: Path, target: str) -> list[str]:
    """The `pi` modules that can be imported without importing `target`, even indirectly."""
    names = module_names(checkpoint)
    known = set(names)
    edges = {name: imports_of(name, file, known) for name, file in names.items()}
    dependent = {target}
    grew = True
    while grew:
        grew = False
        for name, needs in edges.items():
            if name not in dependent and needs & dependent:
                dependent.add(name)
                grew = True
    return sorted(known - dependent)


def preload(checkpoint: Path, target: str) -> None:
    """In a module's server process: import what the mutants share, never the target."""
    for name in independent_modules(checkpoint, target):
        with contextlib.suppress(Exception):
            importlib.import_module(name)
    if target in sys.modules:  # an import the static graph did not see: start clean instead
        for name in [m for m in sys.modules
                     if m in ("pi", "course") or m.startswith(("pi.", "course."))]:
            del sys.modules[name]


def serve_module(spec: ModuleConfig, checkpoint: Path, config: Config,
                 equivalents: list[Equivalent], jobs: int) -> ModuleReport:
    """Run one module's mutants from a forked server that has its shared imports done."""
    with tempfile.NamedTemporaryFile("r", suffix=".json", delete=False) as handle:
        out = Path(handle.name)

    def server() -> int:
        try:
            preload(checkpoint, spec.module)
            report = run_module(spec, checkpoint, config, equivalents, jobs)
            data: dict[str, Any] = {"seconds": report.seconds, "outcomes": [
                {"mutant": asdict(o.mutant), "status": o.status, "seconds": o.seconds}
                for o in report.outcomes]}
        except SystemExit as stop:
            data = {"error": str(stop.code)}
        out.write_text(json.dumps(data), encoding="utf-8")
        return 0

    pid = fork(server)
    os.waitpid(pid, 0)
    text = out.read_text(encoding="utf-8")
    out.unlink(missing_ok=True)
    if not text:
        raise SystemExit(f"mutation: the run of {spec.name} ended without a report")
    data = json.loads(text)
    if "error" in data:
        raise SystemExit(data["error"])
    outcomes = [Outcome(Mutant(**o["mutant"]), o["status"], o["seconds"])
                for o in data["outcomes"]]
    return ModuleReport(spec.name, outcomes, data["seconds"])


# --- the command -----------------------------------------------------------------------------

def latest_checkpoint() -> Path:
    folders = sorted(p for p in (ROOT / "checkpoints").glob("[0-9][0-9]_*") if p.is_dir())
    if not folders:
        raise SystemExit("mutation: no checkpoints found; run `pi-course generate` first")
    return folders[-1]


def percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def print_table(reports: list[ModuleReport], config: Config) -> None:
    table = Table(title="mutation testing", title_justify="left")
    for column in ("module", "mutants", "killed", "timeout", "survived", "uncovered",
                   "equivalent", "score", "time"):
        table.add_column(column, justify="left" if column == "module" else "right")
    for r in reports:
        mark = "" if r.score >= config.per_module else " ✗"
        table.add_row(r.name, str(r.total), str(r.count("killed")), str(r.count("timeout")),
                      str(r.count("survived")), str(r.count("uncovered")), str(r.equivalent),
                      percent(r.score) + mark, f"{r.seconds:.0f}s")
    console.print(table)


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False,
                  help=__doc__.split("\n\n")[0] if __doc__ else None)


@app.command()
def main(
    module: Annotated[list[str] | None, typer.Option("--module", "-m",
                                                     help="Only these modules.")] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Mutants at once.")] = 2,
    checkpoint: Annotated[Path | None, typer.Option(help="Default: the latest.")] = None,
    list_only: Annotated[bool, typer.Option("--list", help="List the mutants, run none.")] = False,
    config_file: Annotated[Path, typer.Option("--config")] = HERE / "mutation.toml",
    equivalent_file: Annotated[Path, typer.Option("--equivalent")] = HERE / "equivalent.toml",
) -> None:
    """Mutate the agent's core modules and report how many mutants the tests kill."""
    config = load_config(config_file)
    equivalents = load_equivalents(equivalent_file)
    folder = (checkpoint or latest_checkpoint()).resolve()
    chosen = [m for m in config.modules if not module or m.name in module]
    if module and len(chosen) != len(set(module)):
        known = ", ".join(m.name for m in config.modules)
        raise SystemExit(f"mutation: unknown module in {module}; known: {known}")
    if list_only:
        for spec in chosen:
            for mutant in enumerate_mutants(spec.name, spec.path(folder).read_text("utf-8")):
                tag = " (equivalent)" if any(e.matches(mutant) for e in equivalents) else ""
                console.print(f"#{mutant.number} {mutant.describe()}{tag}", markup=False,
                              soft_wrap=True)
        return
    os.chdir(folder)
    sys.path.insert(0, str(folder))
    warm_up(folder)
    where = folder.relative_to(ROOT) if folder.is_relative_to(ROOT) else folder
    console.print(f"mutation: {where}, {len(chosen)} modules, "
                  f"{jobs} at once", markup=False)
    reports = []
    for spec in chosen:
        report = serve_module(spec, folder, config, equivalents, jobs)
        console.print(f"  {spec.name}: {report.total} mutants, {percent(report.score)} "
                      f"in {report.seconds:.0f}s", markup=False)
        reports.append(report)
    finish(reports, config, equivalents)


def finish(reports: list[ModuleReport], config: Config, equivalents: list[Equivalent]) -> None:
    print_table(reports, config)
    lost = [o for r in reports for o in r.outcomes if o.status in ("survived", "uncovered")]
    if lost:
        console.print(f"\nsurviving mutants ({len(lost)}):", markup=False, soft_wrap=True)
        for outcome in lost:
            note = " (no selected test runs this line)" if outcome.status == "uncovered" else ""
            console.print(f"  {outcome.mutant.describe()}{note}", markup=False, soft_wrap=True)
    slow = [o for r in reports for o in r.outcomes if o.status == "timeout"]
    if slow:
        console.print(f"\ntimed out (counted as killed, {len(slow)}):", markup=False)
        for outcome in slow:
            console.print(f"  {outcome.mutant.describe()}", markup=False, soft_wrap=True)
    total = sum(r.total for r in reports)
    killed = sum(r.killed for r in reports)
    equivalent = sum(r.equivalent for r in reports)
    judged = total - equivalent
    score = killed / judged if judged else 1.0
    matched = {id(e) for e in equivalents for r in reports for o in r.outcomes
               if o.status == "equivalent" and e.matches(o.mutant)}
    names = {r.name for r in reports}
    for e in equivalents:
        if id(e) not in matched and e.module in names:
            console.print(f"note: equivalent entry matches no mutant now: {e.module} "
                          f"{e.function}: {e.original} -> {e.replacement}", markup=False)
    console.print(f"mutation: {killed} of {total} killed ({percent(score)}), "
                  f"{equivalent} equivalent", markup=False)
    problems = [f"{r.name} {percent(r.score)} < {percent(config.per_module)}"
                for r in reports if r.score < config.per_module]
    if score < config.overall:
        problems.append(f"overall {percent(score)} < {percent(config.overall)}")
    if total and equivalent / total >= config.max_equivalent:
        problems.append(f"equivalent {equivalent} of {total} is not under "
                        f"{percent(config.max_equivalent)}")
    if problems:
        console.print("mutation: FAILED: " + "; ".join(problems), markup=False, soft_wrap=True)
        raise typer.Exit(1)


if __name__ == "__main__":
    app()
