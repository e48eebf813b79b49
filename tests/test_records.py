"""Game records: saved by tournaments and evaluations, replayed exactly by the engine."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from inline import run_inline

from uno_env import Rules
from uno_env.cli import main
from uno_env.evaluation.tournament import tournament
from uno_env.records import GameRecord, Recorder, load_record, replay, save_record


def _replayed_result(record: GameRecord) -> tuple[int, list[int]]:
    engine, _ = replay(record)
    assert engine.state.done[0], "a saved game is replayed to its end"
    return int(engine.state.winner[0]), engine.state.scores[0].tolist()


#: Score-table agents (whole games inside the compiled engine when nothing is recorded),
#: and agents that draw random numbers.
@pytest.mark.parametrize("agents", [["greedy", "tuned"], ["greedy", "tuned", "random"]])
def test_a_tournament_records_its_games_without_changing_them(agents: list[str]) -> None:
    rules = Rules.preset("official", num_players=len(agents))
    plain = tournament(agents, rules, 12, tables=True)
    recorder = Recorder(range(5), "test")
    recorded = tournament(agents, rules, 12, tables=True, recorder=recorder)
    np.testing.assert_array_equal(plain.records.winner, recorded.records.winner)
    np.testing.assert_array_equal(plain.records.points, recorded.records.points)
    records = recorder.records(rules, "official")
    assert len(records) == 5
    for g, record in enumerate(records):
        seating = recorded.schedule.seatings[recorded.records.seating[g]]
        assert record.seats == tuple(recorded.labels[e] for e in seating)
        winner, scores = _replayed_result(record)
        assert winner == recorded.records.winner[g]
        assert scores == recorded.records.points[g].tolist()


def test_tournament_command_saves_records_that_replay(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "records"
    assert main(["tournament", "--agents", "greedy,random_play", "--games", "4",
                 "--save-games", "3", "--records", str(folder), "--no-progress",
                 "--json", str(tmp_path / "t.json")]) == 0
    assert "saved 3 game records" in capsys.readouterr().out
    files = sorted(folder.glob("*.json"))
    assert [f.name for f in files] == [f"tournament-official-2p-seed0-00{i}.json"
                                      for i in range(3)]
    results = json.loads((tmp_path / "t.json").read_text())["tournaments"][0]["results"]
    wins = {r["label"]: 0 for r in results}
    for f in files:
        record = load_record(f)
        assert f.stat().st_size < 4000, "a record is small"
        winner, _ = _replayed_result(record)
        wins[record.seats[winner]] += 1
    assert sum(wins.values()) == 3


def test_evaluate_saves_records_of_each_pair(tmp_path: Path) -> None:
    folder = tmp_path / "records"
    done = run_inline("evaluate.py", "--agents", "greedy", "--opponents", "random_play",
                      "--deals", "2", "--save-games", "2", "--records", str(folder))
    assert done.returncode == 0, done.stderr
    files = sorted(folder.glob("*.json"))
    assert [f.name for f in files] == ["evaluate-greedy-vs-random_play-000.json",
                                      "evaluate-greedy-vs-random_play-001.json"]
    for f in files:
        record = load_record(f)
        assert record.seats == ("greedy", "random_play")    # the agent in seat 0
        _replayed_result(record)


def test_a_record_round_trips_and_replays_every_position(tmp_path: Path) -> None:
    rules = Rules.preset("computer", num_players=3)
    recorder = Recorder([0])
    tournament(["greedy", "random_play", "tuned"], rules, 3, recorder=recorder)
    (record,) = recorder.records(rules, "computer")
    path = save_record(record, tmp_path / "r.json")
    again = load_record(path)
    assert again == record and again.rules == rules
    engine, steps = replay(again)
    assert len(steps) == len(record.actions) + 1
    assert [s.action for s in steps[:-1]] == list(record.actions) and steps[-1].action is None
    assert steps[0].state.turns[0] == 0


def _data(**changes: object) -> dict:
    record = GameRecord(Rules(num_players=2), 5, (100,), ("a", "b"))
    return {**record.to_dict(), **changes}


@pytest.mark.parametrize("changes, message", [
    ({"format": "other"}, "not a game record"),
    ({"version": 7}, "version 7"),
    ({"rules": {"num_players": 2, "colour": 1}}, "unknown option 'colour'"),
    ({"rules": {"num_players": 11}}, "num_players"),
    ({"seed": "5"}, "'seed' must be a int"),
    ({"actions": [100, 500]}, r"actions\[1\]"),
    ({"seats": ["a"]}, "seats must name the 2 seats"),
])
def test_a_bad_record_is_refused_naming_what_is_wrong(changes: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        GameRecord.from_dict(_data(**changes))


def test_a_record_of_other_games_fails_at_its_first_illegal_action() -> None:
    record = GameRecord(Rules(num_players=2), 5, (101, 101, 101), ("a", "b"))
    with pytest.raises(ValueError, match=r"action 0 \('pass'\) is not legal"):
        replay(record)


def test_a_file_that_is_not_a_record_is_named(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text("{not json")
    with pytest.raises(ValueError, match="x.json"):
        load_record(path)


def test_a_record_displays_inline_in_a_notebook() -> None:
    from uno_env.web.notebook import ReplayDisplay

    record = GameRecord(Rules(num_players=2), 5, (), ("a", "b"))
    engine, _ = replay(record)
    legal = engine.legal_action_mask()[0].nonzero()[0][:1]
    record = GameRecord(Rules(num_players=2), 5, tuple(int(a) for a in legal), ("a", "b"))
    shown = ReplayDisplay(record, viewer=1)
    assert len(shown.data["frames"]) == 2
    assert [h is not None for h in shown.data["frames"][0]["hands"]] == [False, True]
    page = shown._repr_html_()
    assert page.count("<script>") == 1 and page.count("</script>") == 1
    assert "UnoTable.render" in page and "a (seat 0)" in page
    assert "UNO, 2 players" in repr(shown)      # the text where no script runs
