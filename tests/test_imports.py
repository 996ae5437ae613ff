"""The package's modules import each other without cycles: every ``import`` of an lbpe module,
at the top of a module, inside a function or only for type checking (``if TYPE_CHECKING:``), is
an edge (each module a ``from ... import a, b`` names, and ``lbpe`` itself), and the graph
they make has no cycle, neither between modules nor between the top-level modules and
packages of ``lbpe`` (``lbpe.app`` stands for every module under it). A cycle is named module
by module."""

from __future__ import annotations

import ast

from tests.conftest import ROOT

PACKAGE = ROOT / "lbpe"


def _module(path) -> str:
    name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    return name.removesuffix(".__init__")


def _imports(tree: ast.AST):
    """Every import node of ``tree``: at the top, in functions, under ``if TYPE_CHECKING:``."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node


def import_graph() -> dict[str, set[str]]:
    """Module -> the lbpe modules it imports: for ``from X import a, b``, each of ``X.a`` and
    ``X.b`` that is a module, else ``X``; ``lbpe`` itself (the package's ``__init__``) too."""
    modules = {_module(p): p for p in PACKAGE.rglob("*.py")}
    compiled = {_module(p) for p in PACKAGE.rglob("*.pyi")} - modules.keys()  # lbpe._native: no imports
    graph: dict[str, set[str]] = {name: set() for name in (*modules, *compiled)}
    for name, path in modules.items():
        for node in _imports(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level or not node.module:
                    continue
                named = [f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in graph]
                targets = named or [node.module]
            else:
                targets = [a.name for a in node.names]
            graph[name].update(t for t in targets if t in graph and t != name)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state:
            found = visit(start)
            if found:
                return found
    return None


def test_no_import_cycles_among_lbpe_modules():
    graph = import_graph()
    assert len(graph) > 20 and "lbpe.tokenizer" in graph["lbpe.corpus"]  # the walk sees the package
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def top_level(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """``graph`` between the top-level modules and packages of lbpe (``lbpe.x.y`` is ``lbpe.x``)."""
    unit = lambda name: ".".join(name.split(".")[:2])  # noqa: E731
    out: dict[str, set[str]] = {}
    for name, targets in graph.items():
        out.setdefault(unit(name), set()).update(unit(t) for t in targets if unit(t) != unit(name))
    return out


def test_no_import_cycles_among_lbpe_top_level_modules_and_packages():
    graph = top_level(import_graph())
    assert {"lbpe.tokenizer", "lbpe.model", "lbpe.app"} <= graph.keys()
    assert "lbpe.model" in graph["lbpe.tokenizer"]
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_imports_for_type_checking_and_inside_functions_are_edges():
    graph = import_graph()
    assert "lbpe.tokenizer" in graph["lbpe.workers"]  # only under TYPE_CHECKING
    assert "lbpe.batch" in graph["lbpe.tokenizer"]  # only inside encode_batch
    # every module of one `from lbpe import budget, native`, not only the first
    assert {"lbpe.budget", "lbpe.native"} <= graph["lbpe.tokenizer"]
    assert "lbpe._native" in graph["lbpe.native"] and "lbpe" not in graph["lbpe.native"]


def test_the_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
