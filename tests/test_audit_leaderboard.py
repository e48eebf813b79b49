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
                                    {"rows": 5}, {"players": "two", "rows": []}, "{cut"])
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
