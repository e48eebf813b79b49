"""One scorer per backend: the compiled heuristic scores are the numpy reference's twin.

At positions of random play on every preset, the scores the compiled engine computes
from a game's state (:func:`uno_env.engine.search.policy_scores`, by
:mod:`uno_env.engine.compiled.scoring`) equal bit for bit the numpy scores of the
acting player's observation (:mod:`uno_env.engine.scoring`, which the agents' ``act``
scores by), for the linear heuristics (their weights and random ones) and the greedy
agent; the engine's choice by them is the agent's ``act``.
"""

from __future__ import annotations

import numpy as np
import pytest
from scenario import random_positions

from uno_agents import make_agent
from uno_agents.features import linear_playout_policy
from uno_env import PRESETS
from uno_env.engine.scoring import FEATURES, greedy_scores, linear_scores
from uno_env.engine.search import policy_actions, policy_scores

pytest.importorskip("numba")

CASES = [(preset, 4 if preset == "teams" else players)
         for preset in sorted(PRESETS) for players in (2, 4)
         if preset != "teams" or players == 4]
AGENTS = ("tuned", "defender", "greedy", "greedy:challenge_threshold=5")


def _position(preset: str, players: int):
    engine = random_positions(preset, players, games=32, seed=players)
    live = np.flatnonzero(~engine.state.done)
    return engine, live, engine.observe(games=live), engine.legal_action_mask(live)


@pytest.mark.parametrize(("preset", "players"), CASES)
def test_compiled_scores_are_the_numpy_scores_bit_for_bit(preset, players):
    engine, live, obs, masks = _position(preset, players)
    assert live.size >= 4          # positions to compare
    for spec in AGENTS:
        agent = make_agent(spec)
        policy = agent.playout_policy(players)
        if spec.startswith("greedy"):
            reference = np.where(masks, greedy_scores(obs, agent.challenge_threshold), -np.inf)
        else:
            reference = linear_scores(obs, agent.row_weights(obs), masks)
        np.testing.assert_array_equal(policy_scores(engine, live, policy), reference,
                                      err_msg=spec)
        np.testing.assert_array_equal(policy_actions(engine, live, policy),
                                      agent.act(obs, masks, np.random.default_rng(0)),
                                      err_msg=spec)


@pytest.mark.parametrize(("preset", "players"), CASES[::3])
def test_random_weights_score_alike(preset, players):
    engine, live, obs, masks = _position(preset, players)
    rng = np.random.default_rng(players)
    for _ in range(3):
        weights = rng.normal(0.0, 10.0, len(FEATURES))
        np.testing.assert_array_equal(
            policy_scores(engine, live, linear_playout_policy(weights)),
            linear_scores(obs, weights, masks))


def test_the_scores_are_those_of_the_acting_players_legal_actions():
    engine, live, obs, masks = _position("official", 4)
    scores = policy_scores(engine, live, make_agent("tuned").playout_policy(4))
    assert np.isfinite(scores[masks]).all() and (scores[~masks] == -np.inf).all()
    assert np.unique(scores[masks]).size > 4     # real scores, not one number
