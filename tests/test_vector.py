"""The batched learner envs: SB3 VecEnv and Gymnasium VectorEnv over one Engine."""

from __future__ import annotations

import numpy as np
import pytest

from uno_agents import GreedyAgent, RandomAgent
from uno_env.actions import NUM_ACTIONS
from uno_env.engine.observe import OBS_SIZE
from uno_env.learner import LearnerCore
from uno_env.rules import PRESETS, Rules
from uno_env.vector import UnoVectorEnv

pytest.importorskip("stable_baselines3")
from stable_baselines3.common.vec_env import VecEnv

from uno_env.vector import UnoVecEnv


def masked_random(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.where(masks, rng.random(masks.shape), -1.0).argmax(axis=1)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_core_hands_every_game_back_to_its_learner(preset: str) -> None:
    rules = Rules.preset(preset, num_players=4)
    core = LearnerCore(rules, 64, opponents=[RandomAgent(), GreedyAgent(), RandomAgent()],
                       learner_seat="rotate", seed=0)
    rng = np.random.default_rng(0)
    np.testing.assert_array_equal(core.seats, np.arange(64) % 4)
    for _ in range(30):
        live = ~core.done
        np.testing.assert_array_equal(core.engine.current_player[live], core.seats[live])
        masks = core.action_masks()
        assert masks[live].any(axis=1).all() and not masks[~live].any()
        _, term, trunc, illegal = core.step(masked_random(masks, rng))
        assert not illegal.any()
        ended = np.flatnonzero(term | trunc)
        core.reset(games=ended)


def test_core_observes_a_subset_as_rows_of_the_batch() -> None:
    core = LearnerCore(Rules.preset("official", num_players=3), 16, learner_seat="random",
                       seed=2)
    rng = np.random.default_rng(2)
    for _ in range(20):
        games = np.flatnonzero(rng.random(16) < 0.4)
        np.testing.assert_array_equal(core.observe(games), core.observe()[games])
        _, term, trunc, _ = core.step(masked_random(core.action_masks(), rng))
        core.reset(games=np.flatnonzero(term | trunc))


def test_terminal_observation_is_the_learners_last_view(monkeypatch) -> None:
    env = UnoVecEnv(num_envs=32, num_players=4, learner_seat="rotate", seed=3)
    env.reset()
    core = env.core
    last_views: dict[int, np.ndarray] = {}
    reset = core.reset

    def recording_reset(*args, games=None, **kwargs):   # the batch as the episodes end
        last_views.update({int(g): core.observe()[g] for g in games})
        reset(*args, games=games, **kwargs)

    monkeypatch.setattr(core, "reset", recording_reset)
    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(200):
        last_views.clear()
        _, _, dones, infos = env.step(masked_random(env.action_masks(), rng))
        for g in np.flatnonzero(dones):
            np.testing.assert_array_equal(infos[g]["terminal_observation"], last_views[int(g)])
            checked += 1
    assert checked >= 4


def test_sb3_vec_env_api() -> None:
    env = UnoVecEnv(num_envs=32, num_players=3, learner_seat="rotate", seed=1)
    assert isinstance(env, VecEnv) and env.num_envs == 32
    assert env.observation_space.shape == (OBS_SIZE,)
    assert env.action_space.n == NUM_ACTIONS
    obs = env.reset()
    assert obs.shape == (32, OBS_SIZE) and obs.dtype == np.float32
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(300):
        masks = env.action_masks()
        assert masks.shape == (32, NUM_ACTIONS) and masks.dtype == bool
        assert masks.any(axis=1).all()             # every game waits on its learner
        np.testing.assert_array_equal(np.stack(env.env_method("action_masks")), masks)
        obs, rewards, dones, infos = env.step(masked_random(masks, rng))
        assert obs.shape == (32, OBS_SIZE) and rewards.shape == (32,) and dones.shape == (32,)
        assert rewards.dtype == np.float32 and len(infos) == 32
        for i in np.flatnonzero(dones):
            info = infos[i]
            assert info["terminal_observation"].shape == (OBS_SIZE,)
            assert not np.array_equal(info["terminal_observation"], obs[i])   # reset same step
            if not info["TimeLimit.truncated"]:
                expected = 1.0 if info["learner_won"] else -0.5
                assert rewards[i] == pytest.approx(expected)
            finished += 1
        assert all("terminal_observation" not in infos[i] for i in np.flatnonzero(~dones))
    assert finished >= 16
    assert env.get_attr("render_mode") == [None] * 32
    assert env.env_is_wrapped(object) == [False] * 32
    assert env.has_attr("action_masks")


def test_sb3_vec_env_seeding_is_reproducible() -> None:
    def trajectory(seed: int) -> np.ndarray:
        env = UnoVecEnv(num_envs=8, opponents="greedy")
        env.seed(seed)
        out = [env.reset()]
        for _ in range(20):
            out.append(env.step(env.action_masks().argmax(axis=1))[0])
        return np.stack(out)

    np.testing.assert_array_equal(trajectory(5), trajectory(5))
    assert not np.array_equal(trajectory(5), trajectory(6))


def test_illegal_action_ends_only_that_episode() -> None:
    env = UnoVecEnv(num_envs=4, illegal_reward=-2.0, seed=0)
    env.reset()
    actions = env.action_masks().argmax(axis=1)
    actions[2] = int(np.flatnonzero(~env.action_masks()[2])[0])
    _, rewards, dones, infos = env.step(actions)
    assert dones[2] and rewards[2] == -2.0 and infos[2]["illegal_action"]
    assert "illegal_action" not in infos[0] or not infos[0]["illegal_action"]
    assert env.action_masks()[2].any()              # already reset


def test_gymnasium_vector_env_same_step_autoreset() -> None:
    from gymnasium.vector import AutoresetMode

    env = UnoVectorEnv(num_envs=16, num_players=2, seed=0)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    obs, info = env.reset(seed=3)
    assert obs in env.observation_space and obs.shape == (16, OBS_SIZE)
    assert info["action_mask"].shape == (16, NUM_ACTIONS)
    rng = np.random.default_rng(0)
    seen_final = False
    for _ in range(200):
        obs, rewards, terminated, truncated, infos = env.step(
            masked_random(env.action_masks(), rng))
        assert obs.shape == (16, OBS_SIZE) and rewards.shape == (16,)
        ended = terminated | truncated
        if ended.any():
            seen_final = True
            np.testing.assert_array_equal(infos["_final_obs"], ended)
            for i in np.flatnonzero(ended):
                assert infos["final_obs"][i].shape == (OBS_SIZE,)
            assert (rewards[terminated] != 0).all()
        assert env.action_masks().any(axis=1).all()
    assert seen_final


@pytest.mark.train
def test_maskable_ppo_trains_on_the_vec_env() -> None:
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    torch.set_num_threads(1)
    env = VecMonitor(UnoVecEnv(num_envs=64, num_players=4, learner_seat="rotate", seed=0))
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=512, n_epochs=2, seed=0,
                        policy_kwargs=dict(net_arch=[64, 64]), device="cpu")
    model.learn(total_timesteps=64 * 64 * 2)
    loss = model.logger.name_to_value.get("train/loss")
    assert loss is not None and np.isfinite(loss)
    assert model.num_timesteps >= 8192


def test_auto_forced_rewards_reach_the_learner() -> None:
    env = UnoVecEnv(num_envs=32, num_players=2, auto_forced=True, seed=0)
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(200):
        _, rewards, dones, infos = env.step(masked_random(env.action_masks(), rng))
        for i in np.flatnonzero(dones):
            if not infos[i]["TimeLimit.truncated"]:
                assert rewards[i] == (1.0 if infos[i]["learner_won"] else -1.0)
        assert env.action_masks().any(axis=1).all()
