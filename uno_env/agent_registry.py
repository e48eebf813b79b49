"""Agents by name, without the environment importing an agents package.

The environment takes agents as objects, or as specs (``"greedy"``,
``"ismcts:budget=64"``) that a *factory* turns into objects. The factory is named by
an entry-point string, the way gymnasium names the class behind an environment id:
``"uno_agents:make_agent"`` by default, the agents package that ships with the project
(the folder ``agents/``, installed as ``uno_agents``). :func:`register_factory` names
another. The entry point is imported only when a spec has to be resolved, so the import
graph runs one way: the agents package imports ``uno_env``, never the reverse.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

#: The factory that ships with the project.
DEFAULT_FACTORY = "uno_agents:make_agent"
_factory = DEFAULT_FACTORY


def load_entry_point(entry_point: str) -> Callable[..., Any]:
    """The object ``"module:attribute"`` names (``ValueError`` for a malformed string)."""
    module, sep, attribute = entry_point.partition(":")
    if not sep or not module or not attribute:
        raise ValueError(f"an entry point is 'module:attribute', got {entry_point!r}")
    return getattr(importlib.import_module(module), attribute)


def agent_specs(values: Sequence[str]) -> list[str]:
    """Agent specs from ``--agents`` values: comma-separated, and a piece ``key=value``
    without a name continues the previous spec (``ismcts:budget=64,playout=greedy``)."""
    specs: list[str] = []
    for value in values:
        for piece in filter(None, (p.strip() for p in value.split(","))):
            if specs and "=" in piece and ":" not in piece.split("=")[0]:
                specs[-1] += "," + piece
            else:
                specs.append(piece)
    return specs


def register_factory(entry_point: str) -> None:
    """Resolve agent specs with the factory ``"module:function"`` from now on; the
    function takes ``(spec, **kwargs)`` and returns an agent."""
    global _factory
    load_entry_point(entry_point)   # fail now, not at the first spec
    _factory = entry_point


def make_agent(spec: Any, **kwargs: Any) -> Any:
    """The agent of ``spec`` built by the registered factory (an agent object is returned
    as the factory returns it: itself, once checked)."""
    return load_entry_point(_factory)(spec, **kwargs)


def choose_actions(agent: Any, engine: Any, games: np.ndarray, observations: np.ndarray,
                   masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The actions ``agent`` picks for the acting players of ``engine``'s ``games``:
    through its ``act_in(engine, games, observations, masks, rng)`` when it has one (so
    search agents see the public game), else through ``act``. Tournaments and envs
    that own the engine call this."""
    act_in = getattr(agent, "act_in", None)
    if act_in is not None:
        return act_in(engine, np.asarray(games), observations, masks, rng)
    return agent.act(observations, masks, rng)


def choose_in_parts(parts: Sequence[tuple[Any, np.ndarray]], engine: Any,
                    games: np.ndarray, observations: np.ndarray, masks: np.ndarray,
                    rng: np.random.Generator) -> np.ndarray:
    """The actions of several agents sharing one batch of decisions: each ``(agent, rows)``
    of ``parts`` (``rows`` a bool mask over the batch) picks for its rows through
    :func:`choose_actions`, in the order given (so the random stream is used in that
    order)."""
    actions = np.zeros(len(masks), np.int64)
    for agent, rows in parts:
        if rows.any():
            actions[rows] = choose_actions(agent, engine, games[rows], observations[rows],
                                           masks[rows], rng)
    return actions
