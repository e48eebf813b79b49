"""Batch agents for UNO: ``act(observations[B, D], masks[B, A], rng) -> actions[B]``.

``RandomAgent`` plays uniformly among legal actions, ``RandomPlayAgent`` is the
random baseline that plays a card whenever it can; ``GreedyAgent`` is a
rule-based player reading only its observation. :func:`make_agent` builds an
agent from a spec such as ``"greedy"`` or ``"greedy:challenge_threshold=4"``, so
configs and command lines can name opponents, and names agents defined elsewhere
(``my_agents.py:Hoarder``, ``module:Class``, installed packages' entry points:
:mod:`uno_agents.outside`). :func:`per_game` makes a batch agent of a function that
decides one game at a time (:mod:`uno_agents.single`).
"""

from __future__ import annotations

from typing import Any

from .base import Agent, BatchAgent, choose_actions, masked_argmax
from .files import shipped_stems
from .greedy import GreedyAgent
from .heuristics import DefenderAgent, LinearAgent, TunedAgent
from .ismcts import IsmctsAgent
from .outside import ENTRY_POINT_GROUP, entry_points, from_object, make_outside
from .pool import AgentPool
from .random_agent import RandomAgent
from .random_play import RandomPlayAgent
from .single import SingleGameAgent, per_game
from .spec import SpecError, build, split_spec

#: The agents of trained models: ``<prefix>:<model>``, a shipped model's stem or a file,
#: and the suffix of the shipped files of each.
MODEL_FAMILIES = {"net": ".safetensors", "ppo": ".ppo.safetensors", "improved": ".pt"}

#: Agents constructible by name.
AGENTS: dict[str, type[Agent]] = {"random": RandomAgent, "random_play": RandomPlayAgent,
                                  "greedy": GreedyAgent, "defender": DefenderAgent,
                                  "tuned": TunedAgent, "ismcts": IsmctsAgent}


def _value(text: str) -> Any:
    """A spec value: an int, a float, true/false, or else the text itself."""
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def parse_agent_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"name:key=value,key=value"`` as ``(name, {key: value})`` (values typed by
    :func:`_value`); raises ``ValueError`` naming the malformed part. :func:`make_agent`
    reads each value as the type of the parameter it sets instead (:mod:`uno_agents.spec`)."""
    name, texts = split_spec(spec)
    return name, {key: _value(text) for key, text in texts.items()}


def make_agent(spec: str | BatchAgent, **kwargs: Any) -> BatchAgent:
    """An agent from a spec ``"name"`` or ``"name:key=value,..."`` (names in
    :data:`AGENTS`; ``kwargs`` add to the spec's parameters), or ``spec`` itself if it
    already is an agent; ``"ppo:<model>"`` is a saved MaskablePPO policy (see
    :mod:`uno_agents.policy`; an SB3 ``.zip`` is read as data, never unpickled),
    ``"improved:<model>"`` a heuristic with a learned
    advantage (:mod:`uno_agents.improved`), ``"net:<model>"`` a standalone network policy
    (:mod:`uno_agents.net`). For these, a ``<model>`` with a path separator or a suffix is
    a file, a bare stem a model shipped in ``agents/models/`` (:mod:`uno_agents.files`).
    ``"module:Class"`` and ``"path/to/file.py:Class"`` (then ``":key=value,..."``) build
    a class defined elsewhere, and a name an installed package registers under the
    entry-point group ``uno_env.agents`` its agent (:mod:`uno_agents.outside`).
    Unknown names and parameters, and values of the wrong type for their parameter
    (``budget=true``, an integer given as ``2.7``), raise ``ValueError`` naming the
    agent, the parameter and the value (see :mod:`uno_agents.spec`); an unknown name
    lists every family of specs (:func:`known_specs`)."""
    if isinstance(spec, str) and spec.startswith("ppo:"):
        from .policy import PolicyAgent  # torch is an optional extra

        return PolicyAgent(spec[len("ppo:"):], **kwargs)
    if isinstance(spec, str) and spec.startswith("net:"):
        from .net import NetAgent  # torch is an optional extra

        return NetAgent(spec[len("net:"):], **kwargs)
    if isinstance(spec, str) and spec.startswith("improved:"):
        from .improved import ImprovedAgent  # torch is an optional extra

        return ImprovedAgent(spec[len("improved:"):], **kwargs)
    if isinstance(spec, str):
        name = spec.partition(":")[0].strip()
        outside = make_outside(spec, kwargs) if name not in AGENTS else None
        if outside is not None:
            return outside
        name, params = split_spec(spec)
        if name in AGENTS:
            return build(name, AGENTS[name], params, kwargs)
        installed = entry_points()
        if name in installed:
            return from_object(name, installed[name].load(), params, kwargs)
        raise SpecError(f"unknown agent {name!r}; {known_specs(installed)}")
    if not callable(getattr(spec, "act", None)):
        raise TypeError(f"an agent needs an act(observations, masks, rng) method, got {spec!r}")
    return spec


def known_specs(installed: dict[str, Any] | None = None) -> str:
    """Every family of agent specs, as one line for error messages."""
    installed = entry_points() if installed is None else installed
    models = "; ".join(f"{prefix}:<model> (shipped: "
                       f"{', '.join(shipped_stems(suffix)) or 'none'}, or a file)"
                       for prefix, suffix in MODEL_FAMILIES.items())
    return (f"agents: {', '.join(AGENTS)} (with :key=value,...); trained: {models}; "
            f"installed ({ENTRY_POINT_GROUP} entry points): "
            f"{', '.join(sorted(installed)) or 'none'}; your own: module:Class or "
            f"path/to/file.py:Class (with :key=value,...)")


__all__ = ["AGENTS", "Agent", "AgentPool", "BatchAgent", "DefenderAgent", "GreedyAgent",
           "IsmctsAgent", "LinearAgent", "RandomAgent", "RandomPlayAgent", "TunedAgent",
           "SingleGameAgent", "choose_actions", "known_specs", "make_agent", "masked_argmax",
           "parse_agent_spec", "per_game"]
