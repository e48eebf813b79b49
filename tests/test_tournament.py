"""Tournaments: fair schedules, sound statistics, determinism, reports and bad input."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import time

import numpy as np
import pytest

from uno_agents import GreedyAgent, RandomAgent
from uno_env import Rules
from uno_env.cli import agent_specs, main
from uno_env.deals import deal_seed
from uno_env.evaluation.play import Records, TournamentError, agent_labels, seatings
from uno_env.evaluation.tournament import TournamentResult, tournament

OFFICIAL2 = Rules.preset("official", num_players=2)
OFFICIAL4 = Rules.preset("official", num_players=4)


def assert_same_records(a: Records, b: Records) -> None:
    for f in dataclasses.fields(Records):
        np.testing.assert_array_equal(getattr(a, f.name), getattr(b, f.name), err_msg=f.name)


@pytest.mark.parametrize(("agents", "players"), [(4, 4), (3, 2), (5, 3), (10, 10), (6, 2)])
def test_every_agent_plays_every_seat_equally_often(agents: int, players: int) -> None:
    table = seatings(agents, players)
    counts = np.zeros((agents, players), np.int64)
    for seat in range(players):
        np.add.at(counts[:, seat], table[:, seat], 1)
    assert (counts == counts[0, 0]).all() and counts[0, 0] > 0
    assert all(len(set(row)) == players for row in table.tolist())   # nobody sits twice
    if players == 2:   # heads-up: every ordered pair once, the head-to-head matrix
        assert sorted(map(tuple, table.tolist())) == [
            (i, j) for i in range(agents) for j in range(agents) if i != j]


def test_every_deal_is_replayed_under_every_seating() -> None:
    res = tournament(["greedy", "random", "greedy"], OFFICIAL2, 60, seed=3)
    assert res.games == 60 and res.deals == 10 and len(res.schedule.seatings) == 6
    pairs = set(zip(res.records.seating.tolist(), res.records.deal.tolist(), strict=True))
    assert pairs == {(s, d) for s in range(6) for d in range(10)}
    # greedy against its twin in both orders: the same deal gives the same game
    twins = [s for s, row in enumerate(res.schedule.seatings.tolist()) if sorted(row) == [0, 2]]
    games = [res.records.seating == s for s in twins]
    np.testing.assert_array_equal(*(res.records.decisions[g] for g in games))
    np.testing.assert_array_equal(*(res.records.winner[g] for g in games))
    # ... so each twin wins exactly half of their games
    wins, played = res.head_to_head()
    assert wins[0, 2] == wins[2, 0] == played[0, 2] // 2


def test_identical_agents_come_out_level() -> None:
    res = tournament(["random", "random"], Rules.preset("official", num_players=2,
                                                          max_turns=200), 1200, seed=1)
    a, b = res.agent_stats()
    assert a.games == b.games == 1200
    assert a.win_low <= b.win_rate <= a.win_high and b.win_low <= a.win_rate <= b.win_high
    assert a.points_low <= b.points <= a.points_high


def test_greedy_is_ranked_above_random() -> None:
    res = tournament(["random", "greedy", "random", "random"], OFFICIAL4, 200, seed=0)
    stats = res.agent_stats()
    assert stats[1].win_low > max(s.win_high for i, s in enumerate(stats) if i != 1)
    ratings = res.ratings()
    low, high = ratings.interval()
    assert ratings.kind == "openskill"
    assert low[1] > max(h for i, h in enumerate(high) if i != 1)
    assert res.to_dict()["ratings"][1]["label"] == "greedy"
    assert ratings.difference(1, 0)["low"] > 0


def test_heads_up_ratings_are_bradley_terry_with_intervals_over_deals() -> None:
    res = tournament(["random", "greedy", "random_play"], OFFICIAL2, 300, seed=2)
    ratings = res.ratings()
    low, high = ratings.interval()
    assert ratings.kind == "elo" and abs(ratings.value.sum()) < 1e-6
    assert (low <= ratings.value).all() and (ratings.value <= high).all()
    assert low[1] > high[0]           # greedy above random
    row = res.to_dict()["ratings"][1]
    assert row["label"] == "greedy" and row["low"] <= row["rating"] <= row["high"]


def test_a_last_standing_game_cut_after_someone_went_out_is_won_by_the_first_out() -> None:
    """The rules give such a game a result (docs/rules.md): it is no draw in the table."""
    rules = Rules.preset("last_standing", num_players=4, max_turns=80)
    res = tournament(["greedy", "random", "random", "random"], rules, 32, seed=1)
    rec = res.records
    cut = rec.decisions >= rules.max_turns
    assert cut.any() and (rec.winner[cut] >= 0).any()
    assert sum(s.wins for s in res.agent_stats()) + res.truncated == res.games


def test_results_do_not_depend_on_the_batch_size() -> None:
    agents = ["random", "greedy", "random"]
    rules = Rules.preset("official", num_players=3, max_turns=300)
    big = tournament(agents, rules, 96, seed=5, batch=4096, chunk=8)
    small = tournament(agents, rules, 96, seed=5, batch=8, chunk=8)
    odd = tournament(agents, rules, 96, seed=5, batch=20, chunk=8)
    assert_same_records(big.records, small.records)
    assert_same_records(big.records, odd.records)
    other = tournament(agents, rules, 96, seed=6, batch=4096, chunk=8)
    assert not np.array_equal(big.records.decisions, other.records.decisions)


@pytest.mark.rllib
def test_results_on_ray_equal_the_local_run() -> None:
    ray = pytest.importorskip("ray")
    agents = ["random", "greedy"]
    rules = Rules.preset("official", num_players=2, max_turns=300)
    local = tournament(agents, rules, 80, seed=2, chunk=10, backend="numpy")
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        remote = tournament(agents, rules, 80, seed=2, chunk=10, ray=True, backend="numpy")
    finally:
        ray.shutdown()
    assert_same_records(local.records, remote.records)


def test_labels_tell_repeated_agents_apart() -> None:
    assert agent_labels(["greedy", "random", "random", "greedy", "random"]) == [
        "greedy", "random", "random#2", "greedy#2", "random#3"]


def test_agent_specs_split_on_commas_and_keep_parameters_together() -> None:
    assert agent_specs(["greedy,random", "ismcts:budget=64,playout=greedy,random"]) == [
        "greedy", "random", "ismcts:budget=64,playout=greedy", "random"]


class EngineReader:
    """An agent using the engine hook: checks what it is handed, then plays like greedy."""

    name = "reader"

    def __init__(self) -> None:
        self.calls = 0

    def act(self, observations, masks, rng):
        raise AssertionError("the tournament must call act_in")

    def act_in(self, engine, games, observations, masks, rng):
        np.testing.assert_array_equal(engine.observe(games=games), observations)
        np.testing.assert_array_equal(engine.legal_action_mask(games), masks)
        self.calls += 1
        return GreedyAgent().act(observations, masks, rng)


def test_search_agents_are_handed_the_engine_and_their_games() -> None:
    reader = EngineReader()
    res = tournament([reader, "greedy"], OFFICIAL2, 20, seed=0, batch=7, chunk=3)
    plain = tournament(["greedy", "greedy"], OFFICIAL2, 20, seed=0)
    assert reader.calls > 0
    assert_same_records(res.records, plain.records)


class CallCounter(GreedyAgent):
    """Greedy, counting the calls it gets and the random streams they come with."""

    def __init__(self, uses_rng: bool) -> None:
        super().__init__()
        self.uses_rng = uses_rng
        self.calls = 0

    def act(self, observations, masks, rng):
        self.calls += 1
        return super().act(observations, masks, rng)


def test_agents_that_ignore_their_rng_take_a_step_in_one_call() -> None:
    """Deals 0-7 of each seating in chunks of 2: an agent drawing random numbers is called
    once per chunk and step, one that ignores its rng once per step, with the same games."""
    pooled, chunked = CallCounter(uses_rng=False), CallCounter(uses_rng=True)
    a = tournament([pooled, "greedy"], OFFICIAL2, 16, seed=1, chunk=2)
    b = tournament([chunked, "greedy"], OFFICIAL2, 16, seed=1, chunk=2)
    assert_same_records(a.records, b.records)
    assert 0 < pooled.calls < chunked.calls / 3


class Cheater(RandomAgent):
    name = "cheater"

    def act(self, observations, masks, rng):
        actions = super().act(observations, masks, rng)
        actions[-1] = np.flatnonzero(~masks[-1])[0]
        return actions


def test_bad_input_is_named() -> None:
    with pytest.raises(TournamentError, match="unknown agent 'nobody'"):
        tournament(["greedy", "nobody"], OFFICIAL2, 10)
    with pytest.raises(TournamentError, match="2 agent.* for 4 seats"):
        tournament(["greedy", "random"], OFFICIAL4, 10)
    with pytest.raises(TournamentError, match=r"agent 'cheater' returned the illegal action "
                                              r"\d+ \('.*'\) in game \d+ \(seating \d, deal \d+"):
        tournament([Cheater(), "greedy"], OFFICIAL2, 10)
    with pytest.raises(TournamentError, match="games must be at least 1"):
        tournament(["greedy", "random"], OFFICIAL2, 0)
    with pytest.raises(TournamentError, match="seed must be between 0 and"):
        tournament(["greedy", "random"], OFFICIAL2, 10, seed=2**40)


def test_cli_prints_and_saves_the_results(tmp_path, capsys) -> None:
    out = tmp_path / "r.json"
    assert main(["tournament", "--agents", "greedy,random,greedy", "--players", "2",
                 "--games", "30", "--presets", "official,house_dobon", "--json", str(out),
                 "--csv", str(tmp_path / "r.csv"), "--plot", str(tmp_path / "r.png"),
                 "--no-progress"]) == 0
    text = capsys.readouterr().out
    for expected in ("official, 2 players: 30 games = 5 deals x 6 seatings", "head to head",
                     "win rate by preset", "greedy#2", "95% CI", "rating (Elo, Bradley-Terry)"):
        assert expected in text, expected
    record = json.loads(out.read_text())
    data = record["tournaments"]
    assert [d["preset"] for d in data] == ["official", "house_dobon"]
    assert data[0]["head_to_head"]["games"][0][1] == 10
    # the record says what made it: the exact command, the commit, date, machine, deals
    assert record["command"].startswith("uno-env tournament --agents greedy,random,greedy ")
    assert record["command"].endswith(f"--json {out} --csv {tmp_path / 'r.csv'} --plot "
                                      f"{tmp_path / 'r.png'} --no-progress")
    assert record["commit"] and record["date"] and record["machine"]["cores"] >= 1
    assert record["deals"] == {"namespace": "evaluation", "first": deal_seed("evaluation", 0),
                               "last": deal_seed("evaluation", 0) + 4, "count": 5}
    csv_lines = (tmp_path / "r.csv").read_text().splitlines()
    assert len(csv_lines) == 1 + 2 * 3 and csv_lines[1].startswith("official,2,greedy,20,5,")
    assert (tmp_path / "r.png").read_bytes()[:4] == b"\x89PNG"


def test_cli_four_players_prints_ratings(capsys) -> None:
    assert main(["tournament", "--agents", "greedy", "random", "random", "random",
                 "--games", "8", "--no-progress"]) == 0
    assert "rating (openskill mu)" in capsys.readouterr().out


@pytest.mark.parametrize(("args", "message"), [
    (["--agents", "greedy,nobody"], "unknown agent 'nobody'"),
    (["--agents", "greedy,random", "--presets", "official,nowhere"], "nowhere"),
    (["--agents", "greedy,random", "--players", "3"], "2 agent.* for 3 seats"),
    (["--agents", "greedy,random", "--games", "0"], "--games: '0' is not an integer"),
    (["--agents", "greedy,random", "--seed", "-1"], "--seed: '-1' is not an integer"),
])
def test_cli_bad_input_writes_nothing(tmp_path, capsys, args, message) -> None:
    out = tmp_path / "r.json"
    with pytest.raises(SystemExit) as exc:
        main(["tournament", *args, "--json", str(out), "--no-progress"])
    assert re.search(message, f"{exc.value} {capsys.readouterr().err}")
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def no_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if the command starts playing."""
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a game was played before the inputs were checked")
    monkeypatch.setattr("uno_env.evaluation.tournament.tournament", refuse)


@pytest.mark.parametrize(("option", "name", "message"), [
    ("--json", "folder", "--json .* is a folder"),
    ("--csv", "missing/r.csv", "--csv .* does not exist"),
    ("--plot", "r.nopicture", "--plot .* cannot write a 'nopicture' figure"),
    ("--json", "locked/r.json", "--json .* is not writable"),
])
def test_cli_checks_the_report_files_before_the_first_game(tmp_path, capsys, no_games,
                                                           option, name, message) -> None:
    (tmp_path / "folder").mkdir()
    (tmp_path / "locked").mkdir(mode=0o500)
    if os.access(tmp_path / "locked", os.W_OK) and name.startswith("locked"):
        pytest.skip("this user may write anywhere")
    with pytest.raises(SystemExit) as exc:
        main(["tournament", "--agents", "greedy,random", option, str(tmp_path / name),
              "--no-progress"])
    assert re.search(message, str(exc.value)), exc.value
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["folder", "locked"]


def test_a_report_that_cannot_be_renamed_into_place_leaves_no_temporary_file(tmp_path) -> None:
    from uno_env.files import write_atomic

    (tmp_path / "r.json").mkdir()
    with pytest.raises(OSError):
        write_atomic(tmp_path / "r.json", "{}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


@pytest.mark.parametrize(("args", "message"), [
    (["--presets", ","], "--presets ',' names no preset"),
    (["--presets", " , ,"], "names no preset"),
    (["--players", "0"], "--players: '0' is not an integer between 2 and 10"),
    (["--players", "11"], "--players: '11' is not an integer between 2 and 10"),
    (["--agents", "greedy,greedy:challenge_threshold=inf"], "parameter 'challenge_threshold'"),
])
def test_cli_rejects_a_tournament_of_nothing(capsys, no_games, args, message) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["tournament", *args, "--no-progress"])
    text = f"{exc.value} {capsys.readouterr().err}"
    assert message in text and "Traceback" not in text


def test_cli_says_at_once_when_no_ray_cluster_answers(capsys, no_games) -> None:
    pytest.importorskip("ray")
    start = time.perf_counter()
    with pytest.raises(SystemExit, match="cannot connect to the Ray cluster at 127.0.0.1:9"):
        main(["tournament", "--agents", "greedy,random", "--ray", "127.0.0.1:9",
              "--no-progress"])
    assert time.perf_counter() - start < 10


def test_result_holds_the_schedule() -> None:
    res = tournament(["greedy", "random"], OFFICIAL2, 5, seed=9)
    assert isinstance(res, TournamentResult)
    d = res.to_dict()
    assert (d["games"], d["deals"], d["seatings"], d["seed"]) == (6, 3, 2, 9)
    assert sum(s["games"] for s in d["results"]) == 12
