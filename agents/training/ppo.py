"""PPO on the learner core: generalised advantages, the clipped objective, a value
loss and an entropy bonus, with the settings and defaults of SB3's MaskablePPO (so
the two can be compared step for step), and an optional KL anchor to a frozen
network for fine-tuning (``anchor * KL(pi || pi_start)`` over the legal actions).

:func:`train` is ``experiments/train_ppo.py``: the learner against fixed opponents
(any agent spec) or, with ``--opponents self-play``, against a pool of its own
snapshots mixed with ``--heuristics``.

An episode end (a win, a loss or a truncation at ``max_turns``) stops the
bootstrapping: the return of a truncated game is what it paid, 0, with no value
added after it.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass
from typing import Any

import torch

from uno_env.tooling.dataclass_flags import check_bounds

from .. import AgentPool, make_agent
from ..net import NetAgent
from ..pool import snapshot_weights
from .device import autocast
from .rollout import Rollout, collect
from .run import Run, RunSettings, stopped


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


def update(net: Any, optimizer: torch.optim.Optimizer, rollout: Rollout,
           settings: PPOSettings, generator: torch.Generator | None = None,
           reference: Any = None) -> dict[str, float]:
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
        order = torch.randperm(size, generator=generator, device=device)
        # one gather per tensor and epoch; the minibatches are then slices of it
        shuffled: list[Any] = [tuple(x[order] for x in rollout.inputs), valid[order], ids[order],
                    chosen[order], adv[order], returns[order], rollout.log_probs[order],
                    None if rollout.rules_index is None else rollout.rules_index[order]]
        batches = 0
        for start in range(0, size, settings.batch_size):
            part = slice(start, start + settings.batch_size)
            inputs = tuple(x[part] for x in shuffled[0])
            masks, legal, picked, a, target, old_logp = (x[part] for x in shuffled[1:7])
            index = None if shuffled[7] is None else shuffled[7][part]
            logits, value = net.evaluate(inputs, rollout.rules_table, index)
            logp_all = legal_log_probs(logits.float(), legal, masks)
            logp = logp_all.gather(1, picked[:, None]).squeeze(1)
            if a.numel() > 1:
                a = (a - a.mean()) / (a.std() + 1e-8)
            log_ratio = logp - old_logp
            ratio = log_ratio.exp()
            clipped = ratio.clamp(1 - settings.clip_range, 1 + settings.clip_range)
            policy_loss = -torch.min(a * ratio, a * clipped).mean()
            value_loss = torch.nn.functional.mse_loss(value.float(), target)
            entropy = masked_entropy(logp_all, masks).mean()
            loss = policy_loss + settings.vf_coef * value_loss - settings.ent_coef * entropy
            if reference is not None and settings.anchor:
                with torch.no_grad():
                    ref = legal_log_probs(reference.evaluate(inputs, rollout.rules_table,
                                                             index)[0].float(), legal, masks)
                kl = (logp_all.exp() * (logp_all - ref)).where(masks, 0.0).sum(-1).mean()
                loss = loss + settings.anchor * kl
                sums["anchor_kl"] += float(kl.detach())
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


# --- the trainer ------------------------------------------------------------------------------

@dataclass
class PPOConfig(RunSettings):
    """PPO's flags on top of every trainer's (:class:`.run.RunSettings`)."""

    timesteps: int = 2_000_000     # learner decisions to train on
    n_steps: int = 64              # decisions per game per rollout
    batch_size: int = 4096         # decisions per gradient step
    n_epochs: int = 4              # passes over each rollout
    gamma: float = 0.995           # discount per learner decision
    gae_lambda: float = 0.95       # GAE's lambda (1: Monte-Carlo returns)
    clip_range: float = 0.2        # PPO's clipping of the probability ratio
    ent_coef: float = 0.01         # weight of the entropy bonus
    vf_coef: float = 0.5           # weight of the value loss
    max_grad_norm: float = 0.5     # gradients clipped to this norm
    anchor: float = 0.0            # weight of KL(policy || the --init-net network) in the loss
    #                                (0: no anchor)
    lr_drop_at: int = 0            # learner decisions after which Adam's step size becomes
    #                                --lr-drop-to, for a last stretch of fine steps (0: never)
    lr_drop_to: float = 2e-5       # the step size after --lr-drop-at
    heuristics: str = "tuned,greedy,random_play"  # with --opponents self-play: the agents
    #                                mixed into the pool of the learner's snapshots
    snapshot_every: int = 250_000  # learner decisions between snapshots joining the pool
    pool_size: int = 8             # snapshots kept in the pool
    heuristic_share: float = 0.3   # the heuristics' share of the pool's draws
    latest_share: float = 0.5      # the latest snapshot's share of the snapshots' draws

    def check(self) -> None:
        self_play = self.opponents == "self-play"
        opponents = self.opponents
        if self_play:   # RunSettings checks an agent spec; self-play is PPO's own
            self.opponents = "random"
        try:
            super().check()
        finally:
            self.opponents = opponents
        check_bounds(self, at_least_one=("timesteps", "n_steps", "batch_size", "n_epochs",
                                         "snapshot_every", "pool_size"),
                     non_negative=("anchor", "ent_coef", "vf_coef", "clip_range",
                                   "lr_drop_at"),
                     positive=("max_grad_norm", "lr_drop_to"),
                     fractions=("gamma", "gae_lambda", "heuristic_share", "latest_share"))
        if self.anchor and not self.init_net:
            raise SystemExit("--anchor needs --init-net (the network to stay near)")
        if self_play:
            if self.workers > 0:
                raise SystemExit("--opponents self-play plays its games in this process "
                                 "(its snapshots change as it learns): give --workers 0")
            try:
                for spec in self.heuristics.split(","):
                    make_agent(spec)
            except ValueError as e:
                raise SystemExit(f"bad setting: {e}") from None

    def settings(self) -> PPOSettings:
        return PPOSettings(gamma=self.gamma, gae_lambda=self.gae_lambda,
                           clip_range=self.clip_range, ent_coef=self.ent_coef,
                           vf_coef=self.vf_coef, max_grad_norm=self.max_grad_norm,
                           n_epochs=self.n_epochs, batch_size=self.batch_size,
                           anchor=self.anchor)


class SelfPlay:
    """The pool of ``--opponents self-play``: the heuristics and the learner's latest
    ``--pool-size`` snapshots (each samples its masked softmax), one drawn per game and
    episode (:class:`uno_agents.AgentPool`)."""

    def __init__(self, cfg: PPOConfig) -> None:
        self.cfg = cfg
        self.heuristics = [make_agent(h) for h in cfg.heuristics.split(",")]
        self.snapshots: list[Any] = []
        self.pool = AgentPool(self.heuristics)
        self.next_snapshot = 0

    def update(self, net: torch.nn.Module, decisions: int) -> None:
        """A new snapshot of ``net`` when ``--snapshot-every`` decisions have passed."""
        if decisions < self.next_snapshot:
            return
        self.next_snapshot = decisions + self.cfg.snapshot_every
        frozen = copy.deepcopy(net).cpu().eval()
        self.snapshots = [*self.snapshots, NetAgent(frozen, deterministic=False,
                                                    label=f"self@{decisions}")]
        self.snapshots = self.snapshots[-self.cfg.pool_size:]
        weights = snapshot_weights(len(self.heuristics), len(self.snapshots),
                                   self.cfg.heuristic_share, self.cfg.latest_share)
        self.pool.set_members([*self.heuristics, *self.snapshots], weights)


def step_size(cfg: PPOConfig, decisions: int) -> float:
    """Adam's step size after ``decisions`` learner decisions: ``--learning-rate``, then
    ``--lr-drop-to`` from ``--lr-drop-at`` on."""
    return cfg.lr_drop_to if cfg.lr_drop_at and decisions >= cfg.lr_drop_at else cfg.learning_rate


def set_step_size(optimizer: torch.optim.Optimizer, lr: float) -> None:
    """Every rollout's step size, set from the settings (a resumed run's optimizer state
    carries the step size it was saved with, which this replaces)."""
    for group in optimizer.param_groups:
        group["lr"] = lr


def train(cfg: PPOConfig, command: str = "") -> dict[str, Any]:
    """Train with PPO on the learner core; returns the run's record (``record.json``)."""
    cfg.check()
    run = Run(cfg, command, cfg.timesteps, "ppo")
    optimizer = make_optimizer(run.net, cfg.learning_rate)
    reference = copy.deepcopy(run.net).eval() if cfg.anchor else None
    if cfg.resume:
        run.load_checkpoint(optimizer)
    self_play = SelfPlay(cfg) if cfg.opponents == "self-play" else None
    if self_play is not None:
        cfg.workers = 0
        self_play.update(run.net, run.decisions)
    shards = run.open_games(None if self_play is None else self_play.pool)
    settings = cfg.settings()
    run.start_clock()
    try:
        while run.decisions < cfg.timesteps:
            run.between_rollouts(optimizer)
            set_step_size(optimizer, step_size(cfg, run.decisions))
            with autocast(run.device, cfg.amp):
                rollout = collect(shards, run.net, cfg.n_steps, run.device, run.generator)
            start = time.perf_counter()
            with autocast(run.device, cfg.amp):
                stats = update(run.net, optimizer, rollout, settings, run.generator, reference)
            run.advance(rollout.size, rollout, time.perf_counter() - start,
                        {f"ppo/{k}": v for k, v in stats.items()})
            if self_play is not None:
                self_play.update(run.net, run.decisions)
    except KeyboardInterrupt:
        raise stopped(run, optimizer) from None
    run.curve_point()
    run.save_checkpoint(optimizer)   # a later --resume with more decisions continues here
    record = run.finish({"recipe": "PPO on the learner core (experiments/train_ppo.py)"})
    run.close()
    return record
