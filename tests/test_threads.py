"""The compiled engine on several threads plays exactly the games it plays on one."""

from __future__ import annotations

import numpy as np
import pytest
from scenario import assert_same_state, damage_hand, random_actions, snapshot

from uno_env import Engine, Rules
from uno_env.engine.core import EngineError
from uno_env.engine.packed_rows import observe_packed

pytest.importorskip("numba")

#: Enough games for every call to run on the threads (PARALLEL_DECISION_GAMES is 2048).
GAMES = 2100
RULES = [Rules.preset("official", num_players=4), Rules.preset("no_mercy", num_players=3),
         Rules.preset("house_dobon", num_players=5, auto_forced=True)]


def play(rules: Rules, threads: int, games: int = GAMES, steps: int = 60, seed: int = 7
         ) -> tuple[dict[str, np.ndarray], list[np.ndarray]]:
    """``steps`` random steps (the same random numbers at any thread count), then a reset
    of every game but two (still enough for the threads); the final state and every
    step's observations (float32 and packed), masks and rewards."""
    engine = Engine(rules, games, seed=seed, backend="numba", threads=threads)
    rng = np.random.default_rng(1)
    seen = []
    for _ in range(steps):
        seen += [engine.observe(), observe_packed(engine), engine.legal_action_mask().copy()]
        rewards, terminated, truncated = engine.step(random_actions(engine, rng))
        seen += [rewards, terminated, truncated]
    engine.reset(games=np.delete(np.arange(games), [5, games // 2]))
    seen += [engine.observe(), observe_packed(engine), engine.legal_action_mask().copy()]
    return snapshot(engine), seen


@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.num_players}p")
def test_two_threads_play_the_games_of_one_bit_for_bit(rules):
    state_one, seen_one = play(rules, threads=1)
    state_two, seen_two = play(rules, threads=2)
    assert_same_state(state_one, state_two)
    assert len(seen_one) == len(seen_two)
    for a, b in zip(seen_one, seen_two, strict=True):
        np.testing.assert_array_equal(a, b)


def test_more_threads_than_cores_play_the_same_games():
    rules = RULES[0]
    assert_same_state(play(rules, threads=1, steps=30)[0], play(rules, threads=5, steps=30)[0])


def test_a_game_is_the_same_in_a_batch_of_any_size_on_any_threads():
    """Seeds reproduce games: game ``k`` of a 2100-game batch on 2 threads is the game of
    seed ``7 + k`` played alone (the same random actions drawn per game)."""
    rules = RULES[0]
    big = Engine(rules, GAMES, seed=7, backend="numba", threads=2)
    rows = np.array([3, 250, 1301, 1850, 2099])
    small = Engine(rules, 5, seed=[7 + int(k) for k in rows], backend="numba")
    for step in range(40):
        mask = big.legal_action_mask()
        keys = np.random.default_rng(step).random(mask.shape)
        choice = np.where(mask, keys, -1.0).argmax(axis=1)
        big.step(choice)
        small.step(np.where(small.legal_action_mask(), keys[rows], -1.0).argmax(axis=1))
    for name, value in snapshot(small).items():
        np.testing.assert_array_equal(value, snapshot(big)[name][rows], err_msg=name)


@pytest.mark.parametrize("bad", [5, 290])
def test_an_error_on_a_thread_leaves_every_game_as_it_was(bad):
    """A damaged game in the first or a middle piece of a 2-thread step (each piece saves
    its own rows, and the pieces after the failed one still run): the call raises the
    engine's error naming the game and every game is as before, as on one thread."""
    engine = Engine(Rules(num_players=3, mercy_limit=25), GAMES, seed=5, backend="numba",
                    threads=2)
    actions = random_actions(engine, np.random.default_rng(1))
    damage_hand(engine, bad)
    before = snapshot(engine)
    with pytest.raises(EngineError, match=f"game {bad}"):
        engine.step(actions)
    assert_same_state(before, snapshot(engine))
    keep = np.flatnonzero(np.arange(GAMES) != bad)
    engine.step(actions[keep], games=keep)   # the others step on
    assert (engine.state.turns[keep] == 1).all()


def test_threads_must_be_a_positive_integer():
    with pytest.raises(ValueError, match="threads"):
        Engine(threads=0)
    with pytest.raises(TypeError, match="threads"):
        Engine(threads=1.5)
