"""The single-agent Gymnasium env ``uno_env/Uno-v0``."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest

import uno_env
from uno_agents import GreedyAgent, RandomAgent
from uno_env.actions import NUM_ACTIONS
from uno_env.engine.observe import OBS_SIZE
from uno_env.gym_env import UnoEnv


def run_episode(env: gym.Env, rng: np.random.Generator, seed: int | None = None
                ) -> tuple[float, dict]:
    obs, info = env.reset(seed=seed)
    total = 0.0
    while True:
        mask = env.unwrapped.action_masks()
        assert mask.any() and (mask == info["action_mask"]).all()
        action = int(rng.choice(np.flatnonzero(mask)))
        obs, reward, terminated, truncated, info = env.step(action)
        assert obs.shape == (OBS_SIZE,) and obs.dtype == np.float32
        total += reward
        if terminated or truncated:
            return total, info


@pytest.mark.parametrize("first", ["uno_env", "gymnasium"])
def test_importing_uno_env_registers_the_env_before_or_after_gymnasium(first: str) -> None:
    """``import uno_env`` loads nothing heavy (its names load on first use), so the env is
    registered once Gymnasium is imported too, whichever comes first."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    second = {"uno_env": "gymnasium", "gymnasium": "uno_env"}[first]
    repo = str(Path(__file__).resolve().parents[1])
    done = subprocess.run(
        [sys.executable, "-c", f"import {first}, {second}, gymnasium\n"
                               "print('uno_env/Uno-v0' in gymnasium.registry)"],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([repo, os.environ.get("PYTHONPATH", "")])})
    assert done.stdout.strip() == "True", done.stderr


def test_registered_and_spaces() -> None:
    assert "uno_env/Uno-v0" in gym.registry
    env = gym.make("uno_env/Uno-v0", preset="official", num_players=3)
    space = env.observation_space
    assert isinstance(space, gym.spaces.Box) and space.shape == (OBS_SIZE,)
    assert space.dtype == np.float32 and np.isfinite(space.low).all()
    assert env.action_space == gym.spaces.Discrete(NUM_ACTIONS)
    assert env.unwrapped.rules.num_players == 3
    assert uno_env.__name__ == "uno_env"


@pytest.mark.parametrize("preset", sorted(uno_env.PRESETS))
def test_gymnasium_check_env(preset: str) -> None:
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(UnoEnv(preset=preset), skip_render_check=True)
        check_env(gym.make("uno_env/Uno-v0", preset=preset).unwrapped, skip_render_check=True)


def test_sb3_check_env() -> None:
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(UnoEnv(), warn=True, skip_render_check=True)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_episodes_end_with_the_learner_reward(players: int) -> None:
    env = gym.make("uno_env/Uno-v0", num_players=players, opponents="greedy",
                   learner_seat="rotate")
    rng = np.random.default_rng(0)
    seats = []
    for episode in range(8):
        total, info = run_episode(env, rng, seed=episode)
        seats.append(info["learner_seat"])
        if info["winner"] >= 0:
            expected = 1.0 if info["learner_won"] else -1.0 / (players - 1)
            assert total == pytest.approx(expected)
    assert seats == [i % players for i in range(8)]


def test_rotating_seat_and_opponents_act_inside_step() -> None:
    env = UnoEnv(num_players=4, learner_seat="rotate", opponents=[RandomAgent(), GreedyAgent(),
                                                                   "random"])
    rng = np.random.default_rng(1)
    for episode in range(4):
        env.reset(seed=episode)
        assert env.learner_seat == episode % 4
        for _ in range(5):
            assert env.engine.current_player[0] == env.learner_seat
            _, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            if term or trunc:
                break


def test_reset_is_reproducible() -> None:
    env = UnoEnv(learner_seat="random")
    a, _ = env.reset(seed=7)
    total_a, info_a = run_episode(env, np.random.default_rng(3), seed=7)
    total_b, info_b = run_episode(env, np.random.default_rng(3), seed=7)
    b, _ = env.reset(seed=7)
    np.testing.assert_array_equal(a, b)
    assert total_a == total_b and info_a["winner"] == info_b["winner"]


def test_illegal_action_terminates_with_penalty() -> None:
    env = UnoEnv(illegal_reward=-1.0)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_action"] is True and not env.action_masks().any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env.reset()
    assert env.action_masks().any()


def test_truncation_is_not_termination() -> None:
    env = UnoEnv(num_players=2, max_turns=6)
    rng = np.random.default_rng(0)
    env.reset(seed=1)
    for _ in range(10):
        _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(
            env.action_masks()))))
        if terminated or truncated:
            break
    assert truncated and not terminated


@pytest.mark.train
def test_maskable_ppo_trains_on_the_gym_env() -> None:
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    env = gym.make("uno_env/Uno-v0", num_players=2)
    model = MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128, n_epochs=2, seed=0,
                        policy_kwargs=dict(net_arch=[64, 64]), device="cpu")
    model.learn(total_timesteps=2048)
    loss = model.logger.name_to_value.get("train/loss")
    assert loss is not None and np.isfinite(loss)
    assert model.num_timesteps >= 2048
