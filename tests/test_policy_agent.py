"""Trained policies as agents, and the self-play pool inside the batched env."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from scenario import play_all_seats

pytest.importorskip("sb3_contrib")

import torch
from sb3_contrib import MaskablePPO

from uno_agents import AgentPool, make_agent
from uno_agents.policy import (
    CURRENT_VIEWS,
    HeuristicPriorPolicy,
    PolicyAgent,
    UnoFeatures,
    export_policy,
    view_index,
)
from uno_env import PRESETS, Engine, Rules
from uno_env.actions import NUM_ACTIONS
from uno_env.engine.observe import OBS_SIZE, VIEW_SLICES
from uno_env.vector import UnoVecEnv

pytestmark = pytest.mark.train


@pytest.fixture(scope="module")
def saved_model(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, MaskablePPO]:
    """A MaskablePPO model trained for one tiny rollout, its policy exported to a
    safetensors file (``tiny.safetensors``) and the model saved to a zip beside it."""
    torch.set_num_threads(1)
    env = UnoVecEnv(num_envs=8, preset="official", num_players=2, opponents="greedy", seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=64, n_epochs=1, seed=0,
                        device="cpu", policy_kwargs={"net_arch": [16],
                                                     "features_extractor_class": UnoFeatures})
    model.learn(64)
    folder = tmp_path_factory.mktemp("model")
    model.save(folder / "tiny.zip")
    return str(export_policy(model, folder / "tiny.safetensors")), model


def test_saved_model_round_trips_through_make_agent(saved_model) -> None:
    path, model = saved_model
    agent = make_agent(f"ppo:{path}")
    assert isinstance(agent, PolicyAgent) and agent.name == f"ppo:{path}"
    obs = Engine(Rules(num_players=2), 32, 1).observe()
    with torch.no_grad():
        probs = model.policy.get_distribution(torch.as_tensor(obs)).distribution.probs
        loaded = torch.softmax(torch.as_tensor(agent.logits(obs)), dim=1)
    np.testing.assert_allclose(loaded.numpy(), probs.numpy(), rtol=1e-5, atol=1e-7)
    mask = np.ones((32, NUM_ACTIONS), bool)
    np.testing.assert_array_equal(agent.act(obs, mask, np.random.default_rng(0)),
                                  model.predict(obs, deterministic=True)[0])


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_policy_agent_plays_only_legal_actions_on_every_preset(saved_model, preset) -> None:
    players = 4 if preset == "teams" else 3
    rules = Rules.preset(preset, num_players=players, max_turns=200)
    for agent in (PolicyAgent(saved_model[0]), PolicyAgent(saved_model[0], deterministic=False)):
        assert (play_all_seats(rules, agent, 16, seed=3).winner < players).all()


def test_a_plain_torch_module_is_an_agent() -> None:
    torch.manual_seed(0)
    agent = PolicyAgent(torch.nn.Linear(OBS_SIZE, NUM_ACTIONS))
    eng = play_all_seats(Rules.preset("no_mercy", num_players=2, max_turns=200), agent, 8, 0)
    assert eng.done.all()


def test_sampled_actions_follow_the_rng_and_deterministic_ones_the_rows(saved_model) -> None:
    obs = Engine(Rules(num_players=4), 64, 2).observe()
    mask = Engine(Rules(num_players=4), 64, 2).legal_action_mask()
    greedy = PolicyAgent(saved_model[0])
    perm = np.random.default_rng(0).permutation(64)
    np.testing.assert_array_equal(greedy.act(obs[perm], mask[perm], np.random.default_rng(1)),
                                  greedy.act(obs, mask, np.random.default_rng(2))[perm])
    sampler = PolicyAgent(saved_model[0], deterministic=False)
    a = sampler.act(obs, mask, np.random.default_rng(5))
    np.testing.assert_array_equal(a, sampler.act(obs, mask, np.random.default_rng(5)))
    assert mask[np.arange(64), a].all()


def test_policy_agent_errors_are_clear(tmp_path) -> None:
    with pytest.raises(ValueError, match="missing.safetensors' does not exist"):
        make_agent(f"ppo:{tmp_path / 'missing.safetensors'}")
    with pytest.raises(TypeError, match="PolicyAgent needs"):
        PolicyAgent(42)
    with pytest.raises(ValueError, match="'hand' of size 3"):
        view_index((("hand", 3),))
    assert view_index(CURRENT_VIEWS) is None


def test_recorded_views_are_picked_out_of_the_observation() -> None:
    views = (("color", 4), ("hand", CURRENT_VIEWS[0][1]))
    columns = view_index(views)
    assert columns.size == 4 + CURRENT_VIEWS[0][1]
    color = VIEW_SLICES["color"]
    np.testing.assert_array_equal(columns[:4], np.arange(color.start, color.stop))
    np.testing.assert_array_equal(columns[4:], np.arange(CURRENT_VIEWS[0][1]))


def test_a_policy_of_an_older_observation_reads_its_views_out_of_the_current_one() -> None:
    import gymnasium as gym

    older = sum(size for _, size in CURRENT_VIEWS[:3])       # a layout that ended earlier
    features = UnoFeatures(gym.spaces.Box(0, 1, (older,)))   # saved without its view record
    assert features.views == CURRENT_VIEWS[:3]
    net = torch.nn.Sequential(features, torch.nn.Linear(older, NUM_ACTIONS))
    policy = type("Policy", (), {"features_extractor": features})
    columns = view_index(policy.features_extractor.views)
    obs = Engine(Rules(num_players=2), 4, 0).observe()
    assert obs.shape[1] == OBS_SIZE and net(torch.as_tensor(obs[:, columns])).shape == (4, 119)
    with pytest.raises(ValueError, match="matches no version"):
        UnoFeatures(gym.spaces.Box(0, 1, (older + 1,)))


class ConstantAgent:
    """Plays the first (or last) legal action and records every batch it is given."""

    def __init__(self, last: bool) -> None:
        self.last, self.batches = last, []

    def act(self, observations, masks, rng):
        self.batches.append((observations.copy(), masks.copy()))
        order = masks[:, ::-1] if self.last else masks
        a = order.argmax(axis=1)
        return NUM_ACTIONS - 1 - a if self.last else a


def test_pool_routes_each_game_to_its_member_for_a_whole_episode() -> None:
    first, last = ConstantAgent(False), ConstantAgent(True)
    pool = AgentPool([first, last], weights=[1, 3])
    rng = np.random.default_rng(0)
    pool.start_episodes(np.arange(2000), rng)
    assert 0.7 < pool.assignment.mean() < 0.8               # weights 1:3
    masks = np.zeros((6, NUM_ACTIONS), bool)
    masks[:, [3, 9]] = True
    games = np.array([0, 1, 2, 3, 4, 5])
    expected = np.where(pool.assignment[games] == 1, 9, 3)
    np.testing.assert_array_equal(pool.act_in(None, games, np.zeros((6, 2)), masks, rng),
                                  expected)
    with pytest.raises(ValueError, match="plays per game"):
        pool.act(np.zeros((6, 2)), masks, rng)
    with pytest.raises(ValueError, match="weights"):
        pool.set_members([first], weights=[1, 2])


def test_self_play_opponents_act_only_through_their_observations() -> None:
    """Members of a pool inside the VecEnv get exactly the acting players' observations
    and masks of the games waiting on them, one batch per member per round."""
    env = UnoVecEnv(num_envs=32, preset="official", num_players=3, learner_seat="rotate", seed=4,
                    opponents=AgentPool([make_agent("greedy")]))
    core = env.core

    class Spy(ConstantAgent):
        def act(self, observations, masks, rng):
            s = core.engine.state
            waiting = np.flatnonzero(~core.done & (s.current != core.seats))
            member_games = waiting[pool.assignment[waiting] == pool.members.index(self)]
            np.testing.assert_array_equal(observations, core.engine.observe(games=member_games))
            np.testing.assert_array_equal(masks, core.engine.legal_action_mask(member_games))
            return super().act(observations, masks, rng)

    pool = core.opponents[0]
    spies = [Spy(False), Spy(True)]
    pool.set_members(spies)
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(40):
        masks = env.action_masks()
        env.step(np.where(masks, rng.random(masks.shape), -1).argmax(axis=1))
    assert all(len(s.batches) > 10 for s in spies)


@pytest.mark.parametrize(("model", "players"), [("official-2p", 2), ("official-4p", 4)])
def test_shipped_models_load_and_play_legally(model, players) -> None:
    """The shipped models were trained on observation v0: they keep working as the rules
    view grows (their rule columns are picked out of today's view by option)."""
    agent = make_agent(f"ppo:{model}")
    eng = Engine(Rules(num_players=players), 16, 3)
    masks = eng.legal_action_mask()
    actions = agent.act(eng.observe(), masks, np.random.default_rng(0))
    assert masks[np.arange(16), actions].all()


def test_the_v0_rules_view_is_today_s_without_the_added_options() -> None:
    from uno_agents.policy import RULES_ADDED_AFTER_V0, _rules_columns, legacy_rules_columns
    from uno_env.engine.observe import rules_vector

    rules = Rules(uno_to_finish=True, roulette_color="victim", draw_return_winner="zero",
                  scoring="zero_sum")
    full = rules_vector(rules)
    legacy = full[legacy_rules_columns()]
    widths = {name: cols.size for name, cols in _rules_columns().items()}
    assert legacy.size == full.size - sum(widths[name] for name in RULES_ADDED_AFTER_V0)
    assert {"uno_to_finish", "roulette_color"} <= set(RULES_ADDED_AFTER_V0)
    np.testing.assert_array_equal(legacy, rules_vector(Rules(scoring="zero_sum"))[
        legacy_rules_columns()])


def test_every_rules_view_version_is_today_s_without_the_later_options() -> None:
    from uno_agents.policy import RULES_VIEW_VERSIONS, _rules_columns, rules_view_columns
    from uno_env.engine.observe import RULES_SIZE

    widths = {name: cols.size for name, cols in _rules_columns().items()}
    assert sum(widths.values()) == RULES_SIZE
    assert rules_view_columns(len(RULES_VIEW_VERSIONS) - 1).size == RULES_SIZE
    for version in range(len(RULES_VIEW_VERSIONS) - 1):
        later = [n for added in RULES_VIEW_VERSIONS[version + 1:] for n in added]
        assert rules_view_columns(version).size == RULES_SIZE - sum(widths[n] for n in later)
    assert rules_view_columns(1).size == rules_view_columns(0).size + 3   # v1: 2 options
    with pytest.raises(ValueError, match="version must be"):
        rules_view_columns(len(RULES_VIEW_VERSIONS))


@pytest.mark.parametrize("version", [0, 1, 2])
def test_a_policy_of_an_older_observation_reads_its_own_columns(version) -> None:
    from uno_agents.policy import _layouts, observation_columns, prefix_views, rules_view_columns

    layout = _layouts()[::-1][version]
    size = sum(s for _, s in layout)
    assert size < OBS_SIZE
    assert prefix_views(size) == layout
    columns = observation_columns(size)
    assert columns.size == size
    rules = VIEW_SLICES["rules"]
    inside = columns[(columns >= rules.start) & (columns < rules.stop)]
    np.testing.assert_array_equal(inside - rules.start, rules_view_columns(version))
    assert observation_columns(OBS_SIZE) is None
    with pytest.raises(ValueError, match="matches no version"):
        observation_columns(size + 1)
    if version == 2:   # v3 appended shown_hands: a v2 policy reads none of it
        assert size == 858
        shown = VIEW_SLICES["shown_hands"]
        assert not ((columns >= shown.start) & (columns < shown.stop)).any()


def test_a_heuristic_prior_policy_starts_as_the_heuristic_and_learns_its_corrections(
        tmp_path) -> None:
    torch.set_num_threads(1)
    env = UnoVecEnv(num_envs=8, preset="official", num_players=2, opponents="tuned", seed=0)
    model = MaskablePPO(HeuristicPriorPolicy, env, n_steps=8, batch_size=64, n_epochs=1, seed=0,
                        device="cpu", policy_kwargs={"net_arch": [16], "prior": "tuned",
                                                     "prior_scale": 0.5,
                                                     "features_extractor_class": UnoFeatures})
    eng = Engine(Rules.preset("official", num_players=2), 256, 4)
    obs, mask = eng.observe(), eng.legal_action_mask()
    tuned = make_agent("tuned").act(obs, mask, np.random.default_rng(0))
    untrained = PolicyAgent(model.policy)
    np.testing.assert_array_equal(untrained.act(obs, mask, np.random.default_rng(0)), tuned)
    trained = ("log_prior_scale", "action_net.weight", "action_net.bias", "value_net.weight")
    before = {n: p.detach().clone() for n, p in model.policy.named_parameters()}
    model.learn(64)
    after = dict(model.policy.named_parameters())
    assert not any(torch.equal(before[n], after[n]) for n in trained)
    path = export_policy(model, tmp_path / "prior.safetensors")
    loaded = make_agent(f"ppo:{path}")
    np.testing.assert_allclose(loaded.logits(obs), untrained.logits(obs), rtol=1e-5, atol=1e-4)
    assert loaded.module.policy.prior == "tuned"
    with torch.no_grad():   # the distribution PPO samples from has the same logits
        probs = model.policy.get_distribution(torch.as_tensor(obs)).distribution.probs
    np.testing.assert_allclose(torch.softmax(torch.as_tensor(loaded.logits(obs)), 1).numpy(),
                               probs.numpy(), rtol=1e-4, atol=1e-6)
    with pytest.raises(ValueError, match="no action scores"):
        MaskablePPO(HeuristicPriorPolicy, env, policy_kwargs={"prior": "random"})


# --- model files: no code runs, one clear error, no shadowing, sizes checked at load -------

def test_a_crafted_zip_runs_no_code(tmp_path) -> None:
    """SB3's own loader unpickles a zip's ``data``, so a crafted zip runs its code. Our
    loader interprets the pickled settings as data and refuses the ones that call."""
    from crafted import code_running_zip

    evil, marker = code_running_zip(tmp_path / "evil.zip", tmp_path / "marker"), tmp_path / "marker"
    with pytest.raises(ValueError, match=r"evil\.zip' is not a MaskablePPO model: it builds "
                                         r"or calls objects \(opcode REDUCE\)"):
        make_agent(f"ppo:{evil}")
    assert not marker.exists()
    renamed = tmp_path / "evil.safetensors"    # a zip under another name is refused too
    renamed.write_bytes(evil.read_bytes())
    with pytest.raises(ValueError, match=r"is a zip \(an SB3 model\? name it \.zip\)"):
        make_agent(f"ppo:{renamed}")
    assert not marker.exists()


def test_the_cli_refuses_a_crafted_zip_and_plays_a_real_one(tmp_path, saved_model,
                                                            capsys) -> None:
    from crafted import code_running_zip

    from uno_env.cli import main

    evil = code_running_zip(tmp_path / "evil.zip", tmp_path / "marker")
    for command in (["tournament", "--agents", f"ppo:{evil},greedy", "--games", "2"],
                    ["play", "--opponents", f"ppo:{evil}", "--players", "2"]):
        with pytest.raises(SystemExit, match=r"evil\.zip' is not a MaskablePPO model"):
            main([*command, "--no-progress"] if command[0] == "tournament" else command)
        assert not (tmp_path / "marker").exists()
    tiny = str(saved_model[0]).replace(".safetensors", ".zip")
    assert main(["tournament", "--agents", f"ppo:{tiny},greedy", "--games", "2",
                 "--no-progress"]) == 0
    assert f"ppo:{tiny}" in capsys.readouterr().out


def test_a_zip_read_as_data_plays_as_its_export_does(saved_model) -> None:
    path, _ = saved_model
    zipped = make_agent(f"ppo:{path.replace('.safetensors', '.zip')}")
    obs = Engine(Rules(num_players=2), 64, 5).observe()
    np.testing.assert_array_equal(zipped.logits(obs), make_agent(f"ppo:{path}").logits(obs))


def test_a_plain_pickle_is_read_and_any_call_refused() -> None:
    import pickle

    from uno_agents.sb3_zip import Global, read_plain_pickle

    value = {"net_arch": [128, 128], "views": (("hand", 54),), "scale": False, "x": None,
             "f": 0.25, "cls": Global}
    read = read_plain_pickle(pickle.dumps(value))
    assert read == {**value, "cls": Global("uno_agents.sb3_zip", "Global")}
    for calls in (Path("x"), np.zeros(2), range(3)):
        with pytest.raises(ValueError, match="builds or calls objects"):
            read_plain_pickle(pickle.dumps(calls))


def test_the_shipped_policies_choose_what_the_zips_they_were_converted_from_chose() -> None:
    """``tests/data/ppo_zip_choices.npz`` holds 1,500 positions per shipped policy (the
    policy's own input columns, from official, official_jp, no_mercy and draw_return
    games of tuned and random play) with the legal actions and the action the SB3 zip
    (since replaced by the safetensors file) chose in each."""
    data = np.load(Path(__file__).parent / "data" / "ppo_zip_choices.npz")
    for model in ("official-2p", "official-4p"):
        agent = make_agent(f"ppo:{model}")
        assert agent.name == f"ppo:{model}"
        inputs = data[f"{model}/inputs"]
        masks = np.unpackbits(data[f"{model}/masks"], axis=1, count=NUM_ACTIONS).astype(bool)
        with torch.no_grad():
            logits = agent.module(torch.as_tensor(inputs)).numpy()
        chosen = np.where(masks, logits, -np.inf).argmax(axis=1)
        assert len(chosen) == 1500 and len(np.unique(chosen)) > 50
        np.testing.assert_array_equal(chosen, data[f"{model}/actions"])


def test_nothing_shipped_needs_pickle() -> None:
    from uno_agents.files import MODELS_DIR

    assert not list(MODELS_DIR.glob("*.zip"))
    assert sorted(p.name for p in MODELS_DIR.glob("*.ppo.safetensors")) == [
        "official-2p.ppo.safetensors", "official-4p.ppo.safetensors"]


def rewrite(source, target, config=None, tensors=None) -> str:
    """A copy of the policy file ``source`` at ``target``, its header config and tensors
    changed by the given functions."""
    from safetensors import safe_open
    from safetensors.torch import save_file

    with safe_open(str(source), framework="pt") as f:
        header = json.loads(f.metadata()["uno_env_ppo"])
        weights = {k: f.get_tensor(k) for k in f.keys()}  # noqa: SIM118
    save_file((tensors or dict)(weights), str(target),
              metadata={"uno_env_ppo": json.dumps((config or dict)(header))})
    return str(target)


def test_every_bad_policy_file_is_one_value_error_naming_it(tmp_path, saved_model) -> None:
    from uno_agents.net import PolicyNet, save_net

    good = saved_model[0]
    (tmp_path / "folder.safetensors").mkdir()
    (tmp_path / "folder.zip").mkdir()
    (tmp_path / "empty.safetensors").write_bytes(b"")
    (tmp_path / "noise.safetensors").write_bytes(bytes(range(256)) * 4)
    (tmp_path / "cut.safetensors").write_bytes(Path(good).read_bytes()[:500])
    (tmp_path / "cut.zip").write_bytes(Path(good).with_suffix(".zip").read_bytes()[:3000])
    (tmp_path / "text.zip").write_text("not a zip")
    save_net(tmp_path / "net.safetensors", PolicyNet((8,)))
    cases = {
        "folder.safetensors": "is a folder", "folder.zip": "is a folder",
        "missing.safetensors": "does not exist", "empty.safetensors": "not a safetensors",
        "noise.safetensors": "not a safetensors", "cut.safetensors": "not a safetensors",
        "cut.zip": "not a MaskablePPO model", "text.zip": "not a MaskablePPO model",
        "net.safetensors": "no policy header 'uno_env_ppo' .it is a net: network",
        rewrite(good, tmp_path / "arch.safetensors", lambda c: {**c, "net_arch": [-3]}):
            "net_arch must be positive",
        rewrite(good, tmp_path / "act.safetensors", lambda c: {**c, "activation": "Exec"}):
            "malformed policy header",
        rewrite(good, tmp_path / "acts.safetensors", lambda c: {**c, "actions": 120}):
            "120 actions; this version has 119",
        rewrite(good, tmp_path / "newer.safetensors", lambda c: {**c, "format": 2}):
            "policy header format 2; this version reads format 1",
        rewrite(good, tmp_path / "keys.safetensors", lambda c: {"format": 1}):
            "malformed policy header .KeyError",
        rewrite(good, tmp_path / "view.safetensors",
                lambda c: {**c, "views": [["future", c["views"][0][1]], *c["views"][1:]]}):
            "view 'future' of size 73, which is absent",
        rewrite(good, tmp_path / "size.safetensors", lambda c: {**c, "obs_size": 600}):
            "views add up to .* not the 600 it reads",
        rewrite(good, tmp_path / "fit.safetensors",
                tensors=lambda t: {k: v[:, :5].contiguous() if v.ndim == 2 else v
                                 for k, v in t.items()}):
            "tensors do not fit",
        rewrite(good, tmp_path / "prior.safetensors",
                lambda c: {**c, "policy": "HeuristicPriorPolicy", "prior": "ppo:evil.zip",
                           "prior_scale": 0.5}):
            "prior 'ppo:evil.zip'; a model's prior may only be a built-in heuristic",
    }
    for name, why in cases.items():
        path = tmp_path / name
        with pytest.raises(ValueError, match=f"'{re.escape(str(path))}'.*{why}"):
            make_agent(f"ppo:{path}")


def test_a_folder_named_like_a_shipped_policy_does_not_shadow_it(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "official-2p").mkdir()
    (tmp_path / "official-2p.zip").mkdir()
    agent = make_agent("ppo:official-2p")
    assert agent.name == "ppo:official-2p" and agent.columns is not None   # the shipped v0 one
    with pytest.raises(ValueError, match="'official-2p.zip' is a folder"):
        make_agent("ppo:official-2p.zip")
    with pytest.raises(ValueError, match="ppo model file 'official-2p' is a folder"):
        make_agent("ppo:./official-2p")
    with pytest.raises(ValueError, match=r"no shipped ppo policy 'nope' \(shipped: "
                                         r"official-2p, official-4p\); a file needs a path"):
        make_agent("ppo:nope")


def test_a_policy_for_another_observation_size_is_refused_at_load() -> None:
    import gymnasium as gym
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    for size in (600, OBS_SIZE - 1):   # SB3's MlpPolicy over observations of another size
        policy = MaskableActorCriticPolicy(gym.spaces.Box(-1, 1, (size,)),
                                           gym.spaces.Discrete(NUM_ACTIONS), lambda _: 0.0)
        with pytest.raises(ValueError, match=f"reads {size} observation columns"):
            PolicyAgent(policy)
    with pytest.raises(TypeError, match="export_policy needs a MaskableActorCriticPolicy"):
        export_policy(torch.nn.Linear(2, 2), "x.safetensors")


def test_a_policy_names_only_a_built_in_heuristic_as_its_prior(tmp_path) -> None:
    import sys

    env = UnoVecEnv(num_envs=8, preset="official", num_players=2, opponents="tuned", seed=0)
    model = MaskablePPO(HeuristicPriorPolicy, env, n_steps=8, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [8], "prior": "greedy:challenge_threshold=4",
                                       "features_extractor_class": UnoFeatures})
    path = export_policy(model, tmp_path / "greedy.safetensors")   # a heuristic's spec loads
    assert make_agent(f"ppo:{path}").module.policy.prior == "greedy:challenge_threshold=4"
    model.policy.prior = "ppo:official-2p"    # a prior that would load another model
    with pytest.raises(ValueError, match="names prior 'ppo:official-2p'"):
        export_policy(model, tmp_path / "chained.safetensors")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiments"))
    from uno_agents.training.sb3 import Config

    with pytest.raises(SystemExit, match="--prior must be a built-in heuristic"):
        Config(prior="ppo:official-2p").check()


def test_sb3_s_own_mlp_policy_exports_and_plays_the_same(tmp_path) -> None:
    """A MaskablePPO "MlpPolicy" (SB3's flatten extractor, raw observations, ReLU here)
    round-trips as well as one over UnoFeatures."""
    import gymnasium as gym
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    torch.manual_seed(3)
    policy = MaskableActorCriticPolicy(gym.spaces.Box(-1, 1, (OBS_SIZE,)),
                                       gym.spaces.Discrete(NUM_ACTIONS), lambda _: 0.0,
                                       net_arch={"pi": [16, 8], "vf": [4]},
                                       activation_fn=torch.nn.ReLU)
    loaded = make_agent(f"ppo:{export_policy(policy, tmp_path / 'mlp.safetensors')}")
    obs = Engine(Rules(num_players=3), 32, 1).observe()
    np.testing.assert_array_equal(loaded.logits(obs), PolicyAgent(policy).logits(obs))
    assert not loaded.module.policy.features_extractor.scale
