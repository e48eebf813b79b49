"""PPO on the learner core: generalised advantages, the clipped objective, a value
loss and an entropy bonus, with the settings and defaults of SB3's MaskablePPO (so
the two can be compared step for step), and an optional KL anchor to a frozen
network for fine-tuning.

An episode end (a win, a loss or a truncation at ``max_turns``) stops the
bootstrapping: the return of a truncated game is what it paid, 0, with no value
added after it.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .rollout import Rollout


@dataclass
class PPOSettings:
    """PPO's settings (SB3's defaults, except the discount)."""

    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    n_epochs: int = 4
    batch_size: int = 4096
    anchor: float = 0.0        # weight of KL(policy || reference) over the legal actions


def advantages(rollout: Rollout, gamma: float, lam: float) -> tuple[torch.Tensor, torch.Tensor]:
    """``(advantages, returns)``, flattened as the rollout's samples: GAE(lambda) over each
    game's decisions, cut at episode ends."""
    steps, n = rollout.rewards.shape
    values = rollout.values.view(steps, n)
    adv = torch.zeros_like(rollout.rewards)
    running = torch.zeros(n, device=values.device)
    next_value = rollout.last_values
    for t in range(steps - 1, -1, -1):
        keep = 1.0 - rollout.dones[t]
        delta = rollout.rewards[t] + gamma * next_value * keep - values[t]
        running = delta + gamma * lam * keep * running
        adv[t] = running
        next_value = values[t]
    return adv.reshape(-1), (adv + values).reshape(-1)


def legal_lists(masks: torch.Tensor, actions: torch.Tensor
                ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Each row's legal actions as a short list: ``(ids long[S, L], valid bool[S, L],
    chosen long[S])``, ``L`` the most legal actions of any row, ``ids`` padded with
    the row's first legal action and ``chosen`` the position of ``actions`` in it.

    A row has a handful of legal actions among more than a hundred, so the update's
    softmax, entropy and ratio run over ``L`` columns instead of all of them."""
    counts = masks.sum(dim=1)
    width = max(int(counts.max()), 1)
    order = torch.argsort((~masks).to(torch.int8), dim=1, stable=True)[:, :width]
    valid = torch.arange(width, device=masks.device)[None, :] < counts[:, None]
    ids = torch.where(valid, order, order[:, :1])
    chosen = (ids == actions[:, None]).logical_and(valid).float().argmax(dim=1)
    return ids, valid, chosen


def legal_log_probs(logits: torch.Tensor, ids: torch.Tensor, valid: torch.Tensor
                    ) -> torch.Tensor:
    """Log-probabilities over each row's legal list (padding at -80: see
    :func:`.rollout.masked_log_probs`)."""
    legal = logits.gather(1, ids).masked_fill(~valid, -1e9)
    return torch.log_softmax(legal, dim=-1).clamp(min=-80.0)


def masked_entropy(log_probs: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """Entropy of each row's masked softmax (illegal actions contribute nothing)."""
    return -(log_probs.exp() * log_probs).where(masks, 0.0).sum(dim=-1)


def update(net: torch.nn.Module, optimizer: torch.optim.Optimizer, rollout: Rollout,
           settings: PPOSettings, generator: torch.Generator | None = None,
           reference: torch.nn.Module | None = None) -> dict[str, float]:
    """``n_epochs`` passes of minibatches over the rollout; returns the last pass's mean
    losses, the approximate KL and the clipped fraction."""
    adv, returns = advantages(rollout, settings.gamma, settings.gae_lambda)
    size, device = rollout.size, rollout.actions.device
    ids, valid, chosen = legal_lists(rollout.masks, rollout.actions)
    net.train()
    sums: dict[str, float] = {}
    for _ in range(settings.n_epochs):
        sums = dict.fromkeys(("policy_loss", "value_loss", "entropy", "approx_kl",
                              "clip_fraction", "anchor_kl"), 0.0)
        order = torch.randperm(size, generator=generator, device="cpu").to(device)
        batches = 0
        for start in range(0, size, settings.batch_size):
            idx = order[start:start + settings.batch_size]
            inputs = tuple(x[idx] for x in rollout.inputs)
            index = None if rollout.rules_index is None else rollout.rules_index[idx]
            logits, value = net.evaluate(inputs, rollout.rules_table, index)
            masks, legal = valid[idx], ids[idx]
            logp_all = legal_log_probs(logits.float(), legal, masks)
            logp = logp_all.gather(1, chosen[idx, None]).squeeze(1)
            a = adv[idx]
            if a.numel() > 1:
                a = (a - a.mean()) / (a.std() + 1e-8)
            log_ratio = logp - rollout.log_probs[idx]
            ratio = log_ratio.exp()
            clipped = ratio.clamp(1 - settings.clip_range, 1 + settings.clip_range)
            policy_loss = -torch.min(a * ratio, a * clipped).mean()
            value_loss = torch.nn.functional.mse_loss(value.float(), returns[idx])
            entropy = masked_entropy(logp_all, masks).mean()
            loss = policy_loss + settings.vf_coef * value_loss - settings.ent_coef * entropy
            if reference is not None and settings.anchor:
                with torch.no_grad():
                    ref = legal_log_probs(reference.evaluate(inputs, rollout.rules_table,
                                                             index)[0].float(), legal, masks)
                kl = (logp_all.exp() * (logp_all - ref)).where(masks, 0.0).sum(-1).mean()
                loss = loss + settings.anchor * kl
                sums["anchor_kl"] += float(kl)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), settings.max_grad_norm)
            optimizer.step()
            with torch.no_grad():
                sums["policy_loss"] += float(policy_loss)
                sums["value_loss"] += float(value_loss)
                sums["entropy"] += float(entropy)
                sums["approx_kl"] += float(((ratio - 1) - log_ratio).mean())
                sums["clip_fraction"] += float(((ratio - 1).abs() > settings.clip_range)
                                               .float().mean())
            batches += 1
        sums = {k: v / max(batches, 1) for k, v in sums.items()}
    net.eval()
    return sums


def make_optimizer(net: torch.nn.Module, learning_rate: float) -> torch.optim.Adam:
    """Adam as SB3 sets it for PPO (eps 1e-5), fused into one kernel where torch has one."""
    return torch.optim.Adam(net.parameters(), lr=learning_rate, eps=1e-5, fused=True)
