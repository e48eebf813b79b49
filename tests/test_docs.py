"""The observation and action docs are generated from the code and must stay current."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from example_checks import run_example

from uno_env import ACTION_NAMES, PRESETS, Rules
from uno_env.engine.observe import OBS_SIZE, VIEW_SLICES, VIEWS, rules_vector

ROOT = Path(__file__).resolve().parent.parent


def _load_gen_docs():
    spec = importlib.util.spec_from_file_location("gen_docs", ROOT / "docs" / "gen_docs.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_docs", module)
    spec.loader.exec_module(module)
    return module


gen_docs = _load_gen_docs()


@pytest.mark.parametrize("name", ["observation.md", "actions.md"])
def test_docs_are_current(name):
    path = ROOT / "docs" / name
    expected = gen_docs.generated()[path]
    assert path.exists(), f"docs/{name} is missing: run python docs/gen_docs.py"
    assert path.read_text(encoding="utf-8") == expected, (
        f"docs/{name} is out of date: run python docs/gen_docs.py")


def test_every_view_and_action_is_documented():
    observation = gen_docs.observation_md()
    for name, size, _ in VIEWS:
        assert f"| `{name}` | {VIEW_SLICES[name].start} | {size} |" in observation
    assert f"**{OBS_SIZE}**" in observation
    actions = gen_docs.actions_md()
    for a, name in enumerate(ACTION_NAMES):
        assert f"| {a} | `{name}` |" in actions
    for text in (observation, actions):
        assert "## Version history" in text
        assert "v0" in text


@pytest.mark.parametrize("preset", list(PRESETS))
def test_rules_view_labels_match_rules_vector(preset):
    rules = Rules.preset(preset)
    vec = rules_vector(rules)
    for i, (element, _) in enumerate(gen_docs._rules_elements()):
        option, _, value = element.partition("=")
        current = getattr(rules, option)
        if value:
            assert vec[i] == float(str(current) == value), element
        elif isinstance(current, bool):
            assert vec[i] == float(current), element


def test_check_mode_reports_current_docs():
    assert gen_docs.main(["--check"]) == 0


def test_docs_build_strictly(tmp_path):
    """The documentation site with its API reference builds with zero warnings (any
    broken link, missing page or docstring the reference cannot read fails it)."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
         str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert result.returncode == 0, result.stdout + result.stderr
    site = tmp_path / "site"
    assert (site / "api" / "engine.html").exists()
    titles = {page: re.search(r"<title>(.*?) - uno-env", (site / page).read_text(
        encoding="utf-8")).group(1) for page in ("results.html", "results/index.html")}
    assert titles == {"results.html": "Training results", "results/index.html": "Result records"}


def test_every_docs_page_is_in_the_site():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = sorted(p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md"))
    assert [p for p in pages if p not in nav] == []


def _examples() -> list[tuple[str, str]]:
    """Every ```python block of the docs pages (```py blocks are shown, not run)."""
    out = []
    for page in sorted((ROOT / "docs").glob("*.md")):
        blocks = re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
        out += [(f"{page.stem}-{i}", code) for i, code in enumerate(blocks)]
    return out


@pytest.mark.parametrize(("name", "code"), _examples(), ids=[i for i, _ in _examples()])
def test_docs_example_runs(name, code):
    run_example(code, f"docs example {name}")
