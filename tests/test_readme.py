"""Every Python example of the README runs as written and shows what it says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from example_checks import run_example

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_example_runs(code: str) -> None:
    run_example(code, "README.md")


def test_readme_fits_a_few_screens() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 200


def test_readme_links_resolve() -> None:
    text = README.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    missing = [t for t in targets if not t.startswith("http") and not (README.parent / t).exists()]
    assert missing == []
