"""The canonical leaderboard: a tiny run writes its page and record, resumes where it
stopped with the same numbers, and never overwrites the published page by default."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from uno_env.cli import main
from uno_env.evaluation import leaderboard

TINY = replace(leaderboard.TINY, agents_2p=("random", "greedy", "tuned"),
                           agents_4p=("random", "greedy", "tuned", "random_play"),
                           rating_rounds=10)


def test_a_tiny_leaderboard_writes_its_page_and_record(tmp_path: Path) -> None:
    md, record = tmp_path / "board.md", tmp_path / "board.json"
    out = leaderboard.run(TINY, md, record, "uno-env leaderboard --tiny", say=lambda _: None)
    page = md.read_text()
    assert "smoke run" in page and "## Heads-up" in page and "## 4 players" in page
    assert "`uno-env leaderboard --tiny`" in page and "load average" in page
    data = json.loads(record.read_text())
    assert data == json.loads(json.dumps(out))
    heads_up, four = data["tables"]
    assert heads_up["rating"] == "elo" and four["rating"] == "openskill"
    assert heads_up["games"] == 6 * TINY.deals_2p and four["games"] == 4 * TINY.deals_4p
    for table in data["tables"]:
        rows = {r["agent"]: r for r in table["rows"]}
        assert "rating_vs_reference" not in rows["tuned"]
        assert all(r["low"] <= r["high"] for r in rows.values())
        assert all(r["decisions_per_second"] > 0 for r in rows.values())
    assert not list(tmp_path.glob(".*progress*"))        # progress removed at the end


def test_a_stopped_leaderboard_resumes_with_the_same_numbers(tmp_path: Path,
                                                             monkeypatch) -> None:
    whole = leaderboard.run(TINY, tmp_path / "a.md", tmp_path / "a.json", "x",
                            say=lambda _: None)
    monkeypatch.setattr(leaderboard, "PIECE_GAMES", 2)       # several pieces per table
    real = leaderboard._play_piece
    calls = []

    def stop_after_three(*args: object):
        calls.append(1)
        if len(calls) > 3:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(leaderboard, "_play_piece", stop_after_three)
    with pytest.raises(KeyboardInterrupt):
        leaderboard.run(TINY, tmp_path / "b.md", tmp_path / "b.json", "x", say=lambda _: None)
    assert not (tmp_path / "b.json").exists() and list(tmp_path.glob(".b-2p.progress.npz"))
    monkeypatch.setattr(leaderboard, "_play_piece", real)
    said: list[str] = []
    again = leaderboard.run(TINY, tmp_path / "b.md", tmp_path / "b.json", "x", resume=True,
                            say=said.append)
    assert any("3 of 6 pieces to play" in s for s in said)
    for a, b in zip(whole["tables"], again["tables"], strict=True):
        assert json.dumps(a["tournament"]["results"]) == json.dumps(b["tournament"]["results"])
        assert [r["rating"] for r in a["rows"]] == [r["rating"] for r in b["rows"]]


def test_the_cli_tiny_mode_writes_elsewhere(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(leaderboard, "TINY", TINY)
    assert main(["leaderboard", "--tiny", "--deals-4p", "1"]) == 0
    assert (tmp_path / leaderboard.TINY_OUT / "leaderboard.md").exists()
    assert not (tmp_path / "docs").exists()


def test_a_bad_agent_or_output_fails_before_any_game(tmp_path: Path) -> None:
    bad = replace(TINY, agents_4p=("random", "greedy", "tuned", "nobody"))
    with pytest.raises(ValueError, match="nobody"):
        leaderboard.run(bad, tmp_path / "a.md", tmp_path / "a.json", "x", say=lambda _: None)
    with pytest.raises(ValueError, match="does not exist"):
        leaderboard.run(TINY, tmp_path / "no" / "a.md", tmp_path / "a.json", "x")
    assert list(tmp_path.iterdir()) == []


def test_exploitability_merges_the_probe_of_each_table_size(tmp_path: Path) -> None:
    def probe(players: int, target: str, rate: float) -> Path:
        path = tmp_path / f"exploit-{players}p.json"
        row = {"target": target, "exploiter": {"win_rate": rate, "low": rate - 0.01,
                                               "high": rate + 0.01}}
        path.write_text(json.dumps({"command": f"exploit {players}", "players": players,
                                    "rows": [row]}))
        return path

    found = leaderboard.exploitability(probe(2, "tuned", 0.52), probe(4, "tuned", 0.27),
                                       tmp_path / "missing.json")
    assert set(found) == {"2:tuned", "4:tuned"}
    assert found["2:tuned"]["win_rate"] == 0.52 and found["4:tuned"]["win_rate"] == 0.27
    assert found["4:tuned"]["command"] == "exploit 4"


def exploit_record(path: Path, preset: str, target: str, digest: str, gain: float,
                   timesteps: int, search_gain: float | None = None) -> Path:
    """An ``experiments/exploit.py`` record of one heads-up target, gains +-1 point."""
    def interval(mean: float) -> dict[str, float]:
        return {"mean": mean, "low": mean - 0.01, "high": mean + 0.01}

    row = {"target": target, "target_sha256": digest,
           "exploiter": {"win_rate": 0.5 + gain, "low": 0.49 + gain, "high": 0.51 + gain},
           "gain": interval(gain)}
    if search_gain is not None:
        row["search"] = {"win_rate": 0.5 + search_gain, "gain": interval(search_gain)}
    path.write_text(json.dumps({"command": f"exploit {target}", "preset": preset,
                                "players": 2, "timesteps": timesteps, "search_budget": 32,
                                "rows": [row]}))
    return path


def test_every_shipped_model_is_joined_to_its_exploiters_by_file_hash(tmp_path: Path) -> None:
    """A model's probes are found under the preset they were made on, by the hash of the
    file and not its name; a model without a probe of its very file keeps a bare row."""
    exploit_record(tmp_path / "a.json", "no_mercy", "net:old-name", "aa", 0.175, 50_000_000)
    exploit_record(tmp_path / "b.json", "official", "net:official-2p", "bb", 0.01, 500_000)
    models = [{"spec": "net:no_mercy-2p", "kind": "network", "sha256": "aa"},
              {"spec": "net:official-2p", "kind": "network", "sha256": "cc"}]
    rows = leaderboard.model_exploitability(models, tmp_path)
    assert [(r["spec"], r.get("preset"), r.get("players")) for r in rows] == [
        ("net:no_mercy-2p", "no_mercy", 2), ("net:official-2p", None, None)]
    assert rows[0]["exploiter"]["timesteps"] == 50_000_000
    assert rows[0]["exploiter"]["command"] == "exploit net:old-name"
    assert "exploiter" not in rows[1]
    page = leaderboard.markdown({**json.loads((Path(__file__).resolve().parents[1] / "docs" /
                                               "results" / "leaderboard.json").read_text()),
                                 "models": rows})
    section = page[page.index("## Exploitability of every shipped model"):]
    assert "| `net:no_mercy-2p` | network | `aa` | `no_mercy`, 2 players | 67.5% " in section
    assert "+17.5 [+16.5, +18.5] (50,000,000 decisions) | - | missed |" in section
    assert "| `net:official-2p` | network | `cc` | - | - | - | - | not measured |" in section


@pytest.mark.parametrize(("gain", "timesteps", "search_gain", "verdict"), [
    (0.045, 500_000, None, "missed"),               # a short exploiter already gains more
    (0.00, 50_000_000, 0.05, "missed"),             # so does the search best response
    (0.00, 500_000, 0.00, "open: exploiter of 0.5M decisions, not 50M"),
    (0.00, 50_000_000, None, "open: no search best response"),
    (0.00, 50_000_000, -0.02, "met"),
    (0.025, 50_000_000, 0.00, "undecided"),         # its interval reaches past 3 points
])
def test_the_goal_is_met_only_by_a_long_exploiter_and_a_search_below_three_points(
        tmp_path: Path, gain: float, timesteps: int, search_gain: float | None,
        verdict: str) -> None:
    path = exploit_record(tmp_path / "e.json", "official", "net:x", "dd", gain, timesteps,
                          search_gain)
    entry = leaderboard.exploitability(path)["2:sha256:dd"]
    assert leaderboard.gain_goal(entry) == verdict


def test_a_search_best_response_alone_can_miss_the_goal_but_not_meet_it() -> None:
    def search(mean: float) -> dict:
        return {"search": {"gain": {"mean": mean, "low": mean - 0.01, "high": mean + 0.01}}}

    assert leaderboard.gain_goal(search(0.05)) == "missed"
    assert leaderboard.gain_goal(search(0.0)) == "open: no PPO exploiter"
    assert leaderboard.gain_goal(None) == "not measured"
