"""The package's layers (LAYERS, lowest first: no module imports a layer above its own) and
its modules import each other without cycles: every ``import`` of an lbpe module,
at the top of a module, inside a function or only for type checking (``if TYPE_CHECKING:``), is
an edge (each module a ``from ... import a, b`` names, and ``lbpe`` itself), and the graph
they make has no cycle, neither between modules nor between the top-level modules and
packages of ``lbpe`` (``lbpe.playground`` stands for every module under it). A cycle is named
module by module."""

from __future__ import annotations

import ast

from tests.support.data import ROOT

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
    assert len(graph) > 20 and "lbpe.tokenizer" in graph["lbpe.corpus.parallel"]  # the walk sees the package
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
    assert {"lbpe.tokenizer", "lbpe.model", "lbpe.playground"} <= graph.keys()
    assert "lbpe.model" in graph["lbpe.tokenizer"]
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_imports_for_type_checking_and_inside_functions_are_edges():
    graph = import_graph()
    assert "lbpe.tokenizer" in graph["lbpe.corpus.workers"]  # only under TYPE_CHECKING
    assert "lbpe.batch" in graph["lbpe.tokenizer.bulk"]  # only inside encode_batch
    # every module of one `from lbpe import budget, native`, not only the first
    assert {"lbpe.budget", "lbpe.native"} <= graph["lbpe.tokenizer.compiled"]
    assert "lbpe._native" in graph["lbpe.native"] and "lbpe" not in graph["lbpe.native"]


def test_the_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


#: lbpe's layers, lowest first. A module imports modules of its own layer and of the layers
#: below, never of one above: the library never imports the playground, the pipeline never the
#: corpus tools. A name stands for the module or the package of that name and all beneath it
#: (the longest name that matches decides).
LAYERS: dict[str, tuple[str, ...]] = {
    "foundation": (
        "lbpe.errors",
        "lbpe._native",
        "lbpe._unicode_data",
        "lbpe._script_data",
        "lbpe._case_data",
        "lbpe._normal_data",
        "lbpe._hf_class_data",
        "lbpe.unicode",
        "lbpe.literals",
        "lbpe.progress",
        "lbpe.limits",
        "lbpe.budget",
        "lbpe.user_regex",
        "lbpe.data",
    ),
    "pipeline": (
        "lbpe.normalize",
        "lbpe.pretokenize",
        "lbpe.model",
        "lbpe.native",
        "lbpe.vocab",
        "lbpe.decoders",
        "lbpe.batch",
        "lbpe.tokenizer",
    ),
    "files": ("lbpe.formats", "lbpe.load", "lbpe.presets"),
    "library": ("lbpe.train", "lbpe.analysis", "lbpe.corpus", "lbpe.hf"),
    "package": ("lbpe",),
    "playground display": ("lbpe.playground", "lbpe.playground.examples", "lbpe.playground.display"),
    "playground service": ("lbpe.playground.service",),
    "playground interfaces": ("lbpe.playground.app", "lbpe.playground.page"),
    "command line": ("lbpe.cli", "lbpe.__main__"),
}


def layer_of(module: str, layers: dict[str, tuple[str, ...]] = LAYERS) -> int | None:
    """The index in ``layers`` of the layer ``module`` belongs to (``None``: no layer names it)."""
    best: tuple[int, int] | None = None  # (length of the name matched, layer)
    for k, names in enumerate(layers.values()):
        for name in names:
            if (module == name or module.startswith(name + ".")) and (best is None or len(name) > best[0]):
                best = (len(name), k)
    return None if best is None else best[1]


def upward_imports(graph: dict[str, set[str]], layers: dict[str, tuple[str, ...]] = LAYERS) -> list[str]:
    """Each import in ``graph`` of a module in a higher layer than the importer's."""
    names = list(layers)
    found = []
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            a, b = layer_of(module, layers), layer_of(target, layers)
            if a is not None and b is not None and b > a:
                found.append(f"{module} ({names[a]}) imports {target} ({names[b]})")
    return found


def test_every_module_belongs_to_a_layer():
    unplaced = sorted(m for m in import_graph() if layer_of(m) is None)
    assert unplaced == [], "add these to LAYERS in tests/unit/test_imports.py: " + ", ".join(unplaced)


def test_no_module_imports_a_layer_above_its_own():
    graph = import_graph()
    assert layer_of("lbpe.playground.display.render") < layer_of("lbpe.playground.app.handlers")
    assert upward_imports(graph) == []


def test_an_upward_import_is_found():
    layers = {"low": ("p.a",), "high": ("p.b", "p.a.top")}
    graph = {"p.a.x": {"p.b.y", "p.a.z"}, "p.a.top": {"p.a.x"}, "p.b.y": {"p.a.x"}}
    assert upward_imports(graph, layers) == ["p.a.x (low) imports p.b.y (high)"]
