"""No module of ``uno_env`` imports itself back: the import graph has no circle.

Every import statement counts, at any level (inside functions and ``TYPE_CHECKING``
blocks too): a module that needs another one's names sits above it, never beside
it. ``from package import name`` counts as an import of the submodule ``name`` when
there is one, else of the package; a package's own ``__init__`` run on the way to a
submodule does not count.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "uno_env"


def modules(root: Path) -> dict[str, tuple[Path, list[str]]]:
    """Each module under ``root`` by dotted name, with its file and the package its
    relative imports start from."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
            found[".".join(parts)] = (path, parts)
        else:
            found[".".join(parts)] = (path, parts[:-1])
    return found


def _known(name: str, known: dict) -> str | None:
    """``name`` or the closest enclosing module of it that is one of ``known``."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def import_graph(root: Path) -> dict[str, set[str]]:
    """Each module under ``root`` and the modules under ``root`` it imports."""
    known = modules(root)
    graph: dict[str, set[str]] = {}
    for name, (path, package) in known.items():
        edges = graph.setdefault(name, set())
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package[:len(package) - node.level + 1] if node.level else []
                module = ".".join(base + ([node.module] if node.module else []))
                targets = [f"{module}.{alias.name}" if f"{module}.{alias.name}" in known
                           else module for alias in node.names]
            else:
                continue
            edges.update(t for t in (_known(t, known) for t in targets) if t not in (None, name))
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of ``graph`` (its modules, the first repeated at the end), or None."""
    state: dict[str, int] = {}        # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
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


def test_uno_env_has_no_import_circle():
    graph = import_graph(PACKAGE)
    assert len(graph) > 50 and graph["uno_env.engine.core"]   # the package was read
    cycle = find_cycle(graph)
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


@pytest.mark.parametrize("code", [
    {"a.py": "def f():\n    from .b import x\n", "b.py": "from . import a\n"},
    {"a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import x\n",
     "b.py": "import pkg.a\n"},
    {"sub/__init__.py": "", "sub/c.py": "from ..a import y\n",
     "a.py": "from .sub import c\n"},
])
def test_a_circle_at_any_level_is_found(tmp_path, code):
    root = tmp_path / "pkg"
    for name, text in {"__init__.py": "", **code}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    assert find_cycle(import_graph(root)) is not None


def test_imports_in_one_direction_are_no_circle(tmp_path):
    root = tmp_path / "pkg"
    root.mkdir()
    (root / "__init__.py").write_text("from .b import x\n")
    (root / "a.py").write_text("from . import b\nfrom .b import x\n")
    (root / "b.py").write_text("import numpy\nx = 1\n")
    assert import_graph(root)["pkg.a"] == {"pkg.b"}
    assert find_cycle(import_graph(root)) is None
