"""The Ray RLlib MultiAgentEnv and one PPO iteration with an action-masking RLModule."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from uno_env.envs.rllib_env import UnoMultiAgentEnv, register_rllib_env


@pytest.mark.rllib
def test_multi_agent_env_turns_and_spaces() -> None:
    env = UnoMultiAgentEnv({"preset": "official", "num_players": 3, "seed": 0})
    obs, _ = env.reset(seed=1)
    rng = np.random.default_rng(0)
    totals = {a: 0.0 for a in env.possible_agents}
    for _ in range(5000):
        assert len(obs) == 1
        (actor, ob), = obs.items()
        assert ob in env.observation_spaces[actor]
        mask = ob["action_mask"].astype(bool)
        obs, rewards, term, trunc, _ = env.step({actor: int(rng.choice(np.flatnonzero(mask)))})
        for a, r in rewards.items():
            totals[a] += r
        if term["__all__"] or trunc["__all__"]:
            break
    assert set(obs) == set(env.possible_agents)
    if term["__all__"]:
        assert sorted(totals.values()) == pytest.approx([-0.5, -0.5, 1.0])


@pytest.mark.rllib
def test_illegal_action_ends_the_episode() -> None:
    env = UnoMultiAgentEnv({"num_players": 2, "seed": 0})
    obs, _ = env.reset()
    (actor, ob), = obs.items()
    illegal = int(np.flatnonzero(ob["action_mask"] == 0)[0])
    obs, rewards, term, trunc, infos = env.step({actor: illegal})
    assert term["__all__"] and not trunc["__all__"]
    assert rewards[actor] == -1.0 and infos[actor]["illegal_action"]


@pytest.mark.rllib
def test_ppo_with_action_masking_module_trains_one_iteration() -> None:
    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    name = register_rllib_env("uno_env_test", preset="official", num_players=2)
    ray.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True,
             log_to_driver=False)
    try:
        config = (
            PPOConfig()
            .environment(name, env_config={"seed": 0})
            .env_runners(num_env_runners=0, rollout_fragment_length=128)
            .multi_agent(policies={"shared"},
                         policy_mapping_fn=lambda agent_id, episode, **kw: "shared")
            .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
                "shared": RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                                       model_config={"head_fcnet_hiddens": [32],
                                                     "fcnet_hiddens": [32]}),
            }))
            .training(train_batch_size_per_learner=256, minibatch_size=64, num_epochs=1)
        )
        algo = config.build_algo()
        try:
            result = algo.train()
        finally:
            algo.stop()
    finally:
        ray.shutdown()
    assert result["training_iteration"] == 1
    learner = result["learners"]["shared"]
    assert np.isfinite(learner["total_loss"])


@pytest.mark.rllib
def test_team_results_in_the_infos() -> None:
    env = UnoMultiAgentEnv({"preset": "teams", "seed": 0})
    obs, _ = env.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(5000):
        (actor, ob), = obs.items()
        action = int(rng.choice(np.flatnonzero(ob["action_mask"])))
        obs, _, term, trunc, infos = env.step({actor: action})
        if term["__all__"] or trunc["__all__"]:
            break
    winner = infos["player_0"]["winner"]
    assert [infos[f"player_{p}"]["team_won"] for p in range(4)] == [
        winner >= 0 and p % 2 == winner % 2 for p in range(4)]


@pytest.mark.rllib
def test_the_former_path_imports_this_module() -> None:
    from test_layers import assert_moved

    assert_moved("uno_env.rllib_env")


def test_agents_take_rllib_observations_as_they_come() -> None:
    from uno_agents import make_agent

    env = UnoMultiAgentEnv({"num_players": 2})
    observations, _ = env.reset(seed=3)
    agent = make_agent("tuned")
    for _ in range(30):
        (seat, observation), = observations.items()
        assert observation["action_mask"].dtype == np.float32
        action = agent.act(observation, rng=None)
        observations, _, terminated, truncated, _ = env.step({seat: int(action)})
        if terminated["__all__"] or truncated["__all__"]:
            break
    # a batch of RLlib dicts: arrays stacked under the same keys
    batch = {"observations": np.stack([observation["observations"]] * 2),
             "action_mask": np.stack([observation["action_mask"]] * 2)}
    assert agent.act(batch, rng=None).shape == (2,)
