"""The leaderboard never overwrites saved progress it was not asked to continue: a
damaged file or one of other settings is named in one line and kept; a malformed
exploit record is named in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from uno_env.cli import main
from uno_env.evaluation import leaderboard


def board(tmp_path: Path, *flags: str) -> int:
    return main(["leaderboard", "--tiny", "--out", str(tmp_path / "b.md"), "--json",
                 str(tmp_path / "b.json"), "--exploit", "", *flags])


@pytest.fixture
def stopped(tmp_path: Path, monkeypatch) -> Path:
    """The heads-up progress of a tiny run stopped after its first piece."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(leaderboard, "PIECE_GAMES", 2)
    real, calls = leaderboard._play_piece, []

    def stop_after_one(*args: object) -> object:
        calls.append(1)
        if len(calls) > 1:
            raise KeyboardInterrupt
        return real(*args)
    monkeypatch.setattr(leaderboard, "_play_piece", stop_after_one)
    assert board(tmp_path) == 130   # Ctrl-C
    monkeypatch.setattr(leaderboard, "_play_piece", real)
    progress = tmp_path / ".b-2p.progress.npz"
    assert progress.exists()
    return progress


def refused(tmp_path: Path, *flags: str) -> str:
    with pytest.raises(SystemExit) as exc:
        board(tmp_path, *flags)
    assert not (tmp_path / "b.json").exists() and not (tmp_path / "b.md").exists()
    assert "\n" not in str(exc.value)
    return str(exc.value)


@pytest.mark.parametrize("damage", [b"", b"not a zip at all", "cut"])
def test_damaged_progress_is_named_and_kept(tmp_path: Path, stopped: Path,
                                            damage: bytes | str) -> None:
    data = stopped.read_bytes()[:200] if damage == "cut" else damage
    stopped.write_bytes(data)   # type: ignore[arg-type]
    message = refused(tmp_path, "--resume")
    assert str(stopped) in message and "is damaged" in message
    assert stopped.read_bytes() == data


def test_resume_under_other_settings_is_refused_and_the_progress_kept(tmp_path: Path,
                                                                      stopped: Path) -> None:
    before = stopped.read_bytes()
    message = refused(tmp_path, "--resume", "--deals-2p", "3")
    assert "other settings (deals_2p 2 there, 3 now)" in message
    assert stopped.read_bytes() == before


def test_a_run_without_resume_keeps_saved_progress(tmp_path: Path, stopped: Path) -> None:
    before = stopped.read_bytes()
    assert "--resume continues it" in refused(tmp_path)
    assert stopped.read_bytes() == before
    assert board(tmp_path, "--resume") == 0    # and --resume continues it
    assert not stopped.exists()


@pytest.mark.parametrize("record", [[1, 2], {"rows": [1]}, {"rows": [{"target": "tuned",
                                                                        "exploiter": 3}]},
                                    {"rows": 5}, {"players": "two", "rows": []},
                                    {"preset": ["official"], "rows": []}, "{cut"])
def test_a_malformed_exploit_record_is_named_in_one_line(tmp_path: Path, record: object
                                                         ) -> None:
    path = tmp_path / "exploit.json"
    path.write_text(record if isinstance(record, str) else json.dumps(record))
    with pytest.raises(ValueError, match=rf"exploit record '{path}' is damaged or malformed"):
        leaderboard.exploitability(path)
    with pytest.raises(SystemExit, match="exploit record"):
        main(["leaderboard", "--tiny", "--out", str(tmp_path / "b.md"), "--json",
              str(tmp_path / "b.json"), "--exploit", str(path)])
    assert not (tmp_path / "b.json").exists()


def test_a_missing_exploit_record_adds_nothing(tmp_path: Path) -> None:
    assert leaderboard.exploitability(tmp_path / "none.json") == {}


def probe(path: Path, budget: int | None, **row: object) -> Path:
    """An exploit record of one target, with a PPO exploiter or a search best response."""
    path.write_text(json.dumps({"command": f"probe {path.name}", "players": 2,
                                "timesteps": 0 if budget else 1000, "search_budget": budget,
                                "rows": [{"target": "tuned", **row}]}))
    return path


def gain(mean: float) -> dict[str, float]:
    return {"mean": mean, "low": mean - 0.01, "high": mean + 0.01}


def test_a_ppo_exploiter_and_search_best_responses_of_one_target_join_one_entry(
        tmp_path: Path) -> None:
    folder = tmp_path / "search"
    folder.mkdir()
    probe(folder / "small.json", 32, search={"win_rate": 0.4, "games": 400, "gain": gain(-0.1)})
    probe(folder / "large.json", 128, search={"win_rate": 0.45, "games": 300,
                                              "gain": gain(-0.05)})
    ppo = probe(tmp_path / "ppo.json", None, exploiter={"win_rate": 0.52, "low": 0.51,
                                                         "high": 0.53}, gain=gain(0.02))
    for order in ([ppo, folder], [folder, ppo]):
        entry = leaderboard.exploitability(*order)["2:tuned"]
        assert entry["win_rate"] == 0.52 and entry["gain"]["mean"] == 0.02
        assert entry["search"]["budget"] == 128 and entry["search"]["gain"]["mean"] == -0.05
        assert entry["search"]["command"] == "probe large.json"


def test_of_several_ppo_exploiters_of_one_target_the_longest_trained_is_joined(
        tmp_path: Path) -> None:
    short = probe(tmp_path / "a-short.json", None, exploiter={"win_rate": 0.55}, gain=gain(0.05))
    long = probe(tmp_path / "b-long.json", None, exploiter={"win_rate": 0.51}, gain=gain(0.01))
    record = json.loads(long.read_text())
    long.write_text(json.dumps({**record, "timesteps": 5000}))
    search = probe(tmp_path / "c-search.json", 64, search={"win_rate": 0.45, "games": 300,
                                                          "gain": gain(-0.05)})
    for order in ([short, long, search], [search, long, short]):
        entry = leaderboard.exploitability(*order)["2:tuned"]
        assert (entry["timesteps"], entry["win_rate"]) == (5000, 0.51)
        assert entry["command"] == "probe b-long.json" and entry["search"]["budget"] == 64


def test_rejoin_puts_todays_exploit_records_beside_the_rows_and_plays_nothing(
        tmp_path: Path) -> None:
    assert board(tmp_path) == 0
    record = json.loads((tmp_path / "b.json").read_text())
    assert not any("exploiter" in r for t in record["tables"] for r in t["rows"])
    ppo = probe(tmp_path / "ppo.json", None, exploiter={"win_rate": 0.52, "low": 0.51,
                                                         "high": 0.53}, gain=gain(0.02))
    search = probe(tmp_path / "search.json", 64, search={"win_rate": 0.45, "games": 300,
                                                         "gain": gain(-0.05)})
    assert main(["leaderboard", "--rejoin", "--out", str(tmp_path / "b.md"), "--json",
                 str(tmp_path / "b.json"), "--exploit", f"{ppo},{search}"]) == 0
    joined = json.loads((tmp_path / "b.json").read_text())
    row = next(r for r in joined["tables"][0]["rows"] if r["agent"] == "tuned")
    assert row["exploiter"]["win_rate"] == 0.52 and row["exploiter"]["search"]["budget"] == 64
    assert joined["exploits_joined_by"].startswith("uno-env leaderboard --rejoin")
    page = (tmp_path / "b.md").read_text()
    assert "search best response's gain" in page and "-5.0 [-6.0, -4.0] (budget 64)" in page
    assert "+2.0 [+1.0, +3.0] (1,000 decisions)" in page
    for table, before in zip(joined["tables"], record["tables"], strict=True):
        assert table["tournament"] == before["tournament"]


@pytest.mark.parametrize("flag", [["--tiny"], ["--add", "greedy"], ["--deals-2p", "3"],
                                  ["--resume"]])
def test_rejoin_refuses_what_would_play(tmp_path: Path, flag: list[str]) -> None:
    out = tmp_path / "b.md"
    with pytest.raises(SystemExit, match="--rejoin plays nothing"):
        main(["leaderboard", "--rejoin", "--out", str(out), "--json", str(tmp_path / "b.json"),
              *flag])
    assert not out.exists()


def test_a_probe_of_another_preset_is_not_joined(tmp_path: Path) -> None:
    path = probe(tmp_path / "ppo.json", None, exploiter={"win_rate": 0.52}, gain=gain(0.02))
    assert "2:tuned" in leaderboard.exploitability(path)
    record = json.loads(path.read_text())
    path.write_text(json.dumps({**record, "preset": "no_mercy"}))
    assert leaderboard.exploitability(path) == {}
