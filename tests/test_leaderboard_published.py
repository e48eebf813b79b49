"""The published leaderboard (docs/results/leaderboard.json) is what today's code gives:
its tables follow from the games kept beside it, and seatings replayed now play those
games again, game for game. Replaying the whole board takes an hour on two cores; these
seatings (the reference against the shipped network, and heuristics) take seconds. The
4-player ratings (minutes) are checked by ``make test-records``."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

from uno_env.evaluation import leaderboard
from uno_env.evaluation.intervals import mean_interval
from uno_env.evaluation.play import Records, Schedule
from uno_env.evaluation.tournament import TournamentResult
from uno_env.rules import Rules

RECORD = Path(__file__).resolve().parents[1] / "docs" / "results" / "leaderboard.json"
#: the exploit records ``uno-env leaderboard`` reads by default
EXPLOIT_RECORDS = [RECORD.parents[2] / path for path in leaderboard.EXPLOIT_RECORDS]
#: compared exactly; speeds and seconds are the machine's, not the code's
SAME = ("agent", "rating", "low", "high", "win_rate", "win_low", "win_high", "games",
        "rating_vs_reference", "win_rate_vs_reference", "head_to_head_vs_reference")


def published() -> tuple[dict, leaderboard.Settings]:
    record = json.loads(RECORD.read_text())
    return record, leaderboard.Settings.of_record(record)


def kept_games(players: int) -> tuple[Records, leaderboard.Settings, list[str], Schedule]:
    """The games kept beside the published record, its settings, agents and schedule."""
    _, settings = published()
    specs = [agents for p, agents, _ in settings.tables() if p == players][0]
    deals = settings.deals_2p if players == 2 else settings.deals_4p
    schedule = leaderboard.schedule_of(players, specs, deals, settings.seed)
    records, _, done = leaderboard.recorded_games(RECORD, players, len(specs))
    assert done == set(range(len(schedule.chunks())))    # every seating kept
    return records, settings, specs, schedule


def published_table(players: int) -> tuple[TournamentResult, dict]:
    """The kept games as a tournament, and the table published from them."""
    record, _ = published()
    records, settings, specs, schedule = kept_games(players)
    res = TournamentResult(Rules.preset(settings.preset, num_players=players), settings.preset,
                           list(specs), schedule, records, 0.0, None, settings.rating_rounds)
    return res, next(t for t in record["tables"] if t["players"] == players)


def close(now: object, then: object) -> object:
    """``now`` with each float that equals ``then``'s to 1e-9 replaced by ``then``'s:
    the last digits of a fit follow numpy's build and the processor's vector unit."""
    if isinstance(now, dict) and isinstance(then, dict):
        return {k: close(v, then.get(k)) for k, v in now.items()}
    if isinstance(now, float) and isinstance(then, float):
        return then if now == pytest.approx(then, rel=1e-9, abs=1e-12) else now
    return now


def assert_same_rows(table: dict, shown: dict) -> None:
    """Every published row's figures (:data:`SAME`) as today's code computes them."""
    for now, then in zip(table["rows"], shown["rows"], strict=True):
        wanted = {k: then.get(k) for k in SAME}
        assert close({k: now.get(k) for k in SAME}, wanted) == wanted, now["agent"]


def test_the_published_heads_up_table_follows_from_the_kept_games() -> None:
    res, shown = published_table(2)
    table = leaderboard.table_record(res, {})
    assert table["games"] == shown["games"] and table["deals"] == shown["deals"]
    assert [r["agent"] for r in table["rows"]] == [r["agent"] for r in shown["rows"]]
    assert_same_rows(table, shown)


def test_the_published_win_rates_of_four_players_follow_from_the_kept_games() -> None:
    """Everything of the 4-player table but its openskill ratings (below)."""
    res, shown = published_table(4)
    stats = dict(zip(res.labels, res.agent_stats(), strict=True))
    per_deal = res.deal_win_rates()
    ref = res.labels.index(shown["reference"])
    assert res.games == shown["games"]
    for row in shown["rows"]:
        now, i = stats[row["agent"]], res.labels.index(row["agent"])
        assert (now.win_rate, now.win_low, now.win_high, now.games) == (
            row["win_rate"], row["win_low"], row["win_high"], row["games"]), row["agent"]
        if i != ref:
            assert mean_interval(per_deal[:, i] - per_deal[:, ref]) == row[
                "win_rate_vs_reference"], row["agent"]


@pytest.mark.records
def test_the_published_ratings_of_four_players_follow_from_the_kept_games() -> None:
    """openskill's 200 resamples of 8,960 games take minutes: ``make test-records``."""
    res, shown = published_table(4)
    table = leaderboard.table_record(res, {})
    assert_same_rows(table, shown)


def seatings_of(schedule: Schedule, wanted: set[int]) -> list[int]:
    """The seatings (chunk ids) whose seats hold exactly the agents ``wanted``."""
    return [i for i, row in enumerate(schedule.seatings) if set(row.tolist()) == wanted]


@pytest.mark.parametrize(("players", "agents"), [
    (2, ("tuned", "net:official-2p")),
    (2, ("random_play", "defender")),
    (4, ("greedy", "defender", "tuned", "net:official-4p")),
    pytest.param(2, ("ismcts:budget=16", "improved:official-2p-exit"), marks=pytest.mark.records),
    pytest.param(2, ("improved:official-2p-exit-rp", "ppo:official-2p"),
                 marks=pytest.mark.records),
    pytest.param(4, ("random", "random_play", "ppo:official-4p", "ismcts:budget=16"),
                 marks=pytest.mark.records),
])
def test_replayed_seatings_play_the_published_games_again(players: int,
                                                          agents: tuple[str, ...]) -> None:
    records, settings, specs, schedule = kept_games(players)
    deals = schedule.deals
    ids = seatings_of(schedule, {specs.index(a) for a in agents})
    assert ids
    if players == 4:
        ids = ids[:1]                     # one rotation: 32 games of four players
    replayed, _ = leaderboard._play_piece(Rules.preset(settings.preset, num_players=players),
                                          specs, schedule, ids)
    kept = np.isin(records.seating, ids)
    assert replayed.seating.size == int(kept.sum()) == len(ids) * deals
    for f in fields(Records):
        assert np.array_equal(getattr(replayed, f.name), getattr(records, f.name)[kept]), f.name


def test_the_published_page_is_its_record_as_todays_code_writes_it() -> None:
    record, _ = published()
    page = RECORD.parents[1] / "leaderboard.md"
    assert page.read_text() == leaderboard.markdown(record)


def test_the_published_exploiters_are_those_of_todays_exploit_records() -> None:
    """Every row carries what the default exploit records say of it (joined by its
    file's hash), so a new probe shows once ``uno-env leaderboard --rejoin`` ran."""
    record, _ = published()
    exploits = leaderboard.exploitability(*EXPLOIT_RECORDS)
    searched = 0
    for table in record["tables"]:
        for row in table["rows"]:
            key = leaderboard.exploit_key(table["players"], row["agent"], row.get("sha256"))
            assert row.get("exploiter") == exploits.get(key), row["agent"]
            searched += bool((row.get("exploiter") or {}).get("search"))
    assert searched >= 1


def test_the_published_exploitability_of_every_shipped_model_is_todays() -> None:
    """Every shipped model file has its row, joined to today's exploit records by its
    hash, so a new probe or a new file shows once ``uno-env leaderboard --rejoin`` ran."""
    from uno_agents.catalogue import shipped_models

    record, _ = published()
    models = shipped_models()
    today = leaderboard.model_exploitability(models, *EXPLOIT_RECORDS)
    assert record["models"] == json.loads(json.dumps(today))
    assert {r["spec"] for r in record["models"]} == {m["spec"] for m in models}
    assert "## Exploitability of every shipped model" in leaderboard.markdown(record)
