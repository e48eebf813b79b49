"""The environment constructors refuse what they cannot use, naming the argument and
what it accepts, and never ignore an argument silently."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from uno_env import Rules
from uno_env.envs.gym_env import UnoEnv
from uno_env.envs.pettingzoo_env import raw_env
from uno_env.envs.vector import UnoVectorEnv


def rllib(**kwargs: Any) -> Any:
    env = pytest.importorskip("uno_env.envs.rllib_env")
    return env.UnoMultiAgentEnv(kwargs)


def sb3_vec(**kwargs: Any) -> Any:
    pytest.importorskip("stable_baselines3")
    from uno_env.envs.vector import UnoVecEnv

    return UnoVecEnv(num_envs=2, **kwargs)


CONSTRUCTORS: dict[str, Callable[..., Any]] = {
    "gym": UnoEnv, "vector": lambda **k: UnoVectorEnv(num_envs=2, **k), "sb3": sb3_vec,
    "pettingzoo": raw_env, "rllib": rllib}
WITH_REWARD = ("gym", "vector", "sb3", "rllib")
TWO = Rules.preset("official", num_players=2)


@pytest.mark.parametrize("env", CONSTRUCTORS)
def test_rules_given_as_a_preset_name_is_a_type_error_naming_rules(env: str) -> None:
    with pytest.raises(TypeError, match=r"rules must be a Rules .*got str 'official'; a "
                                        r"preset's name goes in preset="):
        CONSTRUCTORS[env](rules="official")


@pytest.mark.parametrize("env", CONSTRUCTORS)
def test_num_players_contradicting_the_rules_is_refused(env: str) -> None:
    with pytest.raises(ValueError, match="num_players=4 contradicts the rules given, which "
                                         "have 2 players"):
        CONSTRUCTORS[env](rules=TWO, num_players=4)
    assert CONSTRUCTORS[env](rules=TWO, num_players=2).rules.num_players == 2
    assert CONSTRUCTORS[env](rules=TWO).rules.num_players == 2
    assert CONSTRUCTORS[env]().rules.num_players == 4


@pytest.mark.parametrize("env", CONSTRUCTORS)
@pytest.mark.parametrize(("players", "error", "message"), [
    (1, ValueError, "num_players must be an integer from 2 to 10, got 1"),
    (11, ValueError, "num_players must be an integer from 2 to 10, got 11"),
    (True, TypeError, "num_players must be an integer, got bool True"),
    ("4", TypeError, "num_players must be an integer, got str '4'"),
])
def test_a_bad_num_players_names_it(env: str, players: Any, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        CONSTRUCTORS[env](num_players=players)


@pytest.mark.parametrize("env", WITH_REWARD)
@pytest.mark.parametrize(("reward", "error", "message"), [
    ("x", TypeError, "illegal_reward must be a real number, got str 'x'"),
    (None, TypeError, "illegal_reward must be a real number, got NoneType None"),
    (True, TypeError, "illegal_reward must be a real number, got bool True"),
    (1 << 2000, ValueError, "illegal_reward must be finite"),
    (float("inf"), ValueError, "illegal_reward must be finite"),
])
def test_an_illegal_reward_of_the_wrong_kind_names_it(env: str, reward: Any, error: type,
                                                      message: str) -> None:
    with pytest.raises(error, match=message):
        CONSTRUCTORS[env](illegal_reward=reward)
