"""Each preset's reference heuristic is read from one record, with a clear error for a
record that is not one and for a table size it does not cover."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from uno_env.evaluation.references import reference_heuristics, reference_of

PUBLISHED = Path(__file__).resolve().parents[1] / "docs" / "results" / "reference-heuristics.json"


def test_the_published_record_names_the_best_heuristic_of_each_preset() -> None:
    found = reference_heuristics(PUBLISHED)
    assert reference_of("no_mercy", 2, PUBLISHED) == "tuned:preset=no_mercy"
    assert reference_of("official", 2, PUBLISHED) == "tuned"
    assert ("teams", 4) in found and ("teams", 2) not in found


@pytest.mark.parametrize("text", ["{cut", "[]", '{"cells": [{"preset": "official"}]}',
                                  '{"cells": [{"preset": 1, "players": 2, "reference": "x"}]}'])
def test_a_record_that_is_not_one_is_named(tmp_path: Path, text: str) -> None:
    path = tmp_path / "ref.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=f"reference heuristics '{path}'"):
        reference_heuristics(path)


def test_a_table_size_the_record_lacks_is_named(tmp_path: Path) -> None:
    path = tmp_path / "ref.json"
    path.write_text(json.dumps({"cells": [{"preset": "official", "players": 2,
                                           "reference": "greedy"}]}))
    assert reference_of("official", 2, path) == "greedy"
    with pytest.raises(ValueError, match="name none for 'official' at 4 players .*official 2p"):
        reference_of("official", 4, path)
