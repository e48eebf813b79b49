"""One convention across the interfaces: agents take masks of any 0/1 dtype and the
PettingZoo and RLlib observation dicts as they come; the Gymnasium and batched envs
render as text and pictures."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest

from uno_agents import make_agent
from uno_env import Engine, Rules
from uno_env.envs.gym_env import UnoEnv

AGENTS = ["random", "random_play", "greedy", "tuned", "defender"]


@pytest.fixture(scope="module")
def decisions() -> tuple[np.ndarray, np.ndarray]:
    eng = Engine(Rules(num_players=3), 5, seed=7)
    return eng.observe(), eng.legal_action_mask()


@pytest.mark.parametrize("spec", AGENTS)
@pytest.mark.parametrize("dtype", [np.int8, np.float32, np.uint8, np.float64])
def test_masks_of_any_01_dtype_give_the_same_actions(decisions, spec: str, dtype) -> None:
    obs, masks = decisions
    agent = make_agent(spec)
    expected = agent.act(obs, masks, np.random.default_rng(3))
    got = agent.act(obs, masks.astype(dtype), np.random.default_rng(3))
    assert got.tolist() == expected.tolist()


def test_a_mask_with_other_values_is_named(decisions) -> None:
    obs, masks = decisions
    with pytest.raises(ValueError, match="masks must hold only 0 and 1"):
        make_agent("greedy").act(obs, masks.astype(np.float32) * 0.5, None)
    with pytest.raises(TypeError, match="observation dict needs one of the keys"):
        make_agent("greedy").act({"obs": obs}, masks, None)


@pytest.mark.parametrize("spec", ["random", "greedy", "tuned"])
def test_agents_take_pettingzoo_observations_as_they_come(spec: str) -> None:
    from uno_env import env as make_env

    aec = make_env("official", 3)
    aec.reset(seed=5)
    agent, rng = make_agent(spec), np.random.default_rng(0)
    for _ in range(40):
        observation, _, terminated, truncated, _ = aec.last()
        if terminated or truncated:
            break
        assert observation["action_mask"].dtype == np.int8
        action = agent.act(observation, rng=rng)        # the dict as it comes, unbatched
        assert np.ndim(action) == 0 and observation["action_mask"][action] == 1
        aec.step(action)


def test_the_gymnasium_env_renders_text_and_pictures() -> None:
    pytest.importorskip("PIL")
    with warnings.catch_warnings():
        warnings.simplefilter("error")                 # no render-mode warning from make
        text_env = gym.make("uno_env/Uno-v0", num_players=2, render_mode="ansi")
    text_env.reset(seed=1)
    text = text_env.render()
    assert isinstance(text, str) and "UNO, 2 players" in text and "hand of player_0" in text
    env = UnoEnv(num_players=3, learner_seat=1, render_mode="rgb_array")
    env.reset(seed=2)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.shape == (600, 960, 3)
    assert "rgb_array" in env.metadata["render_modes"] and env.metadata["render_fps"] > 0
    with pytest.raises(ValueError, match="render_mode 'human' is not one of"):
        UnoEnv(render_mode="human")


def test_record_video_takes_the_gymnasium_env(tmp_path) -> None:
    pytest.importorskip("PIL")
    pytest.importorskip("moviepy")
    from gymnasium.wrappers import RecordVideo

    env = RecordVideo(gym.make("uno_env/Uno-v0", num_players=2, render_mode="rgb_array"),
                      str(tmp_path), episode_trigger=lambda _: True)
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    env.close()
    assert list(tmp_path.glob("*.mp4"))


def test_the_vecenv_renders_and_sb3_keeps_its_render_mode() -> None:
    pytest.importorskip("stable_baselines3")
    pytest.importorskip("PIL")
    from stable_baselines3.common.vec_env import VecMonitor

    from uno_env.envs.vector import UnoVecEnv, UnoVectorEnv

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vec = VecMonitor(UnoVecEnv(num_envs=2, num_players=2, render_mode="ansi", seed=0))
    vec.reset()
    assert vec.render_mode == "ansi" and "UNO, 2 players" in vec.render()
    pictures = UnoVecEnv(num_envs=2, num_players=2, render_mode="rgb_array", seed=0)
    pictures.reset()
    assert pictures.render().shape == (600, 960, 3) and len(pictures.get_images()) == 2
    gym_vec = UnoVectorEnv(num_envs=2, num_players=2, render_mode="ansi")
    gym_vec.reset(seed=0)
    assert "UNO, 2 players" in gym_vec.render()
    with pytest.raises(ValueError, match="render_mode 'rgb' is not one of"):
        UnoVecEnv(num_envs=2, render_mode="rgb")
