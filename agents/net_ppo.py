"""A :class:`~uno_agents.net.PolicyNet` as a MaskablePPO policy, with a KL anchor to its start.

Needs the ``train`` extra. ``experiments/train_ppo.py --init-net FILE`` fine-tunes a
saved network (for example one distilled from a teacher by
``experiments/distill.py``) with PPO: :class:`NetActorCriticPolicy` runs the
network's policy and value heads for SB3 and, with ``anchor > 0``, adds
``anchor * KL(pi || pi_start)`` over the legal actions to PPO's loss, where
``pi_start`` is a frozen copy of the network as it started. The anchor keeps the
fine-tuned policy near the teacher's play while PPO looks for improvements, so a
noisy gradient cannot undo what cloning learned.

SB3 adds ``-ent_coef * entropy`` to the loss, with the entropy taken from
:meth:`NetActorCriticPolicy.evaluate_actions`; the anchor enters through that same
term (the policy returns ``entropy - anchor / ent_coef * KL``), which is why an
anchor needs ``ent_coef > 0``. The ``train/entropy_loss`` curve then includes it.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.type_aliases import PyTorchObs

from .net import PolicyNet, load_net, widen
from .policy import flat_observations


def masked_kl(logits: torch.Tensor, reference: torch.Tensor,
              masks: torch.Tensor | np.ndarray | None) -> torch.Tensor:
    """``float[B]``: ``KL(softmax(logits) || softmax(reference))`` over each row's legal
    actions (all actions where ``masks`` is None)."""
    if masks is not None:
        legal = torch.as_tensor(masks, dtype=torch.bool, device=logits.device)
        logits = logits.masked_fill(~legal, -1e8)
        reference = reference.masked_fill(~legal, -1e8)
    logp = torch.log_softmax(logits, dim=1)
    logq = torch.log_softmax(reference, dim=1)
    return (logp.exp() * (logp - logq)).sum(dim=1)


class NetActorCriticPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy over a :class:`PolicyNet` (module doc).

    ``init``: a saved network to start from ("" starts a new one with ``hidden``
    layers); ``anchor``: the weight of the KL term to the start (0: none);
    ``ent_coef``: the algorithm's entropy coefficient, which the anchor is divided by.
    SB3's own heads are built with no hidden layers and stay unused.
    """

    def __init__(self, *args: Any, hidden: Sequence[int] = (512, 512, 256), init: str = "",
                 anchor: float = 0.0, ent_coef: float = 0.01, **kwargs: Any) -> None:
        kwargs["net_arch"] = []
        super().__init__(*args, **kwargs)
        if anchor < 0 or (anchor > 0 and not ent_coef > 0):
            raise ValueError(f"anchor must be >= 0 and needs ent_coef > 0, got anchor="
                             f"{anchor!r}, ent_coef={ent_coef!r}")
        self.hidden, self.init = tuple(int(h) for h in hidden), str(init)
        self.anchor, self.ent_coef = float(anchor), float(ent_coef)
        if self.init:
            net = widen(*load_net(self.init))
            self.hidden = net.hidden
        else:
            net = PolicyNet(self.hidden)
        self.net = net.train()
        self.reference = copy.deepcopy(net).requires_grad_(False).eval() if anchor else None
        # SB3 types the class as a bare Optimizer, whose constructor takes no lr
        lr = self.optimizer.param_groups[0]["lr"]
        self.optimizer = self.optimizer_class(self.net.parameters(),
                                              lr=lr,  # type: ignore[call-arg]
                                              **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {**super()._get_constructor_parameters(), "hidden": self.hidden,
                "init": self.init, "anchor": self.anchor, "ent_coef": self.ent_coef}

    def _distribution(self, logits: torch.Tensor, masks: Any) -> Any:
        dist = self.action_dist.proba_distribution(action_logits=logits)
        if masks is not None:
            dist.apply_masking(masks)
        return dist

    def forward(self, obs: torch.Tensor, deterministic: bool = False,
                action_masks: np.ndarray | None = None
                ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        logits, value = self.net(obs.float())
        dist = self._distribution(logits, action_masks)
        actions = dist.get_actions(deterministic=deterministic)
        shape = self.action_space.shape or ()
        return actions.reshape((-1, *shape)), value[:, None], dist.log_prob(actions)

    def evaluate_actions(self, obs: torch.Tensor, actions: torch.Tensor,
                         action_masks: torch.Tensor | None = None
                         ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        logits, value = self.net(obs.float())
        dist = self._distribution(logits, action_masks)
        entropy = dist.entropy()
        if self.reference is not None:
            with torch.no_grad():
                reference = self.reference.logits(obs.float())
            kl = masked_kl(logits, reference, action_masks)
            entropy = entropy - self.anchor / self.ent_coef * kl
        return value[:, None], dist.log_prob(actions), entropy

    def get_distribution(self, obs: PyTorchObs, action_masks: np.ndarray | None = None) -> Any:
        return self._distribution(self.net.logits(flat_observations(obs).float()), action_masks)

    def predict_values(self, obs: PyTorchObs) -> torch.Tensor:
        return self.net(flat_observations(obs).float())[1][:, None]

    def action_logits(self, obs: torch.Tensor) -> torch.Tensor:
        """``float[B, A]``: the logits of every action (legal or not)."""
        return self.net.logits(obs.float())
