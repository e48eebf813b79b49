"""A person at the keyboard, behind the same batch interface as every agent.

:class:`HumanAgent` lists the legal actions of each decision by number and name
and reads the choice from a text stream (a number or an action name such as
``play R5``); a wrong entry is asked again. :func:`play_in_terminal` deals one
game against agents and shows the table with the text renderer after every
move: the ``uno-env play`` command.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from typing import TextIO

import numpy as np

from uno_env.actions import action_id, action_name
from uno_env.engine import Engine
from uno_env.envs.render import render_ansi
from uno_env.rules import Rules

from .base import Agent, BatchAgent, check_batch, choose_actions

#: A choice by number: a few ASCII digits (``str.isdigit`` also accepts ``²``, which
#: ``int`` rejects).
_CHOICE = re.compile(r"[0-9]{1,6}")


class HumanAgent(Agent):
    """Asks a person for each decision on ``input`` (default stdin), writing to ``output``.

    End of input raises ``EOFError`` (the caller decides how to stop).
    """

    name = "human"
    uses_observations = False

    def __init__(self, input: TextIO | None = None, output: TextIO | None = None) -> None:
        self.input = input
        self.output = output

    def act(self, observations: np.ndarray, masks: np.ndarray,
            rng: np.random.Generator) -> np.ndarray:
        check_batch(observations, masks)
        return np.array([self.ask(np.flatnonzero(row)) for row in masks], np.int64)

    def ask(self, legal: np.ndarray) -> int:
        """One legal action id, read until the entry names one of ``legal``."""
        out = self.output or sys.stdout
        names = [action_name(a) for a in legal]
        print("Your move:", file=out)
        for i, name in enumerate(names, 1):
            print(f"  {i:>2}) {name}", file=out)
        while True:
            print(f"choose 1-{len(names)} or an action name: ", end="", file=out, flush=True)
            line = (self.input or sys.stdin).readline()
            if not line:
                raise EOFError("input ended")
            chosen = self._parse(line.strip(), legal)
            if chosen is not None:
                return chosen
            print(f"  {line.strip()!r} is not one of the legal actions above", file=out)

    @staticmethod
    def _parse(text: str, legal: np.ndarray) -> int | None:
        """The legal action ``text`` names (a number from the list or an action name), or
        None for anything else (other digits, such as ``²``, and huge numbers included)."""
        if _CHOICE.fullmatch(text):
            i = int(text)
            return int(legal[i - 1]) if 1 <= i <= legal.size else None
        try:
            a = action_id(text)
        except ValueError:
            return None
        return a if a in legal else None


def play_in_terminal(rules: Rules, opponents: Sequence[BatchAgent], seat: int = 0,
                     seed: int | None = None, input: TextIO | None = None,
                     output: TextIO | None = None, color: bool = True) -> int:
    """Deal one game with a person in ``seat`` and ``opponents`` in the other seats (in
    seat order); returns the winner's seat (-1 if truncated or abandoned).

    The table is shown after every move; the person's decisions are read by a
    :class:`HumanAgent`. End of input abandons the game cleanly.
    """
    p = rules.num_players
    if len(opponents) != p - 1:
        raise ValueError(f"{p} players need {p - 1} opponents, got {len(opponents)}")
    if not 0 <= seat < p:
        raise ValueError(f"seat {seat} is not a seat 0-{p - 1}")
    out = output or sys.stdout
    seats: list[BatchAgent] = list(opponents)
    seats.insert(seat, HumanAgent(input, out))
    engine = Engine(rules, 1, seed)
    rng = np.random.default_rng(seed)
    game = np.array([0])
    print(render_ansi(engine, 0, viewer=seat, color=color), file=out)
    while not engine.state.done[0]:
        actor = int(engine.state.current[0])
        mask = engine.legal_action_mask(game)
        try:
            action = choose_actions(seats[actor], engine, game, engine.observe(games=game),
                                    mask, rng)
        except EOFError:
            print("\ninput ended: game abandoned", file=out)
            return -1
        print(f"player_{actor}{' (you)' if actor == seat else ''}: {action_name(action[0])}",
              file=out)
        engine.step(action, games=game)
        print(render_ansi(engine, 0, viewer=seat, color=color), file=out)
    winner = int(engine.state.winner[0])
    result = "truncated" if winner < 0 else ("you win!" if winner == seat
                                             else f"player_{winner} wins")
    print(f"game over: {result}; round points {engine.state.round_points[0].tolist()}",
          file=out)
    return winner
