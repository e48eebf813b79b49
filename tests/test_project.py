"""The repository stands on its own and speaks with one voice.

The rules book (``docs/rules.md``) documents every option and preset of the
code; nothing refers to a rules or design file outside the repository; the
environment ids have one spelling; nothing imports the agents folder by its name
(``uno_env`` never imports the agents at all: tests/test_layers.py).
"""

from __future__ import annotations

import ast
import re
import subprocess
from dataclasses import fields
from pathlib import Path

import pytest

from uno_env.rules import CHOICES, PRESET_SOURCES, PRESETS, Rules

ROOT = Path(__file__).resolve().parent.parent
RULES_BOOK = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
#: Section 3 (options) and section 4 (presets) of the rules book.
OPTIONS_PART, _, PRESETS_PART = RULES_BOOK.partition("\n## 4. Presets")
TEXT_SUFFIXES = {".py", ".md", ".toml", ".txt", ".cfg", ".ipynb", ".yml", ".yaml", ""}


def _project_file(rel: Path) -> bool:
    """Files of the project, not caches, virtual environments or build output."""
    return not any((part.startswith(".") and part != ".ci") or part == "__pycache__"
                   or part.endswith("egg-info") or part in ("build", "dist")
                   for part in rel.parts)


def _candidates() -> list[Path]:
    """The files git would commit (tracked, or new and not ignored: run outputs are
    left out), or every file where there is no git checkout."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                                 "--exclude-standard"], cwd=ROOT, capture_output=True,
                                check=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return list(ROOT.rglob("*"))
    return [ROOT / name for name in listed.decode().split("\0") if name]


def _text_files() -> list[Path]:
    return [path for path in _candidates()
            if path.is_file() and path.suffix in TEXT_SUFFIXES and path != Path(__file__)
            and _project_file(path.relative_to(ROOT))]


FILES = {path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8", errors="replace")
         for path in _text_files()}


def literal(value: object) -> str:
    """How the rules book writes an option value."""
    return f'"{value}"' if isinstance(value, str) else repr(value)


def option_row(name: str) -> str:
    rows = [line for line in OPTIONS_PART.splitlines() if line.startswith(f"| `{name}` |")
            and line.split("|")[2].strip().startswith("`")]   # the tables of values
    assert len(rows) == 1, f"docs/rules.md needs exactly one table row for option {name}"
    return rows[0]


@pytest.mark.parametrize("name", [f.name for f in fields(Rules)])
def test_rules_book_lists_every_option_with_its_default_first(name):
    row = option_row(name)
    values = row.split("|")[2]
    default = literal(getattr(Rules(), name))
    assert values.strip().startswith(f"`{default}`"), (
        f"docs/rules.md: option {name} must list its default {default} first")
    for choice in CHOICES.get(name, ()):
        assert f"`{literal(choice)}`" in values, f"docs/rules.md: {name} lacks the value {choice}"


@pytest.mark.parametrize("preset", list(PRESETS))
def test_rules_book_lists_every_preset_with_its_source_and_options(preset):
    rows = [line for line in PRESETS_PART.splitlines() if line.startswith(f"| `{preset}` |")]
    assert len(rows) == 1, f"docs/rules.md needs exactly one table row for preset {preset}"
    assert PRESET_SOURCES[preset] in rows[0]
    for option, value in Rules.preset(preset).differences().items():
        assert f"`{option}={literal(value)}`" in rows[0], (
            f"docs/rules.md: preset {preset} row lacks {option}={literal(value)}")


def test_nothing_refers_to_files_outside_the_repository():
    outside = re.compile(r"RULES\.md|DESIGN\.md|\.\./shared|/work/|/home/|/tmp/")
    found = [f"{name}:{i}: {line.strip()}" for name, text in FILES.items()
             for i, line in enumerate(text.splitlines(), 1) if outside.search(line)]
    assert not found, "references outside the repository:\n" + "\n".join(found)


#: The two environment ids (Gymnasium, PettingZoo); bare ``uno_vN`` names a PettingZoo env.
ENV_IDS = {"uno_env/" + "Uno-v0", "uno_env/" + "uno_v0"}


def test_env_ids_have_one_spelling():
    spelled = re.compile(r"(?:[\w.-]*/)?uno[-_ ]?v\d+", re.IGNORECASE)
    found = [f"{name}: {m.group()}" for name, text in FILES.items()
             for m in spelled.finditer(text)
             if m.group() not in ENV_IDS and not re.fullmatch(r"uno_v\d+", m.group())]
    assert not found, "other spellings of the env ids:\n" + "\n".join(found)


def _imports(tree: ast.Module) -> list[str]:
    """Every module an import statement names, at any level (inside functions too)."""
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return names


def _names_package(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


#: Code importing the folder name (importable by accident from the repository's root,
#: a module of another distribution once installed): ``from agents...``,
#: ``import agents``, entry points ``"agents:..."`` / ``"agents.x:..."``.
FOLDER_IMPORT = re.compile(r"""^[ \t]*"?(?:from[ \t]+agents[ \t.]|import[ \t]+agents\b)"""
                           r"""|["'`]agents(?:\.\w+)*:\w""", re.MULTILINE)


def test_nothing_imports_the_agents_folder_by_its_name():
    """The folder ``agents/`` installs as ``uno_agents`` (pyproject.toml): code, notebooks
    and documentation import ``uno_agents``, never ``agents``."""
    found = [f"{name}:{text[:m.start()].count(chr(10)) + 1}: {m.group().strip()}"
             for name, text in FILES.items() for m in FOLDER_IMPORT.finditer(text)]
    for name, text in FILES.items():
        if name.endswith(".py"):
            found += [f"{name}: import {n}" for n in _imports(ast.parse(text, name))
                      if _names_package(n, "agents")]
    assert not found, "imports of agents instead of uno_agents:\n" + "\n".join(found)


def test_experiments_are_scripts_over_the_library():
    """No experiment edits sys.path or imports another experiment: shared code lives in
    uno_env or uno_agents."""
    scripts = sorted((ROOT / "experiments").glob("*.py"))
    names = {p.stem for p in scripts}
    for path in scripts:
        text = path.read_text(encoding="utf-8")
        assert "sys.path" not in text, f"{path.name} edits sys.path"
        imported = {n.split(".")[0] for n in _imports(ast.parse(text))}
        assert not imported & names, f"{path.name} imports {sorted(imported & names)}"
