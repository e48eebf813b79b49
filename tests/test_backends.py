"""The compiled backend plays exactly the games of the numpy reference engine.

Both engines start from the same seed and take the same random legal actions;
after every step their masks, observations, step results and every array of the
state must be equal, through autoresets, for every preset and for random
combinations of every option.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scenario import assert_equal_arrays, assert_same_state, snapshot

from uno_env import PRESETS, Engine, Rules
from uno_env.engine.core import BACKENDS, default_backend
from uno_env.engine.playouts import play_random
from uno_env.rules import CHOICES

pytest.importorskip("numba")


def lockstep(rules: Rules, num_games: int, seed: int, steps: int) -> int:
    """Play both backends side by side; returns how many games ended on the way."""
    ref = Engine(rules, num_games, seed=seed, backend="numpy")
    fast = Engine(rules, num_games, seed=seed, backend="numba")
    rng = np.random.default_rng(seed)
    seats = np.arange(num_games) % rules.num_players
    ended = 0
    for step in range(steps):
        where = f"at step {step}"
        mask = ref.legal_action_mask()
        assert_equal_arrays(fast.legal_action_mask(), mask, err_msg=f"mask {where}")
        assert_equal_arrays(fast.observe(), ref.observe(), err_msg=f"obs {where}")
        assert_equal_arrays(fast.observe(seats), ref.observe(seats),
                            err_msg=f"obs of fixed seats {where}")
        actions = (rng.random(mask.shape) * mask).argmax(axis=1)
        for name, a, b in zip(("rewards", "terminated", "truncated"),
                              fast.step(actions), ref.step(actions), strict=True):
            assert_equal_arrays(a, b, err_msg=f"{name} {where}")
        assert_same_state(snapshot(fast), snapshot(ref))
        done = np.flatnonzero(ref.done)
        if done.size:
            ended += done.size
            ref.reset(games=done)
            fast.reset(games=done)
            assert_same_state(snapshot(fast), snapshot(ref))
    return ended


CASES = [(preset, 4 if preset == "teams" else players)
         for preset in sorted(PRESETS) for players in (2, 3, 4, 6, 10)
         if preset != "teams" or players == 4]


@pytest.mark.parametrize(("preset", "players"), CASES)
def test_backends_play_the_same_games(preset, players):
    rules = Rules.preset(preset, num_players=players, max_turns=150)  # autoresets on the way
    assert lockstep(rules, num_games=16, seed=players, steps=400) > 0


@pytest.mark.parametrize(("preset", "players"), [("computer", 3), ("no_mercy", 4),
                                                 ("house_dobon", 5), ("federation", 2)])
def test_backends_play_the_same_games_with_zero_open(preset, players):
    """A 0 shows the hand (passed with 7-0, shuffled away, eliminated, laid with others)."""
    rules = Rules.preset(preset, num_players=players, max_turns=150, zero_open=True)
    assert lockstep(rules, num_games=16, seed=players, steps=400) > 0


def option_values(field: dataclasses.Field) -> st.SearchStrategy:
    """Values to try for one option of :class:`Rules`."""
    small_ints = {"challenge_penalty": (0, 2, 4), "uno_penalty": (0, 1, 2),
                  "mercy_limit": (0, 15, 25), "feed_penalty": (0, 1, 2),
                  "target_score": (100, 10**6), "rounds": (0, 2),
                  "draw_return_winner_points": (-20, -50), "declare_on_finish": (0, 2)}
    if field.name in CHOICES:
        return st.sampled_from(CHOICES[field.name])
    if field.type in (bool, "bool"):
        return st.booleans()
    return st.sampled_from(small_ints.get(field.name, (field.default,)))


any_options = st.fixed_dictionaries({
    f.name: option_values(f) for f in dataclasses.fields(Rules)
    if f.name not in ("num_players", "max_turns")})


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(options=any_options, players=st.integers(min_value=2, max_value=8),
       seed=st.integers(min_value=0, max_value=2**31 - 1))
def test_backends_agree_on_any_option_combination(options, players, seed):
    if options["teams"]:
        players = 4
    try:
        rules = Rules(num_players=players, max_turns=80, **options)
    except ValueError:
        assume(False)
    lockstep(rules, num_games=4, seed=seed, steps=120)


def test_illegal_action_same_error_and_state_untouched():
    rules = Rules.preset("official")
    messages = []
    for backend in BACKENDS:
        eng = Engine(rules, 3, seed=5, backend=backend)
        before = snapshot(eng)
        actions = eng.legal_action_mask().argmax(axis=1)
        actions[2] = np.flatnonzero(~eng.legal_action_mask()[2])[0]
        with pytest.raises(ValueError, match="game 2") as err:
            eng.step(actions)
        assert_same_state(snapshot(eng), before)
        messages.append(str(err.value))
    assert messages[0] == messages[1]


def test_backend_choice(monkeypatch):
    assert Engine(backend="numpy").backend == "numpy"
    assert Engine(backend="numba").backend == "numba"
    monkeypatch.setenv("UNO_ENV_BACKEND", "numpy")
    assert default_backend() == "numpy" and Engine().backend == "numpy"
    monkeypatch.delenv("UNO_ENV_BACKEND")
    assert Engine().backend == "numba"   # the default when numba is installed
    with pytest.raises(ValueError, match="unknown backend 'cython'"):
        Engine(backend="cython")


# --- the masks the compiled kernels leave ready ----------------------------------------------

def fresh_masks(eng: Engine) -> np.ndarray:
    """The legal masks of ``eng``'s games computed anew, on an engine given a copy of its state."""
    other = Engine(eng.rules, eng.num_games, backend="numba")
    other.state = dataclasses.replace(eng.state, **{
        f.name: getattr(eng.state, f.name).copy() for f in dataclasses.fields(eng.state)})
    return other.legal_action_mask()


@pytest.mark.parametrize("preset", ["official", "federation", "no_mercy"])
def test_masks_after_partial_steps_resets_and_random_play_are_current(preset):
    rules = Rules.preset(preset)
    eng = Engine(rules, 24, seed=5, backend="numba")
    ref = Engine(rules, 24, seed=5, backend="numpy")
    rng = np.random.default_rng(5)
    streams = np.zeros((24, 2), np.uint64)
    for step in range(150):
        games = np.flatnonzero(rng.random(24) < 0.5)
        mask = ref.legal_action_mask(games)
        actions = (rng.random(mask.shape) * mask).argmax(axis=1)
        eng.step(actions, games=games)
        ref.step(actions, games=games)
        np.testing.assert_array_equal(eng.legal_action_mask(), ref.legal_action_mask(),
                                      err_msg=f"after the partial step {step}")
        done = np.flatnonzero(eng.done)
        if done.size:
            eng.reset(games=done)
            ref.reset(games=done)
            np.testing.assert_array_equal(eng.legal_action_mask(), ref.legal_action_mask(),
                                          err_msg=f"after the reset at step {step}")
    some = np.arange(0, 24, 3)
    play_random(eng, some, (eng.current_player[some] + 1) % 4, streams)
    np.testing.assert_array_equal(eng.legal_action_mask(), fresh_masks(eng))


def test_a_mask_handed_out_never_changes():
    eng = Engine(num_games=8, seed=1, backend="numba")
    mask = eng.legal_action_mask()
    before = mask.copy()
    eng.step(mask.argmax(axis=1))
    eng.step(eng.legal_action_mask()[:3].argmax(axis=1), games=[0, 1, 2])
    eng.reset(games=[4])
    play_random(eng, [5, 6], [0, 0], np.zeros((8, 2), np.uint64))
    np.testing.assert_array_equal(mask, before)
    assert not mask.flags.writeable


# --- random play inside the compiled engine ----------------------------------------------------

def test_play_random_stops_at_the_given_seat_and_keeps_cards():
    rules = Rules.preset("official", num_players=4)
    eng = Engine(rules, 64, seed=3, backend="numba")
    until = (eng.current_player + 2) % 4
    streams = np.zeros((64, 2), np.uint64)
    streams[:, 0] = np.arange(64)
    rewards = play_random(eng, np.arange(64), until, streams)
    running = ~eng.done
    assert (eng.current_player[running] == until[running]).all()
    assert (streams[:, 1] >= 1).all()            # a Skip can hand the turn on at once
    np.testing.assert_array_equal(eng.census(), np.broadcast_to(
        eng.deck_composition(), (64, eng.deck_composition().size)))
    assert (rewards[running] == 0).all()
    assert np.allclose(rewards[~running].sum(axis=1), 0)


def test_play_random_picks_uniformly():
    """4000 copies of one position: R1, R2 or a draw (of a B7, then pass), a third each."""
    rules = Rules.preset("official", num_players=2, uno_penalty=0)
    one = Engine.from_setup(rules, hands=[["R1", "R2", "B5"], ["G3"] * 2 + ["Y4"] * 2],
                            top="R9", deck=["B7"], backend="numba")
    assert one.legal_action_names(0) == ["play R1", "play R2", "draw"]
    n = 4000
    eng = Engine(rules, n, backend="numba")
    for field in dataclasses.fields(eng.state):
        getattr(eng.state, field.name)[:] = getattr(one.state, field.name)[0]
    before = eng.state.hands[0, 0].astype(int)
    streams = np.zeros((n, 2), np.uint64)
    streams[:, 0] = np.arange(n, dtype=np.uint64) * 7919
    play_random(eng, np.arange(n), np.ones(n, np.int64), streams)
    change = eng.state.hands[:, 0].astype(int) - before
    laid = np.where(change.min(axis=1) < 0, change.argmin(axis=1), -1)  # -1: drew
    _, counts = np.unique(laid, return_counts=True)
    assert counts.size == 3
    assert (np.abs(counts - n / 3) < 5 * np.sqrt(n / 3)).all()


def test_play_random_checks_its_input():
    eng = Engine(num_games=2, backend="numba")
    with pytest.raises(ValueError, match="until"):
        play_random(eng, [0, 1], [1], np.zeros((2, 2), np.uint64))
    with pytest.raises(ValueError, match="streams"):
        play_random(eng, [0, 1], [1, 1], np.zeros((2, 2), np.int64))


# --- random opponents: the same picks on both backends -----------------------------------------

@pytest.mark.parametrize(("preset", "players"), [("official", 4), ("no_mercy", 3),
                                                 ("official_jp", 7)])
def test_play_random_makes_the_same_picks_on_both_backends(preset, players):
    rules = Rules.preset(preset, num_players=players)
    engines = {b: Engine(rules, 48, seed=5, backend=b) for b in BACKENDS}
    streams = {b: np.stack([np.arange(48, dtype=np.uint64) * 31, np.zeros(48, np.uint64)], 1)
               for b in BACKENDS}
    rng = np.random.default_rng(5)
    for _ in range(12):
        ref = engines["numpy"]
        games = np.flatnonzero(~ref.done & (rng.random(48) < 0.7))
        until = (ref.current_player[games] + rng.integers(1, players, games.size)) % players
        rewards = {b: play_random(engines[b], games, until, streams[b]) for b in BACKENDS}
        np.testing.assert_array_equal(rewards["numba"], rewards["numpy"])
        np.testing.assert_array_equal(streams["numba"], streams["numpy"])
        assert_same_state(snapshot(engines["numba"]), snapshot(ref))
        ended = np.flatnonzero(ref.done)
        for eng in engines.values():
            eng.reset(games=ended)
    assert (streams["numpy"][:, 1] > 0).all()


def play_vec_env(backend: str, monkeypatch, learner_seat: str) -> list:
    """Every step of a seeded UnoVectorEnv with its default random opponents."""
    from uno_env.envs.vector import UnoVectorEnv

    monkeypatch.setenv("UNO_ENV_BACKEND", backend)
    env = UnoVectorEnv(16, num_players=3, learner_seat=learner_seat, seed=3)
    assert env.core.engine.backend == backend
    obs, info = env.reset(seed=11)
    rng = np.random.default_rng(0)
    steps = [obs]
    for _ in range(150):
        mask = info["action_mask"]
        obs, rewards, terminated, truncated, info = env.step(
            (rng.random(mask.shape) * mask).argmax(axis=1))
        steps += [obs, rewards, terminated, truncated, info.get("_final_obs")]
    return steps


@pytest.mark.parametrize("learner_seat", [0, "random"])
def test_the_vector_env_with_random_opponents_plays_the_same_games_on_both_backends(
        monkeypatch, learner_seat):
    ref, fast = (play_vec_env(b, monkeypatch, learner_seat) for b in ("numpy", "numba"))
    assert any(flags is not None for flags in ref[5::5])   # episodes ended and restarted
    for i, (a, b) in enumerate(zip(ref, fast, strict=True)):
        np.testing.assert_array_equal(a, b, err_msg=f"item {i}")


def play_gym_env(backend: str, monkeypatch) -> list:
    """Three seeded episodes of the single-agent env with its default random opponents."""
    from uno_env.envs.gym_env import UnoEnv

    monkeypatch.setenv("UNO_ENV_BACKEND", backend)
    env = UnoEnv(num_players=4, learner_seat="rotate")
    rng = np.random.default_rng(1)
    steps = []
    for episode in range(3):
        obs, info = env.reset(seed=100 + episode)
        steps.append(obs)
        done = False
        while not done:
            mask = info["action_mask"]
            obs, reward, terminated, truncated, info = env.step(
                int((rng.random(mask.shape) * mask).argmax()))
            done = terminated or truncated
            steps += [obs, reward, terminated, truncated, info.get("winner")]
    return steps


def test_the_gym_env_with_random_opponents_plays_the_same_games_on_both_backends(monkeypatch):
    ref, fast = (play_gym_env(b, monkeypatch) for b in ("numpy", "numba"))
    assert len(ref) == len(fast)
    for i, (a, b) in enumerate(zip(ref, fast, strict=True)):
        np.testing.assert_array_equal(a, b, err_msg=f"item {i}")
