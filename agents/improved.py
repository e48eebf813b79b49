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

Acting greedily on a policy's true advantages is never worse than the policy
itself (the policy improvement theorem); the network only estimates them, so the
margin keeps the base choice where the estimate is unsure.

``make_agent("improved:<model>")`` loads a model file (``.pt``), or a shipped
model by its stem from ``agents/models/``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from uno_env.actions import NUM_ACTIONS
from uno_env.engine.observe import OBS_SIZE

from .base import Agent, BatchAgent, check_batch
from .policy import resolve_model_path, scale_observation


class AdvantageNet(torch.nn.Module):
    """Observations ``float[B, OBS_SIZE]`` -> advantage estimates ``float[B, NUM_ACTIONS]``
    (a perceptron on the scaled observation)."""

    def __init__(self, hidden: tuple[int, ...] = (256, 256)) -> None:
        super().__init__()
        self.hidden = tuple(int(h) for h in hidden)
        layers: list[torch.nn.Module] = []
        width = OBS_SIZE
        for h in self.hidden:
            layers += [torch.nn.Linear(width, h), torch.nn.ReLU()]
            width = h
        layers.append(torch.nn.Linear(width, NUM_ACTIONS))
        self.net = torch.nn.Sequential(*layers)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.net(scale_observation(obs))


def save_model(path: str | Path, net: AdvantageNet, base: str, margin: float,
               record: dict[str, Any]) -> None:
    """Write the network, its base heuristic, its margin and ``record`` (how it was made)."""
    torch.save({"state_dict": net.state_dict(), "hidden": list(net.hidden), "base": base,
                "margin": float(margin), "obs_size": OBS_SIZE, "num_actions": NUM_ACTIONS,
                "record": record}, path)


class ImprovedAgent(Agent):
    """The base heuristic's choice, unless the learned advantage of another legal action
    exceeds ``margin`` (module doc). ``model`` is a ``.pt`` file or a shipped stem, or an
    :class:`AdvantageNet` with ``base`` and ``margin`` given."""

    name = "improved"
    uses_rng = False

    def __init__(self, model: str | Path | AdvantageNet, base: str | BatchAgent | None = None,
                 margin: float | None = None, label: str | None = None) -> None:
        from . import make_agent

        if isinstance(model, AdvantageNet):
            net, stored_base, stored_margin = model, "tuned", 0.0
            label = label or "improved"
        else:
            path = resolve_model_path(str(model), ".pt", "advantage model")
            saved = torch.load(path, map_location="cpu", weights_only=True)
            if saved["obs_size"] != OBS_SIZE or saved["num_actions"] != NUM_ACTIONS:
                raise ValueError(f"{path} was trained on {saved['obs_size']} observation "
                                 f"columns and {saved['num_actions']} actions; this version "
                                 f"has {OBS_SIZE} and {NUM_ACTIONS}")
            net = AdvantageNet(tuple(saved["hidden"]))
            net.load_state_dict(saved["state_dict"])
            stored_base, stored_margin = saved["base"], saved["margin"]
            label = label or f"improved:{path.stem}"
        self.net = net.eval()
        self.base = make_agent(base if base is not None else stored_base)
        self.margin = float(stored_margin if margin is None else margin)
        self.name = label

    def __repr__(self) -> str:
        return f"ImprovedAgent({self.name!r}, base={self.base!r}, margin={self.margin})"

    def advantages(self, observations: np.ndarray) -> np.ndarray:
        """``float32[B, A]``: the estimated advantage of every action (legal or not)."""
        with torch.no_grad():
            out = self.net(torch.as_tensor(np.ascontiguousarray(observations, np.float32)))
        return out.numpy()

    def act(self, observations: np.ndarray, masks: np.ndarray,
            rng: np.random.Generator) -> np.ndarray:
        check_batch(observations, masks)
        base = np.asarray(self.base.act(observations, masks, rng))
        if not len(masks):
            return base
        adv = np.where(masks, self.advantages(observations), -np.inf)
        best = adv.argmax(axis=1)
        rows = np.arange(len(masks))
        with np.errstate(invalid="ignore"):   # a row without legal actions: -inf - -inf
            better = adv[rows, best] - adv[rows, base] > self.margin
        return np.where(better, best, base)
