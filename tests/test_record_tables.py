"""Tables on a documentation page drawn from a record are exactly what the record holds:
every record block of every page is what its record gives today."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from uno_env.tooling.record_tables import main, refresh

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(p for p in DOCS.glob("*.md") if "<!-- record: " in p.read_text())


def test_the_benchmark_page_draws_its_tables_from_records() -> None:
    assert DOCS / "benchmarks.md" in PAGES


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_record_block_of_a_page_is_its_record_today(page: Path) -> None:
    assert refresh(page) == page.read_text()


def write_page(tmp_path: Path, block: str) -> Path:
    (tmp_path / "r.json").write_text(json.dumps({
        "command": "python bench.py", "commit": "abc", "date": "2026-11-27",
        "machine": {"cpu": "CPU", "cores": 2, "backend": "numba", "load": "0.5"},
        "tables": [{"title": "first", "header": ["a", "b"], "rows": [["1", "2|3"]]},
                   {"title": "second", "header": ["c"], "rows": [["4"]]}]}))
    page = tmp_path / "page.md"
    page.write_text(f"# Page\n\n{block}\nold\n<!-- /record -->\n\nafter\n")
    return page


def test_a_block_is_rewritten_from_its_record_and_the_rest_kept(tmp_path: Path) -> None:
    page = write_page(tmp_path, "<!-- record: r.json tables=1 -->")
    assert main([str(page)]) == 0
    text = page.read_text()
    assert text.startswith("# Page\n\n<!-- record: r.json tables=1 -->\n*second*\n")
    assert "| c |\n|---|\n| 4 |" in text and "first" not in text and "old" not in text
    assert "`python bench.py`, commit abc" in text and text.endswith("<!-- /record -->\n\nafter\n")
    page.write_text(text.replace(" tables=1", ""))
    assert "| 1 | 2\\|3 |" in refresh(page)        # every table, a bar in a cell escaped


def test_a_table_the_record_lacks_is_named(tmp_path: Path, capsys) -> None:
    page = write_page(tmp_path, "<!-- record: r.json tables=5 -->")
    before = page.read_text()
    assert main([str(page)]) == 1
    assert "the record block of 'r.json' cannot be drawn" in capsys.readouterr().err
    assert page.read_text() == before
