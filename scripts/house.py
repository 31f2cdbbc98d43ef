"""Print the house in numbers: files, lines and the largest functions of the product.

``python scripts/house.py`` measures this checkout; ``python scripts/house.py DIR`` another
one (an older commit checked out with ``git worktree add --detach DIR REV``), so two
states of the code can be compared line by line. It reads the code as text (``ast``),
runs none of it, and counts what ``docs/architecture.md`` promises to keep single:

- files and lines per layer (the faces, the workspace, the features, the core);
- the largest functions (lines from ``def`` to the last line of the body);
- pydantic models outside ``toolkit/wire.py`` that a face answers with (a copy of a wire
  shape would show here);
- the methods of the store's protocols (``toolkit/store/base.py``), and of the largest;
- the fields of ``Settings`` at its top (a grouped settings object has few);
- the methods of the ``Workspace`` and of the classes it inherits;
- with ``--graph``, the import graph between packages (``package_graph``: the
  table ``scripts/gen_docs.py`` writes into ``docs/architecture.md``).

Standard library only.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

LAYERS: dict[str, tuple[str, ...]] = {
    "faces": ("cli", "service", "mcp_face", "app_pages", "app_streamlit.py"),
    "workspace": ("toolkit/workspace", "toolkit/notebook"),
    "features": (
        "toolkit/evaluate",
        "toolkit/summarize",
        "toolkit/search",
        "toolkit/ingest",
        "toolkit/embeddings",
        "toolkit/apikeys.py",
        "toolkit/demo",
    ),
}
"""The layers of ``docs/architecture.md``; every other file under ``toolkit/`` is core."""

FACES = LAYERS["faces"]
LARGEST = 8


@dataclass(frozen=True)
class Function:
    """One function or method: where it is and how many lines it spans."""

    path: str
    name: str
    lines: int


def product_files(root: Path) -> Iterator[Path]:
    """Every Python file of the product under ``root`` (no tests, scripts or benchmarks)."""
    for top in ("toolkit", "cli", "service", "mcp_face", "app_pages"):
        yield from sorted((root / top).rglob("*.py"))
    if (root / "app_streamlit.py").exists():
        yield root / "app_streamlit.py"


def layer_of(relative: str) -> str:
    """The layer a file (its path relative to the checkout) belongs to."""
    for layer, prefixes in LAYERS.items():
        if any(relative == p or relative.startswith(p + "/") for p in prefixes):
            return layer
    return "core"


def functions(tree: ast.AST, path: str) -> Iterator[Function]:
    """Every function and method of a parsed module, with its span in lines."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            end = node.end_lineno or node.lineno
            yield Function(path, node.name, end - node.lineno + 1)


def classes(tree: ast.AST) -> Iterator[ast.ClassDef]:
    """Every class of a parsed module."""
    yield from (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef))


def base_names(node: ast.ClassDef) -> list[str]:
    """The names of a class's bases as written (``Protocol``, ``BaseModel``, ``x.Base``)."""
    return [ast.unparse(b).split("[")[0].rsplit(".", 1)[-1] for b in node.bases]


def derives(node: ast.ClassDef, base: str, class_by_name: dict[str, ast.ClassDef]) -> bool:
    """Whether a class has ``base`` among its bases, directly or through classes of the tree."""
    seen: set[str] = set()
    todo = [node]
    while todo:
        current = todo.pop()
        for name in base_names(current):
            if name == base:
                return True
            if name in class_by_name and name not in seen:
                seen.add(name)
                todo.append(class_by_name[name])
    return False


def methods(node: ast.ClassDef) -> list[str]:
    """The public methods a class defines itself."""
    return [
        n.name
        for n in node.body
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and not n.name.startswith("_")
    ]


def fields(node: ast.ClassDef) -> list[str]:
    """The annotated attributes a class defines itself."""
    return [
        n.target.id
        for n in node.body
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
    ]


def measure(root: Path) -> list[str]:
    """The report's lines for the checkout at ``root``."""
    files: dict[str, int] = {}
    lines: dict[str, int] = {}
    everything: list[Function] = []
    face_classes: list[tuple[str, ast.ClassDef]] = []
    protocols: dict[str, int] = {}
    class_by_name: dict[str, ast.ClassDef] = {}
    for path in product_files(root):
        relative = path.relative_to(root).as_posix()
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        layer = layer_of(relative)
        files[layer] = files.get(layer, 0) + 1
        lines[layer] = lines.get(layer, 0) + len(source.splitlines())
        everything.extend(functions(tree, relative))
        for node in classes(tree):
            class_by_name.setdefault(node.name, node)
            bases = base_names(node)
            if relative.startswith(FACES):
                face_classes.append((relative, node))
            if relative == "toolkit/store/base.py" and "Protocol" in bases:
                protocols[node.name] = len(methods(node))
    face_models = [
        f"{relative}:{node.name}"
        for relative, node in face_classes
        if derives(node, "BaseModel", class_by_name)
    ]
    out = [f"house: {root}"]
    for layer in ("faces", "workspace", "features", "core"):
        out.append(f"  {layer:<10} {files.get(layer, 0):>4} files {lines.get(layer, 0):>7,} lines")
    out.append(f"  {'all':<10} {sum(files.values()):>4} files {sum(lines.values()):>7,} lines")
    out.append(f"largest functions (of {len(everything):,}):")
    for function in sorted(everything, key=lambda f: -f.lines)[:LARGEST]:
        out.append(f"  {function.lines:>4} lines  {function.path}:{function.name}")
    out.append(f"pydantic models defined in a face: {len(face_models)}")
    out.extend(f"  {name}" for name in face_models)
    if protocols:
        largest = max(protocols.items(), key=lambda item: item[1])
        out.append(
            f"store protocols: {len(protocols)}, the largest {largest[0]} "
            f"with {largest[1]} methods of its own"
        )
    settings = class_by_name.get("Settings")
    if settings is not None:
        out.append(f"Settings: {len(fields(settings))} fields at its top")
    workspace = class_by_name.get("Workspace")
    if workspace is not None:
        inherited = [class_by_name[b] for b in base_names(workspace) if b in class_by_name]
        verbs = len(methods(workspace)) + sum(len(methods(base)) for base in inherited)
        out.append(
            f"Workspace: {verbs} public methods, in itself and {len(inherited)} parts it inherits"
        )
    return out


def floors(root: Path) -> list[list[str]]:
    """The layers of the import-linter ``layers`` contract (``pyproject.toml``), top first,
    each as the packages it names."""
    import tomllib

    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    layers = next(c["layers"] for c in contracts if c["type"] == "layers")
    return [[n.strip() for n in layer.replace(":", "|").split("|")] for layer in layers]


def package_of(module: str, rows: set[str]) -> str | None:
    """The package a dotted module name belongs to: a face's top name, ``toolkit.<x>``
    where that is a row of its own, else ``toolkit`` (the core's modules at the top);
    ``None`` outside the product."""
    parts = module.split(".")
    if parts[0] in ("cli", "service", "mcp_face", "app_pages", "app_streamlit"):
        return parts[0]
    if parts[0] != "toolkit":
        return None
    below = ".".join(parts[:2])
    return below if below in rows else "toolkit"


def rows_of(root: Path) -> set[str]:
    """The toolkit's packages with a row of their own: each a contract names that is a
    folder, or a module on a floor above the core."""
    layers = floors(root)
    core = set(layers[-1])
    return {
        name
        for layer in layers
        for name in layer
        if name.startswith("toolkit.")
        and ((root / "toolkit" / name.split(".")[1]).is_dir() or name not in core)
    }


def imported(tree: ast.AST) -> Iterator[str]:
    """The absolute module names a parsed module imports (``from a import b``: ``a.b`` too,
    for ``b`` may be a module)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def package_graph(root: Path) -> dict[str, tuple[int, set[str]]]:
    """Per package of the product: its modules and the packages it imports
    (``toolkit/__init__.py``, which only hands names on when first used, is left out)."""
    rows = rows_of(root)
    graph: dict[str, tuple[int, set[str]]] = {}
    for path in product_files(root):
        relative = path.relative_to(root).as_posix()
        own = package_of(relative.removesuffix(".py").replace("/", "."), rows)
        if own is None or relative == "toolkit/__init__.py":
            continue
        count, arrows = graph.get(own, (0, set()))
        for name in imported(ast.parse(path.read_text(encoding="utf-8"))):
            target = package_of(name, rows)
            if target is not None and target != own:
                arrows.add(target)
        graph[own] = (count + 1, arrows)
    return graph


def graph_lines(root: Path) -> list[str]:
    """The import graph as a Markdown table: the contract's layers top first, each
    package with its modules and what it imports."""
    graph = package_graph(root)
    out = ["| floor | package | modules | imports |", "|---|---|---|---|"]
    layers = floors(root)
    for number, layer in enumerate(layers):
        names = ["toolkit", *layer] if number == len(layers) - 1 else layer
        for name in names:
            if name in graph:
                count, arrows = graph[name]
                targets = ", ".join(f"`{a}`" for a in sorted(arrows)) or "—"
                out.append(f"| {len(layers) - number} | `{name}` | {count} | {targets} |")
    return out


def main(argv: list[str]) -> int:
    """Print the report (``--graph``: the import graph) for the checkout named in ``argv``
    (this one by default)."""
    graph = "--graph" in argv
    argv = [a for a in argv if a != "--graph"]
    root = Path(argv[0]).resolve() if argv else Path(__file__).resolve().parent.parent
    print("\n".join(graph_lines(root) if graph else measure(root)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
