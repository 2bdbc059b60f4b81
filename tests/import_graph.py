"""The import graph of the installed drafter_lint package, and the layers it must keep.

Run it (`python tests/import_graph.py`) for the counts, cycles and upward imports;
tests/test_architecture.py holds the package to them. Modules are found from the
installed package (as the interpreter imports it: installed, or editable with `rules/`
and `schemas/` mapped in), parsed with `ast`, never imported beyond `drafter_lint`.

Edges are explicit imports, as import-linter's grimp counts them: `import a.b`, and
`from a import b` -> `a.b` when that is a module, else `a`. The dry-run scripts
(`drafter_lint/dryrun/`) run in the runtime's interpreter and import no drafter_lint module.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path

PACKAGE = "drafter_lint"

# Bottom to top. A module may import from its own layer and the layers below it, never
# above. A name ending in "." stands for a package and everything in it.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("base", ("drafter_lint", "drafter_lint.errors", "drafter_lint.bounded",
              "drafter_lint.cache", "drafter_lint.jsondoc", "drafter_lint.readonly",
              "drafter_lint.findings",
              "drafter_lint.progress", "drafter_lint.fix", "drafter_lint.fix.write",
              "drafter_lint.transformers_child")),
    ("runtimes", ("drafter_lint.runtimes.",)),
    ("families", ("drafter_lint.family",)),
    ("read", ("drafter_lint.safetensors_header", "drafter_lint.tokenizer",
              "drafter_lint.quantization", "drafter_lint.hub", "drafter_lint.loading",
              "drafter_lint.structure", "drafter_lint.remote", "drafter_lint.checkpoint",
              "drafter_lint.target", "drafter_lint.reference", "drafter_lint.card")),
    ("facts", ("drafter_lint.launch", "drafter_lint.command", "drafter_lint.options",
               "drafter_lint.facts",
               "drafter_lint.registry")),
    ("rules", ("drafter_lint.rules.",)),
    ("engine", ("drafter_lint.settings", "drafter_lint.engine", "drafter_lint.card_lint",
                "drafter_lint.stages")),
    ("report", ("drafter_lint.report.", "drafter_lint.inspect_view")),
    ("fix", ("drafter_lint.fix.restyle", "drafter_lint.fix.plan", "drafter_lint.fix.apply")),
    ("app", ("drafter_lint.run", "drafter_lint.pipeline", "drafter_lint.collection", "drafter_lint.precommit",
             "drafter_lint.gate", "drafter_lint.releases_view", "drafter_lint.cli",
             "drafter_lint.entry", "drafter_lint.__main__", "drafter_lint.api")),
)
SCRIPTS = "drafter_lint.dryrun"


@dataclass
class Graph:
    files: dict[str, Path] = field(default_factory=dict)          # module -> source
    edges: dict[str, set[str]] = field(default_factory=dict)      # module -> imported
    deferred: dict[str, set[str]] = field(default_factory=dict)   # imported in a function
    # third-party top-level packages imported in a function (stdlib and relative left out)
    deferred_external: dict[str, set[str]] = field(default_factory=dict)

    @property
    def edge_count(self) -> int:
        return sum(len(v) for v in self.edges.values())


def layer_of(module: str) -> int | None:
    for index, (_, members) in enumerate(LAYERS):
        for member in members:
            if module == member or (member.endswith(".") and (
                    module == member[:-1] or module.startswith(member))):
                return index
    return None


def _package_modules(name: str, folder: Path) -> dict[str, Path]:
    out = {}
    for path in sorted(folder.rglob("*.py")):
        parts = list(path.relative_to(folder).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if any(p.startswith(".") or p == "__pycache__" for p in parts):
            continue
        out[".".join([name, *parts])] = path
    return out


def _find(module: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    return Path(spec.origin) if spec and spec.origin and spec.origin.endswith(".py") else None


def _imports(module: str, path: Path) -> tuple[set[str], set[str]]:
    """(every name imported, those imported inside a function or class) in one file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = set(map(id, tree.body))
    for node in tree.body:            # `if TYPE_CHECKING:` / `try:` at module level count as top
        if isinstance(node, (ast.If, ast.Try)):
            top |= {id(n) for n in ast.walk(node)}
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names, deferred = set(), set()
    for node in ast.walk(tree):
        found = []
        if isinstance(node, ast.Import):
            found = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[:len(parts) - (node.level - 1)]
                base = ".".join(parts + ([node.module] if node.module else []))
            internal = base == PACKAGE or base.startswith(PACKAGE + ".")
            found = [f"{base}.{a.name}" if internal and _find(f"{base}.{a.name}") else base
                     for a in node.names]
        names.update(found)
        if found and id(node) not in top:
            deferred.update(found)
    return names, deferred


def build() -> Graph:
    graph = Graph()
    root = _find(PACKAGE)
    queue = dict(_package_modules(PACKAGE, root.parent))
    while queue:
        module, path = queue.popitem()
        if module in graph.files:
            continue
        graph.files[module] = path
        if module.startswith(SCRIPTS + ".") or module == SCRIPTS:
            names, deferred = _imports(module, path)
            graph.edges[module] = {n for n in names if n.split(".")[0] == PACKAGE}
            continue
        names, deferred = _imports(module, path)
        internal = {n for n in names if n == PACKAGE or n.startswith(PACKAGE + ".")}
        graph.edges[module] = internal - {module}
        graph.deferred[module] = {n for n in deferred if n in internal} - {module}
        graph.deferred_external[module] = {
            n.split(".")[0] for n in deferred - internal
            if n and n.split(".")[0] not in sys.stdlib_module_names}
        for name in internal:
            if name not in graph.files and name not in queue:
                found = _find(name)
                if found is not None and found.name == "__init__.py":
                    queue.update(_package_modules(name, found.parent))
                elif found is not None:
                    queue[name] = found
    return graph


def cycles(graph: Graph) -> list[list[str]]:
    """Strongly connected components of more than one module (or a self-import)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.edges.get(v, ())):
            if w not in graph.files:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for v in sorted(graph.files):
        if v not in index:
            visit(v)
    return out


def upward(graph: Graph) -> list[tuple[str, str]]:
    """(importer, imported) pairs where the imported module sits in a higher layer."""
    out = []
    for module, names in sorted(graph.edges.items()):
        here = layer_of(module)
        for name in sorted(names):
            there = layer_of(name)
            if here is not None and there is not None and there > here:
                out.append((module, name))
    return out


def unlayered(graph: Graph) -> list[str]:
    return sorted(m for m in graph.files
                  if layer_of(m) is None and not m.startswith(SCRIPTS))


def main() -> int:
    graph = build()
    found_cycles, up = cycles(graph), upward(graph)
    print(f"{len(graph.files)} modules, {graph.edge_count} import edges, "
          f"{len(LAYERS)} layers ({' < '.join(name for name, _ in LAYERS)})")
    print(f"{len(found_cycles)} cycles, {len(up)} upward imports, "
          f"{sum(len(v) for v in graph.deferred.values())} imports inside functions")
    for component in found_cycles:
        print("cycle:", " <-> ".join(component))
    for module, name in up:
        print(f"upward: {module} ({LAYERS[layer_of(module)][0]}) imports {name} "
              f"({LAYERS[layer_of(name)][0]})")
    for module in unlayered(graph):
        print("no layer:", module)
    for module, names in sorted(graph.deferred.items()):
        for name in sorted(names):
            print(f"deferred: {module} imports {name} in a function")
    return 1 if found_cycles or up or unlayered(graph) else 0


if __name__ == "__main__":
    sys.exit(main())
