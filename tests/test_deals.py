"""Deal seeds by purpose (uno_env.deals): the purposes never share a deal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from inline import run_inline

from uno_env import Rules
from uno_env.deals import (
    BLOCK,
    CURVE_START,
    EVALUATION_START,
    EVALUATION_STREAMS,
    PURPOSES,
    STREAM,
    STREAMS,
    deal_seed,
    describe,
    purpose_of,
)
from uno_env.evaluation import CURVE_SEED, FRESH_SEED, deal_wins
from uno_env.evaluation.leaderboard import settings_from
from uno_env.evaluation.tournament import SEED_MAX, TournamentError, tournament


@given(st.sampled_from(PURPOSES), st.integers(0, STREAMS - 1), st.integers(0, STREAM - 1),
       st.integers(1, STREAM))
def test_no_training_tuning_or_selection_deal_is_a_curve_or_evaluation_deal(
        purpose: str, stream: int, index: int, count: int) -> None:
    if index + count > STREAM:
        with pytest.raises(ValueError, match="deal count"):
            deal_seed(purpose, stream, index, count)
        return
    first = deal_seed(purpose, stream, index, count)
    for seed in (first, first + count - 1):
        assert purpose_of(seed) == purpose
        assert not CURVE_START <= seed < BLOCK


def test_streams_of_one_purpose_are_disjoint_and_purposes_do_not_meet() -> None:
    assert deal_seed("training", 1) == deal_seed("training", 0, STREAM - 1) + 1
    last = deal_seed("training", STREAMS - 1, STREAM - 1)
    assert last + 1 == deal_seed("tuning") and purpose_of(last) == "training"
    assert purpose_of(deal_seed("soak", STREAMS - 1, STREAM - 1) + 1) == "unnamed"


def test_the_evaluations_keep_their_published_seeds() -> None:
    assert (CURVE_SEED, FRESH_SEED) == (CURVE_START, EVALUATION_START) == (900_000, 1_000_000)
    assert purpose_of(FRESH_SEED) == purpose_of(7_000_000) == "evaluation"
    assert purpose_of(CURVE_SEED + 99_999) == "curve" and purpose_of(0) == "unnamed"


@given(st.integers(0, EVALUATION_STREAMS - 1), st.integers(0, STREAM - 1))
def test_every_evaluation_stream_stays_in_the_evaluation_range(stream: int, index: int) -> None:
    seed = deal_seed("evaluation", stream, index)
    assert purpose_of(seed) == "evaluation" and EVALUATION_START <= seed < BLOCK
    assert deal_seed("evaluation", stream, index) - deal_seed("evaluation", stream) == index


def test_a_seed_means_the_same_deals_in_a_tournament_and_a_duplicate_evaluation() -> None:
    """``uno-env tournament --seed 7`` and ``evaluate.py --seed 7`` play the same deals:
    two deterministic agents heads-up win the same games in both."""
    rules = Rules.preset("official", num_players=2)
    deals = 12
    played = tournament(["tuned", "greedy"], rules, 2 * deals, seed=7)
    wins, games = played.head_to_head()
    assert games[0, 1] == 2 * deals
    first = deal_seed("evaluation", 7, 0, deals)
    assert first == EVALUATION_START + 7 * STREAM
    from uno_agents import make_agent

    by_deal = deal_wins(make_agent("tuned"), make_agent("greedy"), rules, deals, first)
    assert wins[0, 1] == round(by_deal.sum() * 2)
    other = deal_wins(make_agent("tuned"), make_agent("greedy"), rules, deals,
                      deal_seed("evaluation", 8, 0, deals))
    assert (other != by_deal).any()           # another seed: other deals


def test_evaluate_plays_the_selection_deals_it_is_asked_for(tmp_path: Path) -> None:
    """``evaluate.py --purpose selection`` plays stream ``--seed`` of the selection
    namespace and says so in its record; ``--purpose`` takes no other namespace."""
    for purpose in ("selection", "evaluation"):
        out = tmp_path / f"{purpose}.json"
        done = run_inline("evaluate.py", "--agents", "greedy", "--opponents", "random_play",
                          "--deals", "40", "--seed", "3", "--purpose", purpose,
                          "--out", str(out))
        assert done.returncode == 0, done.stderr
        record = json.loads(out.read_text())
        assert record["deals"] == describe(deal_seed(purpose, 3, 0, 40), 40)
        assert record["deals"]["namespace"] == purpose
    assert "--purpose selection" in json.loads(
        (tmp_path / "selection.json").read_text())["command"]
    bad = run_inline("evaluate.py", "--agents", "greedy", "--purpose", "training")
    assert bad.returncode == 2 and "invalid choice: 'training'" in bad.stderr


def test_the_leaderboard_seed_is_a_tournament_seed() -> None:
    assert settings_from(False, None, None, None).seed == 2026
    assert settings_from(False, None, None, None, seed=5).seed == 5
    assert SEED_MAX == EVALUATION_STREAMS - 1
    with pytest.raises(TournamentError, match="seed must be between 0 and"):
        tournament(["greedy", "greedy"], Rules.preset("official", num_players=2), 2,
                   seed=SEED_MAX + 1)


def test_a_record_names_the_namespace_of_its_deals() -> None:
    assert describe(FRESH_SEED, 10) == {"namespace": "evaluation", "first": FRESH_SEED,
                                        "last": FRESH_SEED + 9, "count": 10}
    assert describe(deal_seed("tuning", 3), 5)["namespace"] == "tuning"
    with pytest.raises(ValueError, match="straddle the curve and evaluation"):
        describe(EVALUATION_START - 1, 2)


@pytest.mark.parametrize("args,message", [
    (("playing",), "unknown deal purpose 'playing'"),
    (("evaluation", EVALUATION_STREAMS), "evaluation stream"),
    (("training", STREAMS), "training stream"),
    (("tuning", 0, -1), "tuning deal index"),
    (("selection", 0, STREAM - 2, 3), "selection deal count"),
])
def test_deals_that_do_not_fit_are_refused_by_name(args: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        deal_seed(*args)
