"""Shipped models by file hash: the catalogue, card headlines, ``uno-env models``, and the
leaderboard's join of exploit rows to models by the SHA-256 of their files."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("torch")

from uno_agents import catalogue, make_agent
from uno_agents.files import MODELS_DIR
from uno_env.cli import main as cli_main
from uno_env.evaluation import leaderboard


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_every_shipped_model_is_listed_with_its_file_hash() -> None:
    models = {m["spec"]: m for m in catalogue.shipped_models()}
    files = {p.name for p in MODELS_DIR.iterdir()
             if p.suffix in (".safetensors", ".pt") and "." not in p.name.split(".")[0]}
    assert {m["file"] for m in models.values()} == files
    two = models["net:official-2p"]
    assert two["sha256"] == _digest(MODELS_DIR / "official-2p.safetensors")
    assert any("vs tuned (2p" in line for line in two["headline"])


def test_every_shipped_model_shows_a_headline_measured_on_its_own_file() -> None:
    """A model without a current headline was changed after it was measured, or shipped
    without a measurement: neither may ship."""
    for model in catalogue.shipped_models():
        assert model["headline"], model["spec"]
        card = catalogue.read_card(MODELS_DIR / model["file"])
        assert any(card.get(k) for k in ("recipe", "what", "command", "commands")), model["spec"]


@pytest.mark.parametrize(("preset", "players"), [
    ("draw_return", 2), ("no_mercy", 2), ("house_dobon", 2), ("draw_return", 4),
    ("no_mercy", 4)])
def test_each_preset_network_beats_that_presets_reference_on_its_card(preset: str,
                                                                     players: int) -> None:
    """The networks of the other presets: each card's headline is against the preset's
    reference heuristic at its table size (docs/results/reference-heuristics.json), its
    interval above the fair share, over 20,000 games heads-up and 40,000 at 4 players."""
    record = json.loads((MODELS_DIR.parents[1] / "docs" / "results" /
                         "reference-heuristics.json").read_text())
    reference = next(c["reference"] for c in record["cells"]
                     if (c["preset"], c["players"]) == (preset, players))
    path = MODELS_DIR / f"{preset}-{players}p.safetensors"
    rows = catalogue.current_headlines(path)
    row = next(r for r in rows if r["opponent"] == reference)
    assert row["players"] == players and row["games"] >= 10_000 * players
    assert row["low"] > 1 / players


def test_agents_with_a_model_name_their_file_and_heuristics_none() -> None:
    net = make_agent("net:official-2p")
    assert catalogue.model_file(net) == MODELS_DIR / "official-2p.safetensors"
    assert catalogue.model_hash(net) == _digest(MODELS_DIR / "official-2p.safetensors")
    assert catalogue.model_file(make_agent("tuned")) is None


def test_a_headline_of_another_file_is_not_shown(tmp_path: Path) -> None:
    model = tmp_path / "copy.safetensors"
    shutil.copy(MODELS_DIR / "official-2p.safetensors", model)
    card = json.loads((MODELS_DIR / "official-2p.json").read_text())
    (tmp_path / "copy.json").write_text(json.dumps(card))
    assert catalogue.current_headlines(model)
    model.write_bytes(model.read_bytes() + b" ")          # another version of the file
    assert catalogue.current_headlines(model) == []


def test_write_headlines_copies_rows_into_the_card_of_the_measured_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copy(MODELS_DIR / "official-2p.safetensors", tmp_path)
    (tmp_path / "official-2p.json").write_text(json.dumps({"recipe": "r"}))
    monkeypatch.setattr(catalogue, "MODELS_DIR", tmp_path)
    row = {"agent": "net:official-2p", "opponent": "tuned", "players": 2, "win_rate": 0.6,
           "low": 0.55, "high": 0.65, "deals": 10, "games": 20,
           "file": "official-2p.safetensors",
           "sha256": _digest(tmp_path / "official-2p.safetensors")}
    stale = {**row, "opponent": "greedy", "sha256": "0" * 64}
    record = {"command": "c", "commit": "abc", "deals": {"namespace": "evaluation"},
              "rows": [row, stale]}
    assert catalogue.write_headlines(record, "rec.json") == [tmp_path / "official-2p.json"]
    card = json.loads((tmp_path / "official-2p.json").read_text())
    assert card["recipe"] == "r"
    assert [(h["opponent"], h["record"]) for h in card["headline"]] == [("tuned", "rec.json")]
    assert catalogue.headline_text(card["headline"][0]) == \
        "60.0% [55.0%, 65.0%] vs tuned (2p, 20 games)"


def test_uno_env_models_lists_every_spec(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["models", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {m["spec"] for m in listed} == {m["spec"] for m in catalogue.shipped_models()}
    assert "net:official-4p" in {m["spec"] for m in listed}


def test_exploit_rows_join_models_by_file_hash_and_heuristics_by_name(tmp_path: Path) -> None:
    record = {"command": "x", "players": 2, "rows": [
        {"target": "net:official-2p", "target_sha256": "a" * 64,
         "exploiter": {"win_rate": 0.52}},
        {"target": "tuned", "target_sha256": None, "exploiter": {"win_rate": 0.51}}]}
    path = tmp_path / "exploit.json"
    path.write_text(json.dumps(record))
    found = leaderboard.exploitability(path)
    assert set(found) == {f"2:sha256:{'a' * 64}", "2:tuned"}
    same = SimpleNamespace(model_file=None)
    hashes = leaderboard.file_hashes([same, make_agent("net:official-2p")],
                                     ["tuned", "net:official-2p"])
    assert set(hashes) == {"net:official-2p"}
    key = leaderboard.exploit_key(2, "net:official-2p", hashes["net:official-2p"])
    assert key not in found                     # the row was measured on another file
    assert leaderboard.exploit_key(2, "tuned", None) in found


def test_the_published_exploit_records_name_the_files_they_measured() -> None:
    root = Path(__file__).resolve().parent.parent
    found = leaderboard.exploitability(*(root / p for p in leaderboard.EXPLOIT_RECORDS))
    digest = _digest(MODELS_DIR / "official-4p.safetensors")
    assert f"4:sha256:{digest}" in found


@pytest.mark.parametrize("folder", ["exploit-search", "exploit-ppo", "exploit-probes"])
def test_the_best_response_records_name_the_shipped_files_they_measured(folder: str) -> None:
    """Every target of a shipped network's record is a shipped model, by the hash of its
    file; the probes also name agents without a file (heuristics), with no hash."""
    records = sorted((MODELS_DIR.parents[1] / "docs" / "results" / folder).glob("*.json"))
    assert records
    shipped = {m["spec"]: m["sha256"] for m in catalogue.shipped_models()}
    for path in records:
        for row in json.loads(path.read_text())["rows"]:
            expected = (shipped.get(row["target"]) if folder == "exploit-probes"
                        else shipped[row["target"]])
            assert row["target_sha256"] == expected, path.name
            response = row.get("search") or row["exploiter"]
            gain = (row.get("search") or row)["gain"]
            assert response["low"] <= response["win_rate"] <= response["high"]
            assert gain["low"] <= gain["mean"] <= gain["high"]
