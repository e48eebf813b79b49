"""The networks the learner trains, behind one small interface.

A trainable network here has two methods beside ``forward``:

* ``prepare(raw)``: the engine's rows for this network (``float32`` observations or
  ``int16`` packed rows, as a tensor on the network's device) -> a tuple of tensors,
  one row per sample. The learner prepares each sample once, when it is played, and
  reuses the tuple for every pass of the update.
* ``evaluate(inputs, rules)``: that tuple (or rows of it) and the rule vectors
  ``float[U, R]`` of the batch (with ``rules_index``) -> ``(logits [B, A], value [B])``.

``raw_kind`` says which engine rows it reads: ``"dense"`` (:meth:`Engine.observe`)
or ``"packed"`` (:func:`uno_env.engine.packed_rows.observe_packed`).

:class:`DenseActorCritic` is the network SB3's ``MlpPolicy`` builds for
MaskablePPO with ``net_arch=[128, 128]`` (separate tanh perceptrons for the policy
and the value on the scaled observation), so the learner can be measured against
SB3 with the very same arithmetic. :class:`uno_agents.net.PolicyNet` (shared ReLU
trunk, the shipped networks' shape) and the packed encoder
(:class:`~uno_agents.training.encoder.PackedNet`) follow the same interface.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from uno_env.actions import NUM_ACTIONS
from uno_env.engine.observe import OBS_SIZE

from ..net import PolicyNet, scale_observation
from .encoder import PackedLayout, PackedNet

Inputs = tuple[torch.Tensor, ...]


class DenseActorCritic(torch.nn.Module):
    """SB3's MLP actor-critic: scaled observation -> a ``hidden`` tanh perceptron for the
    policy and another for the value, then a linear action head and a linear value head."""

    raw_kind = "dense"
    encoder = "dense-separate"

    def __init__(self, hidden: Sequence[int] = (128, 128), inputs: int = OBS_SIZE,
                 actions: int = NUM_ACTIONS) -> None:
        super().__init__()
        self.hidden = tuple(int(h) for h in hidden)
        self.inputs, self.actions = int(inputs), int(actions)

        def mlp() -> torch.nn.Sequential:
            layers: list[torch.nn.Module] = []
            width = self.inputs
            for h in self.hidden:
                layers += [torch.nn.Linear(width, h), torch.nn.Tanh()]
                width = h
            return torch.nn.Sequential(*layers)

        self.pi, self.vf = mlp(), mlp()
        self.action_net = torch.nn.Linear(self.hidden[-1], self.actions)
        self.value_net = torch.nn.Linear(self.hidden[-1], 1)

    def prepare(self, raw: torch.Tensor) -> Inputs:
        return (scale_observation(raw.float()),)

    def evaluate(self, inputs: Inputs, rules: torch.Tensor | None = None,
                 rules_index: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        (x,) = inputs
        return self.action_net(self.pi(x)), self.value_net(self.vf(x)).squeeze(-1)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.evaluate(self.prepare(obs))

    def header(self) -> dict[str, Any]:
        """What a model file's header records of this network."""
        return {"encoder": self.encoder, "hidden": list(self.hidden), "inputs": self.inputs,
                "actions": self.actions}


#: The network kinds a trainer's ``--encoder`` names.
ENCODERS = ("packed", "dense", "dense-separate")


def build_net(encoder: str, hidden: Sequence[int], layout: PackedLayout | None = None
              ) -> torch.nn.Module:
    """A new network: ``packed`` (:class:`PackedNet`, needs ``layout``), ``dense``
    (:class:`PolicyNet`, the shipped shape) or ``dense-separate``
    (:class:`DenseActorCritic`, SB3's default)."""
    if encoder == "packed":
        if layout is None:
            raise ValueError("a packed encoder needs the packed layout of its rules")
        return PackedNet(layout, hidden)
    if encoder == "dense":
        return PolicyNet(hidden)
    if encoder == "dense-separate":
        return DenseActorCritic(hidden)
    raise ValueError(f"unknown encoder {encoder!r}; encoders: {', '.join(ENCODERS)}")


def describe(net: Any) -> str:
    """One line naming a network's encoder and widths."""
    kind = getattr(net, "encoder", "dense")
    return f"{kind} {'x'.join(str(h) for h in net.hidden)}"


def parameter_count(net: torch.nn.Module) -> int:
    """How many numbers a network learns (every parameter tensor's size, summed)."""
    return sum(p.numel() for p in net.parameters())
