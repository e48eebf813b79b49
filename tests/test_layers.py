"""The package's layers (docs/architecture.md) import one way, and moved modules keep
their former import paths.

Every import of every module of ``uno_env`` is read from its source (``ast``: at any
level, inside functions and ``TYPE_CHECKING`` blocks included, relative ones resolved)
and checked against :data:`MAY_IMPORT`; ``uno_env`` never imports the agents package.
"""

from __future__ import annotations

import ast
import functools
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from uno_env._aliases import MOVED

ROOT = Path(__file__).resolve().parent.parent

#: The layer of each module or subpackage (a subpackage's modules share its layer).
LAYER_OF = {
    "uno_env": "package",
    "uno_env._aliases": "package",
    "uno_env.cards": "data",
    "uno_env.actions": "data",
    "uno_env.rules": "data",
    "uno_env.checks": "data",
    "uno_env.engine": "engine",
    "uno_env.agent_registry": "base",
    "uno_env.compact": "base",
    "uno_env.deals": "base",
    "uno_env.files": "base",
    "uno_env.random_actions": "base",
    "uno_env.records": "base",
    "uno_env.extras": "base",
    "uno_env.tooling": "tooling",
    "uno_env.envs": "envs",
    "uno_env.evaluation": "evaluation",
    "uno_env.cli": "command",
    "uno_env.launch": "command",
    "uno_env.__main__": "command",
    "uno_env.web": "command",
}

#: What each layer may import (its own layer included); docs/architecture.md draws it.
MAY_IMPORT = {
    "data": {"data"},
    "engine": {"data", "engine"},
    "base": {"data", "engine", "base"},
    "tooling": {"data", "engine", "base", "tooling"},
    "envs": {"data", "engine", "base", "envs"},
    "evaluation": {"data", "engine", "base", "tooling", "evaluation"},
    "command": {"data", "engine", "base", "tooling", "envs", "evaluation", "command"},
    "package": {"data", "engine", "envs", "package"},
}

AGENTS = ("uno_agents", "agents")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _owner(name: str) -> str | None:
    """The entry of :data:`LAYER_OF` a dotted name (a module, or a name inside one)
    falls under; None outside uno_env."""
    parts = name.split(".")
    while parts and ".".join(parts) not in LAYER_OF:
        parts.pop()
    return ".".join(parts) or None


def _layer(name: str) -> str | None:
    owner = _owner(name)
    return LAYER_OF[owner] if owner else None


@functools.cache
def _imports(path: Path) -> list[tuple[int, str, str]]:
    """``(line, module, name)`` for every import in ``path``, relative ones made absolute:
    ``from a.b import c`` gives ``("a.b", "a.b.c")``, ``import a.b`` gives ``("a.b", "a.b")``."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            source = node.module or ""
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            found += [(node.lineno, source, f"{source}.{a.name}") for a in node.names]
    return found


def _exists(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


PACKAGE = sorted((ROOT / "uno_env").rglob("*.py"))


def test_every_module_has_a_layer():
    loose = [_module_name(p) for p in PACKAGE if _owner(_module_name(p)) == "uno_env"
             and _module_name(p) != "uno_env"]
    assert not loose, f"modules without a layer (add them to LAYER_OF and the docs): {loose}"


def test_layers_import_one_way():
    wrong = []
    for path in PACKAGE:
        layer = _layer(_module_name(path))
        for line, _, name in _imports(path):
            target = _layer(name)
            if target is not None and target not in MAY_IMPORT[layer]:
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {layer} imports {name} ({target})")
    assert not wrong, "imports against the layers (docs/architecture.md):\n" + "\n".join(wrong)


def test_uno_env_never_imports_the_agents_package():
    """The agents build on the environment; uno_env names agent factories by entry-point
    strings (uno_env.agent_registry), never by an import."""
    found = [f"{path.relative_to(ROOT)}:{line}: {source}" for path in PACKAGE
             for line, source, _ in _imports(path)
             if any(source == p or source.startswith(p + ".") for p in AGENTS)]
    assert not found, f"uno_env imports the agents package: {found}"


def _code_files() -> list[Path]:
    folders = ("uno_env", "agents", "experiments", "tests", "docs")
    return [p for folder in folders for p in sorted((ROOT / folder).rglob("*.py"))
            if "__pycache__" not in p.parts]


def test_the_project_imports_modules_where_they_are():
    """Former paths are for code outside the project: inside it every import names the
    module where it is now (the notebooks' code cells included)."""
    stale = [f"{path.relative_to(ROOT)}:{line}: {name}" for path in _code_files()
             for line, source, name in _imports(path)
             if source.startswith("uno_env") and (source in MOVED or name in MOVED
                                                  or not _exists(source))]
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "code":
                for node in ast.walk(ast.parse("".join(cell["source"]))):
                    if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("uno"):
                        names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
                        stale += [f"{notebook.name}: {n}" for n in names if n in MOVED]
    assert not stale, f"imports of former module paths: {stale}"


#: Checked where their library is loaded anyway (Ray takes seconds): test_rllib_env.py.
ELSEWHERE = {"uno_env.rllib_env"}


def assert_moved(old: str) -> None:
    """``old`` imports the module at its new path: the same object, every public name."""
    new = MOVED[old]
    try:
        moved = importlib.import_module(new)
    except ImportError:   # an optional dependency is missing: the former path says the same
        with pytest.raises(ImportError):
            importlib.import_module(old)
        return
    assert not _exists(old), f"{old} is a file again: it would hide the moved {new}"
    assert importlib.import_module(old) is moved
    assert sys.modules[old] is moved
    assert moved.__name__ == new and moved.__spec__.name == new
    public = [n for n in vars(moved) if not n.startswith("_")]
    assert public
    namespace: dict[str, object] = {}
    exec(f"from {old} import {', '.join(public)}", namespace)
    assert all(namespace[n] is getattr(moved, n) for n in public)


@pytest.mark.parametrize("old", sorted(set(MOVED) - ELSEWHERE))
def test_a_former_path_imports_the_moved_module(old):
    assert_moved(old)


def test_the_former_paths_load_only_when_named():
    """``import uno_env`` loads none of the evaluation or tooling modules (nor the batched
    and RLlib environments); the former attribute ``uno_env.tournament`` imports its
    module on first use."""
    code = ("import sys, uno_env\n"
            "print(sorted(m for m in sys.modules if m.startswith(('uno_env.evaluation',"
            " 'uno_env.tooling', 'uno_env.envs.vector', 'uno_env.envs.rllib_env'))))\n"
            "import uno_env.evaluation.tournament as t\n"
            "print(uno_env.tournament is t)\n")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["[]", "True"]


def test_the_package_still_exports_its_names():
    import uno_env
    from uno_env.envs.pettingzoo_env import env, raw_env
    from uno_env.files import write_atomic

    assert uno_env.env is env and uno_env.raw_env is raw_env
    assert importlib.import_module("uno_env.tournament_report").write_atomic is write_atomic
    assert not hasattr(uno_env, "tournamnet")
