"""A heuristic improved by a learned advantage: one step of approximate policy iteration.

Needs the ``train`` extra (torch). The network is trained by
``experiments/train_improvement.py``:

1. The base heuristic (``tuned``) plays against itself. At sampled decisions of
   these games every legal action is tried, and each copy of the game is played
   to its end by the base heuristic in every seat. Each action's *advantage* is
   its outcome minus the outcome of the base heuristic's own choice in the same
   copy (same cards, same draw pile: the difference is the action's doing).
2. A network learns each action's advantage from the observation alone. Trained
   by least squares, it estimates the mean advantage over all the positions that
   look the same to the player, in the proportions play reaches them: exactly
   the quantity a player who sees only its observation should act on. (The
   data are made with the whole game in view; the agent never is.)
3. :class:`ImprovedAgent` plays the base heuristic's choice unless the network
   rates another legal action higher by more than ``margin`` (in units of a
   game's reward, +1 a win and -1 a loss heads-up).

The script can also value the actions with the search agent (many playouts in
worlds sampled from the public game, not the true one) and play the base against
another opponent whom the search then models: the shipped
``improved:official-2p-exit-rp`` was made so, against ``random_play``.

Acting greedily on a policy's true advantages is never worse than the policy
itself (the policy improvement theorem); the network only estimates them, so the
margin keeps the base choice where the estimate is unsure.

``make_agent("improved:<model>")`` loads a model file (``.pt``; a spec with a path
separator or a suffix is a path), or a shipped model by its stem from
``agents/models/`` (a bare stem is always the shipped model). A model file holds
tensors and plain values only, read with ``torch.load(weights_only=True)``, and its
stored base may only be a built-in heuristic (``greedy``, ``tuned``, ``defender``,
``random_play``, ``random``): loading a model never runs code nor loads another model.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from uno_env.actions import NUM_ACTIONS
from uno_env.engine.observe import OBS_SIZE

from .base import Agent, BatchAgent, check_batch
from .files import (
    MAX_LAYERS,
    check_builtin,
    check_file,
    check_limit,
    check_parameters,
    check_widths,
    check_zip,
    resolve_model,
)
from .net import float32
from .policy import observation_columns, scale_observation


class AdvantageNet(torch.nn.Module):
    """Observations ``float[B, obs_size]`` -> advantage estimates ``float[B, NUM_ACTIONS]``
    (a perceptron on the scaled observation). ``obs_size``: the width of the observation
    it reads, this version's unless the network was trained on an earlier version."""

    def __init__(self, hidden: tuple[int, ...] = (256, 256), obs_size: int = OBS_SIZE) -> None:
        super().__init__()
        self.hidden = tuple(int(h) for h in hidden)
        self.obs_size = int(obs_size)
        #: Columns of this version's observation the network reads (None: all).
        self.columns = observation_columns(self.obs_size)
        layers: list[torch.nn.Module] = []
        width = self.obs_size
        for h in self.hidden:
            layers += [torch.nn.Linear(width, h), torch.nn.ReLU()]
            width = h
        layers.append(torch.nn.Linear(width, NUM_ACTIONS))
        self.net = torch.nn.Sequential(*layers)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Advantages from observations of the width the network reads (``obs_size``)."""
        return self.net(scale_observation(obs))

    def advise(self, observations: np.ndarray) -> np.ndarray:
        """``float32[B, A]`` advantages from this version's observations ``[B, OBS_SIZE]``
        (the columns of the version the network was trained on picked out)."""
        obs = observations if self.columns is None else observations[:, self.columns]
        with torch.no_grad(), float32(torch.device("cpu")):   # float32 inside any --amp
            out = self(torch.as_tensor(np.ascontiguousarray(obs, np.float32)))
        return out.numpy()


def save_model(path: str | Path, net: AdvantageNet, base: str, margin: float,
               record: dict[str, Any]) -> None:
    """Write the network, its base heuristic, its margin and ``record`` (how it was made)."""
    torch.save({"state_dict": net.state_dict(), "hidden": list(net.hidden), "base": base,
                "margin": float(margin), "obs_size": net.obs_size, "num_actions": NUM_ACTIONS,
                "record": record}, path)


def save_advisers(path: str | Path, advisers: Sequence[tuple[AdvantageNet, float]],
                  base: str, veto: float | None, record: dict[str, Any]) -> None:
    """Write several advantage networks (each with its margin) over one base heuristic,
    the veto and ``record``: an :class:`ImprovedAgent` that takes advice from all of them."""
    torch.save({"advisers": [{"state_dict": net.state_dict(), "hidden": list(net.hidden),
                              "margin": float(margin)} for net, margin in advisers],
                "base": base, "veto": veto, "obs_size": _one_size(advisers),
                "num_actions": NUM_ACTIONS, "record": record}, path)


def load_advisers(path: str | Path) -> tuple[list[tuple[AdvantageNet, float]], str, float | None]:
    """``(advisers, base, veto)`` of a file written by :func:`save_model` or
    :func:`save_advisers`.

    Reads tensors and plain values only (``torch.load(weights_only=True)``), and the base
    must be a built-in heuristic's name, so a file never loads another model (nor
    itself). Raises ``ValueError`` naming the file for anything else: a missing file or
    a folder, a file torch cannot read, missing or malformed entries, another number
    of actions, an observation width no version had, or tensors that do not fit."""
    path = check_file(path, "advantage model")

    def bad(why: str) -> ValueError:
        return ValueError(f"advantage model file {str(path)!r}: {why}")

    check_zip(path, "advantage model")
    try:
        saved = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError:
        raise bad("it holds objects other than tensors and plain values, which could run "
                  "code when loaded; it is refused") from None
    except Exception as e:  # a bad file fails in many ways; name the file
        raise bad(f"not a model saved by uno_agents.improved ({type(e).__name__}: "
                  f"{str(e).strip().splitlines()[0] if str(e).strip() else ''})") from None
    try:
        num_actions, obs_size = int(saved["num_actions"]), int(saved["obs_size"])
        entries = saved.get("advisers", [saved])
        specs = [(tuple(int(h) for h in e["hidden"]), e["state_dict"], float(e["margin"]))
                 for e in entries]
        veto = None if saved.get("veto") is None else float(saved["veto"])
        base = saved.get("base")
    except (AttributeError, KeyError, TypeError, ValueError) as e:
        raise bad(f"malformed contents ({type(e).__name__}: {e})") from None
    check_builtin(base, "base", path)
    if num_actions != NUM_ACTIONS:
        raise bad(f"trained on {num_actions} actions; this version has {NUM_ACTIONS}")
    try:   # an earlier version's observation reads the columns it had
        observation_columns(obs_size)
    except ValueError:
        raise bad(f"trained on {obs_size} observation columns, which matches no version of "
                  f"the observation; this version has {OBS_SIZE}") from None
    if not specs:
        raise bad("it holds no advantage network")
    check_limit(path, "advantage model", "its adviser count", len(specs), MAX_LAYERS)
    advisers = []
    for hidden, state, margin in specs:
        numbers = sum(t.numel() for t in state.values() if isinstance(t, torch.Tensor)) \
            if isinstance(state, dict) else 0
        widths = check_widths(list(hidden), path, "advantage model")
        check_parameters([[obs_size, *widths, NUM_ACTIONS]], numbers, path, "advantage model")
        try:
            net = AdvantageNet(hidden, obs_size)
            net.load_state_dict(state)
        except (RuntimeError, TypeError, ValueError, AttributeError) as e:
            raise bad(f"its tensors do not fit a network of {obs_size} observation columns "
                      f"and hidden layers {list(hidden)} ({str(e).splitlines()[0]})") from None
        advisers.append((net, margin))
    return advisers, base, veto


def _one_size(advisers: Sequence[tuple[AdvantageNet, float]]) -> int:
    """The observation width all ``advisers`` read (one file holds one width)."""
    sizes = {net.obs_size for net, _ in advisers}
    if len(sizes) != 1:
        raise ValueError(f"advisers read observations of different widths {sorted(sizes)}; "
                         "one file holds advisers of one width")
    return sizes.pop()


class ImprovedAgent(Agent):
    """The base heuristic's choice, unless a learned advantage of another legal action
    exceeds the margin (module doc).

    ``model`` is a ``.pt`` file or a shipped stem, an :class:`AdvantageNet` (with
    ``margin`` given), or a list of ``(AdvantageNet, margin)`` *advisers*. With several
    advisers (networks fitted against different opponents), an action is played when
    some adviser rates it above the base choice by more than its margin and, if
    ``veto`` is set, no adviser rates it below the base choice by more than ``veto``:
    a departure must pay against one opponent without costing against another. Among
    such actions the one furthest above its adviser's margin is played.
    """

    name = "improved"
    uses_rng = False

    def __init__(self, model: str | Path | AdvantageNet | Sequence[tuple[AdvantageNet, float]],
                 base: str | BatchAgent | None = None, margin: float | None = None,
                 label: str | None = None, veto: float | None = None) -> None:
        from . import make_agent

        stored_base, stored_veto = "tuned", None
        #: The file the advisers were read from (``None`` for networks given in memory).
        self.model_file: Path | None = None
        if isinstance(model, AdvantageNet):
            advisers = [(model, 0.0 if margin is None else float(margin))]
            label = label or "improved"
        elif isinstance(model, (str, Path)):
            path = (resolve_model(model, ".pt", "advantage model", "improved")
                    if isinstance(model, str) else model)
            advisers, stored_base, stored_veto = load_advisers(path)
            self.model_file = Path(path)
            if margin is not None:
                advisers = [(net, float(margin)) for net, _ in advisers]
            label = label or f"improved:{model}"
        else:
            advisers = [(net, float(m)) for net, m in model]
            label = label or "improved"
        if not advisers:
            raise ValueError("an improved agent needs at least one advantage network")
        self.nets = [net.eval() for net, _ in advisers]
        self.margins = [m for _, m in advisers]
        self.veto = stored_veto if veto is None else float(veto)
        self.base = make_agent(base if base is not None else stored_base)
        self.name = label

    @property
    def margin(self) -> float:
        """The margin of the first (with one network, the only) adviser."""
        return self.margins[0]

    def __repr__(self) -> str:
        return (f"ImprovedAgent({self.name!r}, base={self.base!r}, margins={self.margins}, "
                f"veto={self.veto})")

    def advantages(self, observations: np.ndarray, adviser: int = 0) -> np.ndarray:
        """``float32[B, A]``: one adviser's estimated advantage of every action (legal
        or not)."""
        return self.nets[adviser].advise(observations)

    def act(self, observations: np.ndarray, masks: np.ndarray,
            rng: np.random.Generator) -> np.ndarray:
        check_batch(observations, masks)
        base = np.asarray(self.base.act(observations, masks, rng))
        if not len(masks):
            return base
        rows = np.arange(len(masks))
        above = np.full(masks.shape, -np.inf, np.float32)   # best excess over a margin
        vetoed = np.zeros(masks.shape, bool)
        for k, margin in enumerate(self.margins):
            adv = self.advantages(observations, k)
            gain = adv - adv[rows, base][:, None]
            above = np.maximum(above, gain - margin)
            if self.veto is not None:
                vetoed |= gain < -self.veto
        above = np.where(masks & ~vetoed, above, -np.inf)
        best = above.argmax(axis=1)
        return np.where(above[rows, best] > 0, best, base)
