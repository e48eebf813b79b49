"""Malformed actions and arguments thrown at every interface (hypothesis).

Each must raise the documented exception (``TypeError`` for a value of the wrong
kind, ``ValueError`` for one out of range; see ``uno_env.checks`` and the README's
"Bad input" section) with the state unchanged, and the interface must keep working.
"""

from __future__ import annotations

import copy
import functools

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from scenario import assert_same_state, snapshot

from uno_env import PRESETS, Engine, Rules
from uno_env.cli import build_parser
from uno_env.engine.search import sample_worlds
from uno_env.envs.gym_env import UnoEnv
from uno_env.envs.pettingzoo_env import env as aec_env
from uno_env.envs.pettingzoo_env import raw_env
from uno_env.envs.vector import UnoVecEnv, UnoVectorEnv

FUZZ = settings(max_examples=40, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])
BAD = (TypeError, ValueError)

#: Single values that are no action id: wrong kinds, and integers beyond 64 bits.
not_an_integer = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=4), st.booleans(),
    st.none(), st.complex_numbers(), st.dictionaries(st.text(max_size=2), st.integers(),
                                                     max_size=2),
    st.sampled_from([np.float64(2.0), np.float32(3.0), np.bool_(True), np.complex64(1j),
                     b"5", [1.5], (2,), object()]),
)
huge = st.one_of(st.integers(min_value=2**63, max_value=2**70),
                 st.integers(min_value=2**63, max_value=2**64 - 1).map(np.uint64))
bad_action = st.one_of(not_an_integer, huge)
bad_seed = st.one_of(not_an_integer.filter(lambda v: v is not None), huge,
                     st.integers(max_value=-1))


def bad_batch(n: int) -> st.SearchStrategy:
    """Batches of actions that are malformed as a whole: a wrong kind or a wrong size."""
    kinds = st.sampled_from([np.float64, np.float32, bool, np.complex128, str])
    return st.one_of(
        kinds.map(lambda kind: np.zeros(n, kind)),
        st.just(np.full(n, None, object)),
        st.lists(not_an_integer, min_size=n, max_size=n),
        st.integers(0, n - 1).map(lambda i: np.where(np.arange(n) == i, np.uint64(2**64 - 1),
                                                     np.uint64(0))),
        st.integers(0, 3).filter(lambda k: k != n).map(lambda k: np.zeros(k, np.int64)),
        not_an_integer,
    )


def same(a, b) -> None:
    assert type(a) is type(b)
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            same(a[key], b[key])
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b)
    else:
        assert a == b


# --- the engine --------------------------------------------------------------------------------

@functools.cache
def engine() -> Engine:
    return Engine(Rules(num_players=3), 4, seed=7)


@FUZZ
@given(actions=bad_batch(4), seed=bad_seed)
def test_engine(actions, seed):
    eng = engine()
    before = snapshot(eng)
    with pytest.raises(BAD):
        eng.step(actions)
    with pytest.raises(BAD):
        eng.reset(seed=seed)
    with pytest.raises(BAD):
        eng.reset(seed=[seed, 1, 2, 3])
    assert_same_state(before, snapshot(eng))


@pytest.mark.parametrize(("kwargs", "error", "words"), [
    (dict(hands=["G1", "B1", "Y3"]), TypeError, "hand is a list of card names"),
    (dict(hands=[["G1"], ["B1"], ["Y3"]], current=1.0), TypeError, "current"),
    (dict(hands=[["G1"], ["B1"], ["Y3"]], current=True), TypeError, "current"),
    (dict(hands=[["G1"], ["B1"], ["Y3"]], seed=-1), ValueError, "seed"),
])
def test_from_setup_names_the_argument(kwargs, error, words):
    with pytest.raises(error, match=words):
        Engine.from_setup(Rules(num_players=3), top="G5", **kwargs)


@pytest.mark.parametrize(("seed", "error"), [(2**64, ValueError), (2**63, ValueError),
                                             (-1, ValueError), (1.0, TypeError),
                                             ("7", TypeError)])
def test_reset_seed_out_of_range_is_a_clear_error(seed, error):
    eng = Engine(Rules(), 2, seed=0)
    with pytest.raises(error, match="seed"):
        eng.reset(seed=seed)
    with pytest.raises(ValueError, match="seed"):
        eng.reset(seed=2**63 - 1)      # numbers two games: the second seed is too large
    eng.reset(seed=np.int64(2**63 - 2))


def test_a_huge_action_is_reported_by_its_real_value():
    eng = Engine(Rules(), 2, seed=0)
    with pytest.raises(ValueError, match="18446744073709551615"):
        eng.step(np.array([0, 2**64 - 1], np.uint64))
    ok = np.asarray(eng.legal_action_mask().argmax(axis=1), np.uint64)
    eng.step(ok)                       # unsigned ids that fit are fine


# --- PettingZoo --------------------------------------------------------------------------------

def aec_state(aec) -> dict:
    base = aec.unwrapped
    return {"state": snapshot(base.engine), "agent": base.agent_selection,
            "rewards": dict(base._cumulative_rewards), "terms": dict(base.terminations)}


@pytest.fixture(scope="module")
def aecs():
    wrapped, raw = aec_env("official", 3), raw_env("official", 3)
    wrapped.reset(seed=1)
    raw.reset(seed=1)
    return wrapped, raw


@FUZZ
@given(action=bad_action, seed=bad_seed)
def test_pettingzoo(aecs, action, seed):
    for aec in aecs:
        before = aec_state(aec)
        with pytest.raises(BAD, match="action"):
            aec.step(action)
        with pytest.raises(BAD, match="seed"):
            aec.reset(seed=seed)
        after = aec_state(aec)
        assert_same_state(before.pop("state"), after.pop("state"))
        assert before == after


def test_pettingzoo_takes_numpy_integers_and_names_bad_actions():
    raw = raw_env("official", 3)
    raw.reset(seed=np.int64(3))
    legal = int(np.flatnonzero(raw.observe(raw.agent_selection)["action_mask"])[0])
    for bad in (2.7, "5", True, None):
        with pytest.raises(TypeError, match="action must be an integer"):
            raw.step(bad)
    raw.step(np.int64(legal))


# --- Gymnasium and the batched envs ------------------------------------------------------------

def core_state(core) -> dict:
    return {"state": snapshot(core.engine), "forfeit": core.forfeit.copy(),
            "seats": core.seats.copy(), "streams": core.streams.copy(),
            "rng": copy.deepcopy(core.rng.bit_generator.state)}


def assert_core_unchanged(before: dict, core) -> None:
    after = core_state(core)
    assert_same_state(before.pop("state"), after.pop("state"))
    for key in before:
        same(before[key], after[key])


@pytest.fixture(scope="module")
def gym_env():
    env = UnoEnv(num_players=3)
    env.reset(seed=5)
    return env


@FUZZ
@given(action=bad_action, seed=bad_seed)
def test_gym_env(gym_env, action, seed):
    before = core_state(gym_env.core)
    with pytest.raises(BAD, match="action"):
        gym_env.step(action)
    with pytest.raises(BAD, match="seed"):
        gym_env.reset(seed=seed)
    assert_core_unchanged(before, gym_env.core)
    assert not gym_env._over


@pytest.fixture(scope="module")
def vec_envs():
    sb3 = UnoVecEnv(4, num_players=3, seed=2)
    sb3.reset()
    gymnasium = UnoVectorEnv(4, num_players=3, seed=2)
    gymnasium.reset(seed=2)
    return sb3, gymnasium


@FUZZ
@given(actions=bad_batch(4), seed=bad_seed)
def test_vector_envs(vec_envs, actions, seed):
    sb3, gymnasium = vec_envs
    for env in vec_envs:
        before = core_state(env.core)
        with pytest.raises(BAD, match="action"):
            env.step(actions)
        assert_core_unchanged(before, env.core)
    with pytest.raises(BAD, match="seed"):
        gymnasium.reset(seed=seed)
    with pytest.raises(BAD, match="seed"):
        gymnasium.reset(seed=[seed, 0, 1, 2])
    with pytest.raises(BAD, match="seed"):
        sb3.seed(seed)
    assert sb3._actions is None


def test_a_failed_step_wait_drops_its_actions(monkeypatch):
    env = UnoVecEnv(2, num_players=3, seed=0)
    env.reset()
    env.step_async(env.action_masks().argmax(axis=1))

    def broken(actions):
        raise RuntimeError("injected")

    monkeypatch.setattr(env.core, "step", broken)
    with pytest.raises(RuntimeError, match="injected"):
        env.step_wait()
    monkeypatch.undo()
    with pytest.raises(RuntimeError, match="without step_async"):
        env.step_wait()


@pytest.mark.parametrize(("kwargs", "error", "name"), [
    (dict(learner_seat=1.5), TypeError, "learner_seat"),
    (dict(learner_seat=True), TypeError, "learner_seat"),
    (dict(learner_seat=3), ValueError, "learner_seat"),
    (dict(learner_seat="left"), ValueError, "learner_seat"),
    (dict(illegal_reward="-1"), TypeError, "illegal_reward"),
    (dict(illegal_reward=float("nan")), ValueError, "illegal_reward"),
    (dict(seed=1.5), TypeError, "seed"),
    (dict(seed=-3), ValueError, "seed"),
    (dict(num_envs=2.0), TypeError, "num_envs"),
    (dict(num_players=3.5), TypeError, "num_players"),
])
def test_constructor_arguments_are_checked(kwargs, error, name):
    args = {"num_players": 3, **kwargs}
    for make in (UnoVecEnv, UnoVectorEnv):
        with pytest.raises(error, match=name):
            make(**args)
    if "seed" not in kwargs and "num_envs" not in kwargs:   # the single env has neither
        with pytest.raises(error, match=name):
            UnoEnv(**args)


def test_numpy_integers_are_accepted_everywhere():
    """Numpy scalars work wherever Python numbers do, and mean the same."""
    env = UnoVecEnv(np.int64(2), num_players=np.int64(3), learner_seat=np.int8(1),
                    seed=np.uint32(4), illegal_reward=np.float32(-2))
    plain = UnoVecEnv(2, num_players=3, learner_seat=1, seed=4, illegal_reward=-2.0)
    assert (env.reset() == plain.reset()).all()
    actions = env.action_masks().argmax(axis=1)
    stepped = env.step(actions.astype(np.uint8))
    expected = plain.step(actions)
    assert all((a == b).all() for a, b in zip(stepped[:3], expected[:3], strict=True))
    single, plain_single = UnoEnv(num_players=3, learner_seat=np.int64(2)), UnoEnv(
        num_players=3, learner_seat=2)
    obs, info = single.reset(seed=np.int64(9))
    assert (obs == plain_single.reset(seed=9)[0]).all()
    action = int(info["action_mask"].argmax())
    assert (single.step(np.int32(action))[0] == plain_single.step(action)[0]).all()


# --- RLlib -------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def rllib_env():
    pytest.importorskip("ray.rllib")
    from uno_env.envs.rllib_env import UnoMultiAgentEnv

    env = UnoMultiAgentEnv({"num_players": 3, "seed": 1})
    env.reset(seed=1)
    return env


def actor(env) -> str:
    return f"player_{int(env.engine.state.current[0])}"


@FUZZ
@given(action=bad_action, seed=bad_seed)
def test_rllib(rllib_env, action, seed):
    before = snapshot(rllib_env.engine)
    with pytest.raises(BAD, match="action"):
        rllib_env.step({actor(rllib_env): action})
    with pytest.raises(BAD, match="seed"):
        rllib_env.reset(seed=seed)
    assert_same_state(before, snapshot(rllib_env.engine))


def test_rllib_rejects_actions_of_players_not_acting_and_steps_after_the_end():
    pytest.importorskip("ray.rllib")
    from uno_env.envs.rllib_env import UnoMultiAgentEnv

    env = UnoMultiAgentEnv({"num_players": 3})
    env.reset(seed=0)
    me = actor(env)
    other = next(a for a in env.possible_agents if a != me)
    legal = int(env.engine.legal_action_mask()[0].argmax())
    before = snapshot(env.engine)
    with pytest.raises(ValueError, match=f"{other}.*only {me} acts"):
        env.step({me: legal, other: legal})
    with pytest.raises(TypeError, match="action_dict"):
        env.step([legal])
    assert_same_state(before, snapshot(env.engine))
    _, rewards, term, _, _ = env.step({me: 500})    # an illegal action ends the episode
    assert term["__all__"] and rewards[me] == -1.0
    with pytest.raises(RuntimeError, match="episode has ended"):
        env.step({me: legal})
    with pytest.raises(TypeError, match="illegal_reward"):
        UnoMultiAgentEnv({"illegal_reward": "high"})


# --- the command line --------------------------------------------------------------------------

@FUZZ
@given(value=st.one_of(st.integers(max_value=-1), st.integers(min_value=2**63),
                       st.sampled_from(["1.5", "abc", "", "1e3", "0x10", "None", "2**63"])))
def test_cli_rejects_bad_numbers_as_usage_errors(capsys, value):
    for option in ("--seed", "--games", "--batch"):
        if option != "--seed" and isinstance(value, int) and value >= 1:
            continue
        with pytest.raises(SystemExit) as exit_info:
            build_parser().parse_args(["simulate", f"{option}={value}"])
        assert exit_info.value.code == 2
        err = capsys.readouterr().err
        assert "usage:" in err and option in err and "Traceback" not in err


# --- the engine's other entry points ----------------------------------------------------------

#: Values that are no index at all, and indexes of every size (most out of range).
bad_index = st.one_of(not_an_integer.filter(lambda v: v is not None), huge,
                      st.integers(max_value=-1), st.integers(min_value=4, max_value=2**62))


@FUZZ
@given(game=bad_index, player=bad_index,
       worlds=st.one_of(not_an_integer.filter(lambda v: v is not None), huge,
                        st.integers(max_value=0), st.integers(min_value=2**20 + 1)))
def test_engine_views_and_worlds(game, player, worlds):
    eng = engine()
    before = snapshot(eng)
    for call in (lambda: eng.hand(game, 0), lambda: eng.top_card(game),
                 lambda: eng.current_color(game), lambda: eng.phase_name(game),
                 lambda: eng.legal_action_names(game)):
        with pytest.raises(BAD, match="game"):
            call()
    with pytest.raises(BAD, match="player"):
        eng.hand(0, player)
    with pytest.raises(BAD, match="players"):
        eng.observe(players=player)
    with pytest.raises(BAD, match="games"):
        eng.observe(games=[game])
    with pytest.raises(BAD, match="games"):
        eng.legal_action_mask([game])
    with pytest.raises(BAD, match="games"):
        eng.step(np.zeros(1, np.int64), games=[game])
    seat = int(eng.state.current[0])
    rng = np.random.default_rng(0)
    with pytest.raises(BAD, match="game"):
        sample_worlds(eng, game, seat, 2, rng)
    with pytest.raises(BAD, match="seat"):
        sample_worlds(eng, 0, player, 2, rng)
    with pytest.raises(BAD, match="num_worlds"):
        sample_worlds(eng, 0, seat, worlds, rng)
    with pytest.raises(BAD, match="rng"):
        sample_worlds(eng, 0, seat, 2, player)
    assert_same_state(before, snapshot(eng))


# --- agents ------------------------------------------------------------------------------------

AGENT_SPECS = ("random", "random_play", "greedy", "defender", "tuned", "ismcts:budget=2",
               "net:official-2p", "ppo:official-2p")


@functools.cache
def built_agent(spec: str):
    if spec.startswith(("net:", "ppo:")):
        pytest.importorskip("torch")
    from uno_agents import make_agent

    return make_agent(spec)


@functools.cache
def decisions() -> tuple[np.ndarray, np.ndarray]:
    eng = Engine(Rules(num_players=2), 3, seed=4)
    return eng.observe(), eng.legal_action_mask()


def bad_act_inputs() -> st.SearchStrategy:
    """(observations, masks, rng, the argument at fault) with exactly one of them bad."""
    obs, masks = decisions()
    bad_obs = st.sampled_from([obs[:2], obs[0], obs.astype(object), "obs", None,
                               obs.astype(np.complex64), obs.tolist()])
    bad_masks = st.sampled_from([masks[:, :-1], masks[:2], masks[0], masks.astype(np.float32) * 0.5,
                                 masks.astype(np.int64) * 3, None, "mask", masks.tolist()])
    bad_rng = st.one_of(not_an_integer.filter(lambda v: not isinstance(v, np.random.Generator)),
                        st.integers())
    return st.one_of(bad_obs.map(lambda o: (o, masks, np.random.default_rng(0), "observations")),
                     bad_masks.map(lambda m: (obs, m, np.random.default_rng(0), "masks")),
                     bad_rng.map(lambda r: (obs, masks, r, "rng")))


@pytest.mark.parametrize("spec", AGENT_SPECS)
@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(inputs=bad_act_inputs())
def test_agent_act(spec, inputs):
    agent = built_agent(spec)
    obs, masks, rng, name = inputs
    if name == "rng" and not getattr(agent, "uses_rng", True):
        return
    with pytest.raises(BAD, match=name):
        agent.act(obs, masks, rng)
    if getattr(agent, "uses_observations", True) and not agent.needs_engine:
        good_obs, good_masks = decisions()
        with pytest.raises(ValueError, match="observations"):   # the wrong width
            agent.act(good_obs[:, :-1], good_masks, np.random.default_rng(1))
    if not agent.needs_engine:
        good_obs, good_masks = decisions()
        actions = agent.act(good_obs, good_masks, np.random.default_rng(1))
        assert good_masks[np.arange(len(actions)), actions].all()


# --- agent specs, rules and presets ------------------------------------------------------------

spec_text = st.text(st.sampled_from("abcdefgimnorstuy_:=,.-0123456789 "), max_size=30)


@FUZZ
@given(name=st.sampled_from(["random", "greedy", "tuned", "defender", "ismcts", "random_play",
                             "nobody"]),
       key=st.sampled_from(["budget", "challenge_threshold", "worlds", "seed", "x", "c"]),
       value=st.one_of(st.text(max_size=8).filter(lambda t: "," not in t),
                       st.sampled_from(["inf", "nan", "-1", "0", "2.7", "1e400", "true",
                                        "9" * 40])))
def test_make_agent_specs(name, key, value):
    from uno_agents import make_agent

    spec = f"{name}:{key}={value}"
    try:
        make_agent(spec)
    except BAD as err:
        text = str(err)
        assert name in text, text
        assert key in text or "unknown agent" in text or "key=value" in text, text


@FUZZ
@given(text=spec_text)
@example(text="net:")
@example(text="ppo:")
@example(text="improved:")
@example(text="net:nope")
@example(text=".:_")
@example(text="..x:Agent")
def test_make_agent_any_text(text):
    from uno_agents import make_agent

    try:
        make_agent(text)
    except BAD as err:
        assert "agent" in str(err), str(err)


@FUZZ
@given(data=st.data())
def test_rules_options(data):
    import dataclasses

    option = data.draw(st.sampled_from([f.name for f in dataclasses.fields(Rules)]))
    value = data.draw(st.one_of(not_an_integer, huge, st.integers(-10**6, 10**7),
                                st.text(max_size=6)))
    try:
        Rules(**{option: value})
    except BAD as err:
        assert option in str(err), str(err)
    with pytest.raises(BAD, match="preset"):
        Rules.preset(data.draw(st.text(max_size=8).filter(lambda t: t not in PRESETS)))
    try:
        Rules.preset("official", **{option: value})
    except BAD as err:
        assert option in str(err), str(err)


# --- the command line's arguments --------------------------------------------------------------

cli_value = st.one_of(st.integers(-3, 12).map(str), st.sampled_from(
    ["", " ", "1.5", "abc", "1e3", "0x10", "-0", "²", "9" * 40, "official,", ",", "nan",
     "greedy:budget=2", "ismcts:budget=abc", "nobody", "random_play,greedy", "teams"]))


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(command=st.sampled_from([
    ("rules", "--preset", "official", "--players", "{}"),
    ("simulate", "--games", "4", "--batch", "4", "--no-progress", "--players", "{}"),
    ("tournament", "--games", "2", "--no-progress", "--agents", "{}"),
    ("tournament", "--games", "2", "--no-progress", "--agents", "random", "--players", "{}"),
    ("tournament", "--games", "2", "--no-progress", "--agents", "random,random", "--presets", "{}"),
    ("tournament", "--games", "2", "--no-progress", "--agents", "random,random", "--preset", "{}"),
    ("play", "--opponents", "{}"),
    ("play", "--players", "{}"),
    ("play", "--seat", "{}"),
]), value=cli_value)
def test_cli_arguments(capsys, monkeypatch, command, value):
    """Every rejected argument ends the command with a usage error (status 2) or one line
    naming the option (status 1), never a traceback."""
    import io

    from uno_env.cli import main

    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    argv = [part.replace("{}", value) for part in command]
    option = command[-2]
    try:
        code = main(argv)
    except SystemExit as exit_info:
        code = exit_info.code
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if code == 2:
        assert "usage:" in err and option in err, err
    elif code not in (0, None):
        message = str(code) if isinstance(code, str) else err
        assert option.lstrip("-") in message or option in message, (argv, message)
