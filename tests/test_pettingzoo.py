"""The PettingZoo AEC environment: PettingZoo's own checkers and the adapter's promises.

Every check runs for every preset of ``uno_env.PRESETS`` at 2, 3, 4, 6 and 10
players (combinations the rules reject, such as ``teams`` with 3 players, are
not listed); presets the engine cannot play yet are skipped.
"""

from __future__ import annotations

import functools
import pickle
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test
from pettingzoo.test.seed_test import check_environment_deterministic

import uno_env
from uno_env import NUM_ACTIONS, PRESETS, Engine, Rules
from uno_env.actions import DRAW
from uno_env.engine.observe import OBS_SIZE, observation_bounds
from uno_env.envs.pettingzoo_env import REGISTRY_ID, env, raw_env

PLAYER_COUNTS = (2, 3, 4, 6, 10)


def _valid(preset: str, players: int) -> bool:
    try:
        Rules.preset(preset, num_players=players)
    except ValueError:
        return False
    return True


CASES = [pytest.param(preset, n, id=f"{preset}-{n}p")
         for preset in PRESETS for n in PLAYER_COUNTS if _valid(preset, n)]


def env_fn(preset: str, players: int, **kwargs):
    """A constructor for the checkers."""
    return functools.partial(env, preset, players, **kwargs)


def eager_action(mask: np.ndarray, rng: np.random.Generator) -> int:
    """A random legal card play if there is one, else a random legal action.

    Uniform random play draws so often that most rounds reach ``max_turns``;
    playing cards first ends rounds in a few dozen decisions.
    """
    legal = np.flatnonzero(mask)
    plays = legal[legal < DRAW]
    return int(rng.choice(plays if plays.size else legal))


def random_game(aec, rng: np.random.Generator, max_steps: int = 100_000) -> list[str]:
    """Play one episode through ``agent_iter`` (see ``eager_action``); the acting agents."""
    order = []
    for agent in aec.agent_iter(max_steps):
        obs, _, terminated, truncated, _ = aec.last()
        if terminated or truncated:
            aec.step(None)
            continue
        order.append(agent)
        aec.step(eager_action(obs["action_mask"], rng))
    return order


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        # PettingZoo's checkers advise Box/Discrete observations; ours is the documented Dict.
        warnings.filterwarnings("ignore", message=".*should be gymnasium.spaces.box.*")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        yield


# --- PettingZoo's checkers ----------------------------------------------------------------------

@pytest.mark.parametrize(("preset", "players"), CASES)
def test_api_test(preset, players):
    api_test(env_fn(preset, players)(), num_cycles=8)


@pytest.mark.parametrize(("preset", "players"), CASES)
def test_seed_test(preset, players):
    seed_test(env_fn(preset, players), num_cycles=8)


@pytest.mark.parametrize(("preset", "players"), CASES)
def test_render_test(preset, players):
    render_test(env_fn(preset, players))


@pytest.mark.parametrize(("preset", "players"), CASES)
def test_pickle_round_trip(preset, players):
    fn = env_fn(preset, players)
    original = fn()
    copy = pickle.loads(pickle.dumps(original))
    check_environment_deterministic(original, copy, num_cycles=8)


@pytest.mark.parametrize(("preset", "players"), CASES)
def test_pickle_mid_game_continues_identically(preset, players):
    aec = env_fn(preset, players)()
    aec.reset(seed=11)
    rng = np.random.default_rng(0)
    for _ in range(2 * players):
        obs, *_ = aec.last()
        aec.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    copy = pickle.loads(pickle.dumps(aec))
    assert copy.agent_selection == aec.agent_selection
    for a in aec.agents:
        np.testing.assert_array_equal(copy.observe(a)["observation"],
                                      aec.observe(a)["observation"])
    steps = 6 * players
    assert random_game(copy, np.random.default_rng(5), steps) == random_game(
        aec, np.random.default_rng(5), steps)
    for a in aec.agents:
        np.testing.assert_array_equal(copy.observe(a)["observation"],
                                      aec.observe(a)["observation"])


# --- whole games ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("preset", "players"), CASES)
def test_a_full_game_ends_cleanly(preset, players):
    """A game runs to the end: one winner, every agent told and removed."""
    aec = env_fn(preset, players)()
    rng = np.random.default_rng(1)
    aec.reset(seed=0)
    totals = dict.fromkeys(aec.possible_agents, 0.0)
    finals = {}
    for agent in aec.agent_iter(100_000):
        obs, reward, terminated, truncated, info = aec.last()
        totals[agent] += reward
        assert obs["observation"].shape == (OBS_SIZE,)
        assert obs["action_mask"].shape == (NUM_ACTIONS,)
        if terminated or truncated:
            finals[agent] = (terminated, truncated, info)
            aec.step(None)
            continue
        assert obs["action_mask"].any(), "the acting agent has no legal action"
        aec.step(eager_action(obs["action_mask"], rng))
    assert aec.agents == []
    assert set(finals) == set(aec.possible_agents)
    engine = aec.unwrapped.engine
    if engine.truncated[0]:
        assert all(tr and not te for te, tr, _ in finals.values())
        return
    winner = f"player_{int(engine.winner[0])}"
    assert all(te and not tr for te, tr, _ in finals.values())
    assert all(info["winner"] == winner for *_, info in finals.values())
    if engine.rules.reward == "win":
        assert totals[winner] == pytest.approx(1.0)
        assert sum(totals.values()) == pytest.approx(0.0, abs=1e-5)


VARIANTS = [dict(match=True, target_score=100),
            dict(match=True, scoring="zero_sum", target_score=60),
            dict(reward="points"), dict(auto_forced=True)]


@pytest.mark.parametrize("overrides", VARIANTS,
                         ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_option_variants_pass_the_checkers(overrides):
    fn = functools.partial(env, "official", 3, **overrides)
    api_test(fn(), num_cycles=30)
    seed_test(fn, num_cycles=30)
    aec = fn()
    aec.reset(seed=2)
    order = random_game(aec, np.random.default_rng(2))
    assert order and aec.agents == []


def test_same_agent_acts_several_times_in_a_row():
    aec = env("official", 4)
    rng = np.random.default_rng(2)
    aec.reset(seed=0)
    order = []
    for agent in aec.agent_iter(300):
        obs, _, terminated, truncated, _ = aec.last()
        order.append(agent)
        aec.step(None if terminated or truncated
                 else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert any(a == b for a, b in zip(order, order[1:], strict=False))


def test_agent_selection_follows_the_engine():
    aec = raw_env("official", 3)
    aec.reset(seed=4)
    rng = np.random.default_rng(3)
    for _ in range(60):
        if aec.engine.done[0]:
            break
        assert aec.agent_selection == f"player_{int(aec.engine.current_player[0])}"
        mask = aec.observe(aec.agent_selection)["action_mask"]
        np.testing.assert_array_equal(mask, aec.engine.legal_action_mask()[0].astype(np.int8))
        aec.step(int(rng.choice(np.flatnonzero(mask))))


def test_observe_any_agent():
    aec = raw_env("official", 4)
    aec.reset(seed=9)
    for seat, agent in enumerate(aec.possible_agents):
        obs = aec.observe(agent)
        np.testing.assert_array_equal(obs["observation"], aec.engine.observe(players=seat)[0])
        assert obs["observation"].dtype == np.float32
        assert obs["action_mask"].dtype == np.int8
        assert obs["action_mask"].any() == (agent == aec.agent_selection)
        assert aec.observation_space(agent).contains(obs)


def test_truncation_at_max_turns():
    aec = env("official", 4, max_turns=5)
    aec.reset(seed=0)
    rng = np.random.default_rng(0)
    steps = 0
    for _ in aec.agent_iter(100):
        obs, _, terminated, truncated, _ = aec.last()
        if terminated or truncated:
            assert truncated and not terminated
            aec.step(None)
            continue
        aec.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    assert steps == 5
    assert aec.agents == []


def test_illegal_action_ends_the_game_with_the_illegal_reward():
    aec = env("official", 4, illegal_reward=-3.0)
    aec.reset(seed=0)
    offender = aec.agent_selection
    obs, *_ = aec.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        aec.step(illegal)
    assert all(aec.terminations.values())
    assert aec._cumulative_rewards[offender] == -3.0
    assert sum(aec._cumulative_rewards.values()) == -3.0
    for _ in aec.agent_iter(10):
        _, _, terminated, _, _ = aec.last()
        assert terminated
        aec.step(None)
    assert aec.agents == []


def test_out_of_range_action_is_rejected():
    aec = env("official", 4)
    aec.reset(seed=0)
    with pytest.raises(AssertionError):
        aec.step(NUM_ACTIONS)


# --- reproducibility ------------------------------------------------------------------------------

def _trajectory(aec, seed: int, steps: int = 80) -> list[np.ndarray]:
    aec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    for agent in aec.agent_iter(steps):
        obs, _, terminated, truncated, _ = aec.last()
        out.append(np.concatenate([obs["observation"], [aec.possible_agents.index(agent)]]))
        aec.step(None if terminated or truncated
                 else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return out


def test_reset_with_a_seed_is_reproducible():
    a, b = env("official", 4), env("official", 4)
    first = _trajectory(a, 21)
    np.testing.assert_array_equal(np.stack(first), np.stack(_trajectory(b, 21)))
    np.testing.assert_array_equal(np.stack(first), np.stack(_trajectory(a, 21)))
    assert not np.array_equal(np.stack(first[:5]), np.stack(_trajectory(a, 22)[:5]))


def test_unseeded_resets_follow_the_seeded_one():
    a, b = env("official", 3), env("official", 3)
    for aec in (a, b):
        aec.reset(seed=5)
        aec.reset()
    np.testing.assert_array_equal(a.observe("player_0")["observation"],
                                  b.observe("player_0")["observation"])


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_seed_s_replays_game_s_of_a_batch_engine(players):
    rules = Rules.preset("official", num_players=players)
    batch = Engine(rules, 4, seed=0)
    for s in (0, 3):
        aec = raw_env(rules=rules)
        aec.reset(seed=s)
        games = Engine(rules, 4, seed=0)
        rng = np.random.default_rng(s)
        for _ in range(40):
            if aec.engine.done[0]:
                break
            seat = int(aec.engine.current_player[0])
            assert seat == int(games.current_player[s])
            np.testing.assert_array_equal(aec.observe(aec.agent_selection)["observation"],
                                          games.observe()[s])
            action = int(rng.choice(np.flatnonzero(games.legal_action_mask()[s])))
            aec.step(action)
            games.step([action], games=[s])
    assert batch.num_games == 4


# --- construction and registry --------------------------------------------------------------------

def test_spaces_and_agents():
    aec = env("official", 6)
    aec.reset()
    assert aec.possible_agents == [f"player_{i}" for i in range(6)]
    space = aec.observation_space("player_0")
    assert space["observation"].shape == (OBS_SIZE,)
    assert space["observation"].dtype == np.float32
    assert space["action_mask"].shape == (NUM_ACTIONS,)
    assert space["action_mask"].dtype == np.int8
    assert aec.action_space("player_5").n == NUM_ACTIONS
    assert aec.metadata["name"] == "uno_v0"
    assert aec.metadata["render_modes"] == ["human", "ansi", "rgb_array"]


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_preset_shares_one_observation_space(preset):
    space = raw_env(preset, 4).observation_space("player_0")["observation"]
    low, high = observation_bounds()
    np.testing.assert_array_equal(space.low, low)
    np.testing.assert_array_equal(space.high, high)
    obs = Engine(Rules.preset(preset, num_players=4), 8, seed=0).observe()
    assert ((obs >= low) & (obs <= high)).all()


def test_rule_overrides_and_rules_object():
    assert raw_env("official", 3, challenge=False).rules == Rules.preset(
        "official", num_players=3, challenge=False)
    rules = Rules.preset("official_jp", num_players=5)
    assert raw_env(rules=rules).rules == rules
    with pytest.raises(ValueError, match="unknown rule option"):
        raw_env("official", 4, not_an_option=1)
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="video")


def test_wrapper_stack_is_pettingzoos():
    """env() wraps in PettingZoo's wrappers, which read the raw env's bookkeeping."""
    from pettingzoo.utils import wrappers

    aec = env("official", 3)
    layers = [aec, aec.env, aec.env.env]
    for layer, cls in zip(layers, (wrappers.OrderEnforcingWrapper,
                                   wrappers.AssertOutOfBoundsWrapper,
                                   wrappers.TerminateIllegalWrapper), strict=True):
        assert isinstance(layer, cls)
    assert str(aec) == "uno_v0"
    for name in ("agents", "agent_selection", "rewards", "terminations", "truncations",
                 "infos", "num_agents"):
        with pytest.raises(AttributeError, match=f"{name} cannot be accessed before reset"):
            getattr(aec, name)
    aec.reset(seed=1)
    raw = aec.unwrapped
    for _ in range(5):
        obs, *_ = aec.last()
        aec.step(int(np.flatnonzero(obs["action_mask"])[0]))
        for layer in layers:
            for name in ("agents", "agent_selection", "rewards", "_cumulative_rewards",
                         "terminations", "truncations", "infos"):
                assert getattr(layer, name) is getattr(raw, name)


def test_package_exports():
    assert uno_env.env is env
    assert uno_env.raw_env is raw_env


def test_registered_with_pettingzoo():
    pettingzoo = pytest.importorskip("pettingzoo")
    if not hasattr(pettingzoo, "aec_registry"):
        pytest.skip("this PettingZoo version has no registry")
    assert REGISTRY_ID == "uno_env/uno_v0"
    assert pettingzoo.spec("aec", REGISTRY_ID).entry_point == "uno_env.envs.pettingzoo_env:env"
    aec = pettingzoo.make("aec", REGISTRY_ID, preset="official", num_players=3)
    aec.reset(seed=0)
    assert aec.num_agents == 3
