"""A game's trajectory depends only on its seed and its actions (docs/engine.md)."""

from __future__ import annotations

import numpy as np
import pytest
from scenario import assert_same_state, snapshot

from uno_env import Engine, Rules

#: Every test here runs on each backend.
pytestmark = pytest.mark.usefixtures("each_backend")


def per_game_actions(engine: Engine, rngs: list[np.random.Generator]) -> np.ndarray:
    """Each game draws its action from its own generator, whatever the batch."""
    mask = engine.legal_action_mask()
    actions = np.zeros(engine.num_games, np.int64)
    for g, rng in enumerate(rngs):
        legal = np.flatnonzero(mask[g])
        u = rng.random()  # consumed every step, so streams stay aligned across batches
        if legal.size:
            actions[g] = legal[int(u * legal.size)]
    return actions


def trajectory(engine: Engine, rngs: list[np.random.Generator], steps: int) -> dict:
    """Per game: the list of (action, current player, hand sizes, top, reward) and final state."""
    log: dict[int, list] = {g: [] for g in range(engine.num_games)}
    for _ in range(steps):
        if engine.done.all():
            break
        actions = per_game_actions(engine, rngs)
        players = engine.current_player
        rewards, terminated, truncated = engine.step(actions)
        for g in range(engine.num_games):
            log[g].append((int(actions[g]), int(players[g]), engine.hand_sizes[g].tolist(),
                           int(engine.state.top[g]), rewards[g].tolist(), bool(terminated[g]),
                           bool(truncated[g])))
    return log


def game_state(engine: Engine, g: int) -> dict[str, np.ndarray]:
    return {k: v[g] for k, v in snapshot(engine).items()}


@pytest.mark.parametrize("preset", ["official", "official_jp"])
def test_same_seed_same_trajectory(preset):
    rules = Rules.preset(preset, num_players=4)
    runs = []
    for _ in range(2):
        eng = Engine(rules, 5, seed=77)
        rngs = [np.random.default_rng(1000 + g) for g in range(5)]
        runs.append((trajectory(eng, rngs, 150), snapshot(eng), eng.observe()))
    assert runs[0][0] == runs[1][0]
    assert_same_state(runs[0][1], runs[1][1])
    np.testing.assert_array_equal(runs[0][2], runs[1][2])


def test_different_seeds_deal_differently():
    a = Engine(Rules(), 1, seed=1)
    b = Engine(Rules(), 1, seed=2)
    assert not np.array_equal(a.state.hands, b.state.hands)


@pytest.mark.parametrize("batch", [1, 2, 5, 16])
@pytest.mark.parametrize("preset", ["official", "official_jp"])
def test_game_k_of_batch_equals_single_game_seeded_s_plus_k(batch, preset):
    rules = Rules.preset(preset, num_players=3, max_turns=120)
    seed = 40
    eng = Engine(rules, batch, seed=seed)
    log = trajectory(eng, [np.random.default_rng(500 + g) for g in range(batch)], 130)
    for k in {0, batch // 2, batch - 1}:
        single = Engine(rules, 1, seed=seed + k)
        single_log = trajectory(single, [np.random.default_rng(500 + k)], 130)
        n = len(single_log[0])
        assert log[k][:n] == single_log[0]
        assert_same_state(game_state(eng, k), game_state(single, 0))
        np.testing.assert_array_equal(eng.observe()[k], single.observe()[0])


def test_explicit_per_game_seeds():
    seeds = [9, 3, 100]
    eng = Engine(Rules(), 3, seed=seeds)
    for g, s in enumerate(seeds):
        single = Engine(Rules(), 1, seed=s)
        assert_same_state(game_state(eng, g), game_state(single, 0))


def test_reset_with_seed_reproduces_the_deal():
    eng = Engine(Rules(num_players=5), 4, seed=123)
    first = snapshot(eng)
    rng = np.random.default_rng(0)
    for _ in range(30):
        eng.step(per_game_actions(eng, [rng] * 4))
    eng.reset(seed=123)
    after = snapshot(eng)
    assert_same_state(first, after)
    np.testing.assert_array_equal(eng.observe(), Engine(Rules(num_players=5), 4, seed=123)
                                  .observe())


def autoreset_run(batch: int, seed: int, steps: int) -> tuple[dict, dict[str, np.ndarray]]:
    rules = Rules(num_players=3, max_turns=60)
    eng = Engine(rules, batch, seed=seed)
    rngs = [np.random.default_rng(900 + g) for g in range(batch)]
    log: dict[int, list] = {g: [] for g in range(batch)}
    for _ in range(steps):
        actions = per_game_actions(eng, rngs)
        rewards, terminated, truncated = eng.step(actions)
        for g in range(batch):
            log[g].append((int(actions[g]), rewards[g].tolist(), eng.hand_sizes[g].tolist(),
                           bool(terminated[g] | truncated[g])))
        done = np.flatnonzero(terminated | truncated)
        if done.size:
            eng.reset(games=done)
    return log, snapshot(eng)


def test_autoreset_is_reproducible():
    a_log, a_state = autoreset_run(4, 5, 200)
    b_log, b_state = autoreset_run(4, 5, 200)
    assert a_log == b_log
    assert_same_state(a_state, b_state)
    # Several episodes were played in every game.
    assert all(sum(1 for e in log if e[3]) >= 2 for log in a_log.values())


def test_autoreset_game_k_equals_single_game():
    batch_log, batch_state = autoreset_run(3, 5, 200)
    for k in range(3):
        rules = Rules(num_players=3, max_turns=60)
        eng = Engine(rules, 1, seed=5 + k)
        rng = [np.random.default_rng(900 + k)]
        log = []
        for _ in range(200):
            actions = per_game_actions(eng, rng)
            rewards, terminated, truncated = eng.step(actions)
            log.append((int(actions[0]), rewards[0].tolist(), eng.hand_sizes[0].tolist(),
                        bool(terminated[0] | truncated[0])))
            if terminated[0] or truncated[0]:
                eng.reset(games=[0])
        assert log == batch_log[k]
        for name, value in snapshot(eng).items():
            np.testing.assert_array_equal(value[0], batch_state[name][k], err_msg=name)


def test_reset_of_some_games_leaves_the_others_untouched():
    eng = Engine(Rules(), 4, seed=3)
    rng = np.random.default_rng(0)
    for _ in range(10):
        eng.step(per_game_actions(eng, [rng] * 4))
    before = snapshot(eng)
    eng.reset(games=[1, 3])
    after = snapshot(eng)
    for name in before:
        np.testing.assert_array_equal(before[name][[0, 2]], after[name][[0, 2]], err_msg=name)
    assert (eng.state.turns[[1, 3]] == 0).all()
    assert (eng.hand_sizes[[1, 3]].sum(1) >= 28).all()


def test_reset_without_seed_continues_each_game_from_its_own_history():
    a = Engine(Rules(), 3, seed=11)
    b = Engine(Rules(), 3, seed=11)
    a.reset(games=[2])
    b.reset(games=[0, 1, 2])
    for name, value in snapshot(a).items():
        np.testing.assert_array_equal(value[2], snapshot(b)[name][2], err_msg=name)
