"""What each Python example of the README and the docs shows, checked once it has run.

An example is run as written, with its printed output captured; every check whose key
is in the example's code then reads the names the example left behind and what it
printed. An example that no check covers fails: add its check here.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable

import numpy as np

from uno_env import NUM_ACTIONS
from uno_env.engine.observe import OBS_SIZE

Check = Callable[[dict, str], None]


def engine_loop(ns: dict, out: str) -> None:
    """The random-play loop ends every game, each won or cut at ``max_turns``."""
    engine = ns["engine"]
    won, cut = (engine.winner >= 0).mean(), engine.truncated.mean()
    assert engine.done.all()
    assert won + cut == 1 and won > 0
    assert out == f"won: {won} truncated: {cut}\n"


def engine_setup(ns: dict, out: str) -> None:
    """The caught bluff: player 0 keeps G2 and R7 and draws 4 (the Wild Draw Four is gone)."""
    hand = ns["eng"].hand(0, 0)
    assert len(hand) == 6 and {"G2", "R7"} <= set(hand) and "WD4" not in hand


def aec_loop(ns: dict, out: str) -> None:
    """Every agent of the AEC game steps out once the round is over."""
    assert ns["env"].agents == []
    assert ns["terminated"] or ns["truncated"]


def aec_render(ns: dict, out: str) -> None:
    """The ANSI picture names the table, the seats and the viewer's hand."""
    assert out.startswith("UNO, 4 players") and "seats:" in out
    assert "player_3" in out and "hand of player_0:" in out


def gym_loop(ns: dict, out: str) -> None:
    """The single-agent episode ends; the learner's reward says whether it won."""
    assert ns["done"] and (ns["terminated"] or ns["truncated"])
    reward, info = ns["reward"], ns["info"]
    assert -1 <= reward <= 1 and info["action_mask"].shape == (NUM_ACTIONS,)
    if "learner_won" in out:
        assert info["learner_won"] == (reward > 0)
        assert out == f"{reward} {info['winner']} {info['learner_won']}\n"


def vector_loop(ns: dict, out: str) -> None:
    """Both batched envs return a row per game and a legal action in every game."""
    obs, infos = ns["obs"], ns["infos"]
    assert obs.shape == (64, OBS_SIZE) and ns["rewards"].shape == (64,)
    assert infos["action_mask"].shape == (64, NUM_ACTIONS)
    assert infos["action_mask"].any(axis=1).all()
    assert ns["venv"].action_masks().any(axis=1).all()


def sb3_smoke(ns: dict, out: str) -> None:
    """MaskablePPO learned its steps; its greedy actions are legal."""
    model, env = ns["model"], ns["env"]
    assert model.num_timesteps >= 64 * 16
    if "actions" in ns:
        masks = env.action_masks()
        assert masks[np.arange(len(masks)), ns["actions"]].all()


def rllib_step(ns: dict, out: str) -> None:
    """One step of the player to act hands the turn to one player, with legal actions."""
    (nxt, ob), = ns["obs"].items()
    assert nxt.startswith("player_") and ob["action_mask"].any()
    assert ns["agent"] in ns["rewards"] and not ns["terminated"]["__all__"]


def head_to_head_print(ns: dict, out: str) -> None:
    """`tuned` beats `random_play` with its interval above 50%, printed as measured."""
    r = ns["r"]
    assert 0.5 < r["low"] < r["win_rate"] < r["high"] and r["games"] == 2 * r["deals"]
    assert out == f"tuned wins {r['win_rate']:.1%} [{r['low']:.1%}, {r['high']:.1%}]\n"


def deal_wins_print(ns: dict, out: str) -> None:
    """`tuned` beats `random_play` over the deals; the paired difference is printed."""
    tuned, greedy = ns["tuned"], ns["greedy"]
    assert tuned.shape == greedy.shape == (500,)
    rate = ns["win_rate"](tuned, 2)
    assert rate["win_rate"] > 0.5
    assert out == f"{rate} {ns['mean_interval'](tuned - greedy)}\n"


#: (a fragment of the example's code, the check it gets)
def agent_on_a_dict(ns: dict, out: str) -> None:
    """The agent acted on the PettingZoo dict as it came: the step was taken, legally."""
    aec, observation = ns["aec"], ns["observation"]
    assert observation["action_mask"].dtype.name == "int8"
    assert not any(aec.terminations.values())      # an illegal action would end the game


CHECKS: list[tuple[str, Check]] = [
    ("# the PettingZoo dict as it comes", agent_on_a_dict),
    ("engine.winner >= 0", engine_loop),
    ("Engine.from_setup(", engine_setup),
    ("uno_env.env(", aec_loop),
    ("env.render()", aec_render),
    ('gym.make("uno_env/Uno-v0"', gym_loop),
    ("UnoVectorEnv(", vector_loop),
    ("MaskablePPO(", sb3_smoke),
    ("UnoMultiAgentEnv(", rllib_step),
    ("head_to_head(", head_to_head_print),
    ("deal_wins(", deal_wins_print),
]


def run_example(code: str, where: str) -> None:
    """Run ``code`` as written, then every check whose key it contains."""
    checks = [check for key, check in CHECKS if key in code]
    assert checks, f"{where}: no check of what this example shows (tests/example_checks.py)"
    ns: dict = {"__name__": "example"}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, where, "exec"), ns)
    for check in checks:
        check(ns, printed.getvalue())
