"""Property tests over random legal play (hypothesis)."""

from __future__ import annotations

import numpy as np
from conftest import eager_actions, random_actions
from hypothesis import given, settings
from hypothesis import strategies as st

from uno_env import PRESETS, Engine, Rules

FAST = settings(max_examples=30, deadline=None)

presets = st.sampled_from(sorted(PRESETS))
players = st.integers(min_value=2, max_value=10)
seeds = st.integers(min_value=0, max_value=2**31 - 1)


def preset_rules(preset: str, players: int, **overrides) -> Rules:
    """The preset at ``players`` seats (team play is always four)."""
    return Rules.preset(preset, num_players=4 if preset == "teams" else players, **overrides)


def goes_out_to_win(rules: Rules) -> bool:
    """Whether the round's winner always ends with an empty hand."""
    return not (rules.match or rules.dobon or rules.mercy_limit or rules.end == "last_standing")


def check_invariants(eng: Engine) -> None:
    s = eng.state
    running = ~eng.done
    mask = eng.legal_action_mask()
    # Card conservation, per kind.
    np.testing.assert_array_equal(eng.census(), np.broadcast_to(
        eng.deck_composition(), (eng.num_games, eng.deck_composition().size)))
    # A running game always offers a decision; a finished one none.
    assert mask[running].any(axis=1).all()
    assert not mask[~running].any()
    # The acting player is a seat.
    cur = eng.current_player
    assert ((cur >= 0) & (cur < eng.num_players)).all()
    # Hand sizes agree with the hands.
    assert (s.hands >= 0).all()
    np.testing.assert_array_equal(eng.hand_sizes, s.hands.sum(axis=-1))
    # The top card lies on the discard pile while a game runs (after a Dobon it names the
    # card that went back to its player's hand); the pile pointer is inside the pile.
    assert (s.discard[np.arange(eng.num_games), s.top] >= 1)[running].all()
    assert (s.deck_pos <= s.deck_len).all()
    assert (eng.winner[running] == -1).all()
    if eng.rules.auto_forced:  # no running game waits on a decision with a single option
        assert (mask[running].sum(axis=1) >= 2).all()
    obs = eng.observe()
    assert obs.shape == (eng.num_games, eng.obs_size)
    assert np.isfinite(obs).all()


def play_out(eng: Engine, rng: np.random.Generator, eager: bool, limit: int) -> int:
    policy = eager_actions if eager else random_actions
    steps = 0
    check_invariants(eng)
    while not eng.done.all():
        assert steps < limit, "a game neither ended nor was truncated"
        running = ~eng.done
        rewards, terminated, truncated = eng.step(policy(eng, rng))
        steps += 1
        check_invariants(eng)
        assert not (terminated & truncated).any()
        assert not rewards[~running].any()
        if eng.rules.reward in ("win", "rank"):
            np.testing.assert_allclose(rewards.sum(axis=1), 0, atol=1e-5)
        ended = terminated & running
        for g in np.flatnonzero(ended):
            w = int(eng.winner[g])
            assert 0 <= w < eng.num_players
            if goes_out_to_win(eng.rules):
                assert eng.hand_sizes[g, w] == 0
            if eng.rules.reward == "win" and not eng.rules.match:
                assert rewards[g, w] == 1.0
    return steps


@FAST
@given(preset=presets, players=players, seed=seeds, eager=st.booleans())
def test_random_play_keeps_invariants_and_ends(preset, players, seed, eager):
    max_turns = 100
    eng = Engine(preset_rules(preset, players, max_turns=max_turns), 3, seed=seed)
    play_out(eng, np.random.default_rng(seed), eager, max_turns)
    assert (eng.state.turns <= max_turns).all()
    # A truncated game was cut exactly at the cap; it has no winner, except under
    # last_standing once someone went out: the first out keeps the win.
    for g in np.flatnonzero(eng.truncated):
        w = int(eng.winner[g])
        assert w == -1 or (eng.rules.end == "last_standing" and eng.state.place[g, w] == 0)
    assert (eng.state.turns[eng.truncated] == max_turns).all()


@settings(max_examples=12, deadline=None)
@given(preset=presets, players=players, seed=seeds)
def test_random_match_play_keeps_invariants(preset, players, seed):
    rules = preset_rules(preset, players, match=True, rounds=2, max_turns=100,
                         target_score=10**6, dealer="rotate")
    eng = Engine(rules, 2, seed=seed)
    play_out(eng, np.random.default_rng(seed), True, 2 * 100)
    finished = eng.terminated
    assert (eng.state.rounds_played[finished] == 2).all()


options = st.fixed_dictionaries({
    "first_card": st.sampled_from(["official", "bury_non_number", "redraw_non_number"]),
    "first_player": st.sampled_from(["left_of_dealer", "dealer"]),
    "dealer": st.sampled_from(["random", "previous_winner", "rotate"]),
    "draw_rule": st.sampled_from(["one_may_play", "one_then_pass", "until_playable_may_play",
                                  "until_playable_must_play"]),
    "draw_when_playable": st.booleans(),
    "play_any_after_draw": st.booleans(),
    "wd4": st.sampled_from([
        dict(wd4_restriction="color", challenge=True, challenge_guilty="offender_draws"),
        dict(wd4_restriction="playable", challenge=True, challenge_guilty="retract"),
        dict(wd4_restriction="color", challenge=True, challenge_guilty="retract"),
        dict(wd4_restriction="color", challenge=False, wd4_bluff=False),
        dict(wd4_restriction="playable", challenge=False, wd4_bluff=False),
        dict(wd4_restriction="none", challenge=False),
    ]),
    "challenge_penalty": st.integers(min_value=0, max_value=4),
    "uno_penalty": st.sampled_from([0, 1, 2]),
    "scoring": st.sampled_from(["winner_takes_sum", "zero_sum", "card_count", "none"]),
    "points": st.sampled_from(["standard", "house"]),
    "match": st.booleans(),
    "auto_forced": st.booleans(),
    "reward": st.sampled_from(["win", "points"]),
})


@FAST
@given(opts=options, players=players, seed=seeds, eager=st.booleans())
def test_any_issue_option_combination_keeps_invariants(opts, players, seed, eager):
    opts = dict(opts)
    opts.update(opts.pop("wd4"))
    rules = Rules(num_players=players, max_turns=100, rounds=2, target_score=10**6, **opts)
    eng = Engine(rules, 2, seed=seed)
    play_out(eng, np.random.default_rng(seed), eager, 100 * 2 * 2)


def per_game(eng: Engine, rngs: list[np.random.Generator]) -> np.ndarray:
    mask = eng.legal_action_mask()
    actions = np.zeros(eng.num_games, np.int64)
    for g, rng in enumerate(rngs):
        legal = np.flatnonzero(mask[g])
        u = rng.random()
        if legal.size:
            actions[g] = legal[int(u * legal.size)]
    return actions


@settings(max_examples=20, deadline=None)
@given(preset=presets, players=players, seed=seeds, batch=st.integers(min_value=2, max_value=6),
       data=st.data())
def test_batch_game_equals_single_game(preset, players, seed, batch, data):
    k = data.draw(st.integers(min_value=0, max_value=batch - 1))
    rules = preset_rules(preset, players, max_turns=60)
    many = Engine(rules, batch, seed=seed)
    one = Engine(rules, 1, seed=seed + k)
    rngs = [np.random.default_rng([seed, g]) for g in range(batch)]
    own = [np.random.default_rng([seed, k])]
    for _ in range(60):
        np.testing.assert_array_equal(many.legal_action_mask()[k], one.legal_action_mask()[0])
        np.testing.assert_array_equal(many.observe()[k], one.observe()[0])
        r_many, t_many, tr_many = many.step(per_game(many, rngs))
        r_one, t_one, tr_one = one.step(per_game(one, own))
        np.testing.assert_array_equal(r_many[k], r_one[0])
        assert (t_many[k], tr_many[k]) == (t_one[0], tr_one[0])
        np.testing.assert_array_equal(many.state.hands[k], one.state.hands[0])
    assert many.done[k] and one.done[0]
