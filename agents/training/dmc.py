"""Deep Monte-Carlo (as in DouZero) on the learner core.

The network's action head is read as ``Q(s, a)``: the reward the learner gets at the
end of the game after playing ``a``. The learner plays the legal action of highest
value, or with probability ``--epsilon`` (decaying linearly to ``--epsilon-final``) a
uniformly random legal one. With ``--temperature`` above 0 it samples the masked softmax
of ``Q / temperature`` instead of taking the highest value (Boltzmann exploration): when
the values cannot tell the actions apart, as when every return is a loss, it plays
nearly uniformly, so it wins games again and the values separate, where ε-greedy play
keeps the action that happens to be highest (docs/results.md: one seed in three of
ε-greedy with ``self`` collapsed into drawing).

Every decision is labelled with its episode's return
(no discount, no bootstrapping; a game cut at ``max_turns`` counts -1, a loss, so
that stalling never pays): rollouts are cut every ``--n-steps`` decisions, so
the decisions of an episode still running wait (:class:`MonteCarlo`) until it ends.
The fit is least squares of ``Q(s, a)`` onto the return, and of the value head onto
it too, ``--epochs`` passes over each batch of finished decisions, which are then
dropped (no replay).

``--opponents`` is a comma-separated list drawn per game and episode (an
:class:`uno_agents.AgentPool`); ``self`` in it is the learner's own network playing
greedily (the live one, so that member plays in this process: ``--workers 0``).
The saved network is directly a ``net:`` agent.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import torch

from uno_env.tooling.dataclass_flags import check_bounds

from .. import AgentPool, make_agent
from ..net import NetAgent
from .ppo import make_optimizer
from .rollout import Rollout, collect, join_rows, take_rows
from .run import Run, RunSettings, stopped


@dataclass
class DMCConfig(RunSettings):
    """Deep Monte-Carlo's flags on top of every trainer's (:class:`.run.RunSettings`)."""

    opponents: str = "tuned,random_play,greedy"  # drawn per game and episode ("self":
    #                                the learner's own network; with it a seed in three
    #                                collapsed into drawing, docs/results.md)
    decisions: int = 5_000_000     # learner decisions to learn from
    n_steps: int = 32              # decisions per game per rollout
    epochs: int = 1                # passes over each batch of finished decisions
    batch_size: int = 2048         # decisions per gradient step
    epsilon: float = 0.1           # exploration: chance of a uniform legal action at start
    epsilon_final: float = 0.02    # ... decayed linearly to this at the end
    temperature: float = 0.0       # > 0: sample softmax(Q / temperature), not the argmax

    def check(self) -> None:
        names = self.opponents.split(",")
        opponents = self.opponents
        self.opponents = "random"   # RunSettings checks one agent spec; the list is DMC's
        try:
            super().check()
        finally:
            self.opponents = opponents
        check_bounds(self, at_least_one=("decisions", "n_steps", "epochs", "batch_size"),
                     non_negative=("temperature",), fractions=("epsilon", "epsilon_final"))
        if "self" in names and self.workers > 0:
            raise SystemExit("--opponents with self plays its games in this process (the "
                             "live network is an opponent): give --workers 0")
        try:
            for spec in names:
                if spec != "self":
                    make_agent(spec)
        except ValueError as e:
            raise SystemExit(f"bad setting: {e}") from None


class MonteCarlo:
    """The Monte-Carlo returns of rollouts whose episodes may run past their end: each
    rollout's decisions come back labelled once their episode has ended."""

    def __init__(self) -> None:
        self.waiting: dict[str, Any] | None = None


    def finished(self, rollout: Rollout, extra: dict[str, torch.Tensor] | None = None
                 ) -> dict[str, Any]:
        """Every decision whose episode has ended, this rollout's and earlier ones':
        ``inputs``, ``actions``, ``masks``, ``returns``, ``index`` (rule rows) and the
        per-decision tensors of ``extra``."""
        steps, n = rollout.rewards.shape
        to_go = torch.zeros_like(rollout.rewards)
        ended = torch.zeros_like(rollout.rewards, dtype=torch.bool)
        after = torch.zeros(n, device=to_go.device)
        ends = torch.zeros(n, dtype=torch.bool, device=to_go.device)
        for t in range(steps - 1, -1, -1):
            done = rollout.dones[t] > 0
            after = rollout.rewards[t] + torch.where(done, 0.0, after)
            ends = done | ends
            to_go[t], ended[t] = after, ends
        games = torch.arange(n, device=to_go.device).repeat(steps)
        fresh: dict[str, Any] = {
            "inputs": rollout.inputs, "actions": rollout.actions, "masks": rollout.masks,
            "returns": to_go.reshape(-1), "ended": ended.reshape(-1), "games": games,
            "index": rollout.rules_index, **(extra or {})}
        if self.waiting is not None:   # earlier decisions: their episode went on at step 0
            w = self.waiting
            w["returns"] = w["returns"] + to_go[0, w["games"]]
            w["ended"] = ended[0, w["games"]]
            fresh = {key: join_rows(w[key], fresh[key]) for key in fresh}
        done = fresh["ended"]
        keep = {key: take_rows(value, ~done) for key, value in fresh.items()}
        self.waiting = keep if int((~done).sum()) else None
        return {key: take_rows(value, done) for key, value in fresh.items()}


def fit(net: Any, optimizer: torch.optim.Optimizer, data: dict[str, Any],
        rules_table: torch.Tensor, cfg: DMCConfig, generator: torch.Generator) -> float:
    """Least squares of ``Q(s, a)`` and ``V(s)`` onto the returns; the mean loss."""
    inputs, actions, returns, index = (data[k] for k in ("inputs", "actions", "returns",
                                                         "index"))
    size = int(actions.numel())
    net.train()
    total, steps = 0.0, 0
    for _ in range(cfg.epochs):
        order = torch.randperm(size, generator=generator, device=actions.device)
        for start in range(0, size, cfg.batch_size):
            idx = order[start:start + cfg.batch_size]
            q, v = net.evaluate(tuple(x[idx] for x in inputs), rules_table,
                                None if index is None else index[idx])
            target = returns[idx]
            chosen = q.float().gather(1, actions[idx, None]).squeeze(1)
            loss = torch.nn.functional.mse_loss(chosen, target) + \
                torch.nn.functional.mse_loss(v.float(), target)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            total, steps = total + float(loss.detach()), steps + 1
    net.eval()
    return total / max(steps, 1)


def train(cfg: DMCConfig, command: str = "") -> dict[str, Any]:
    """Deep Monte-Carlo on the learner core; returns the run's record (``record.json``)."""
    cfg.check()
    run = Run(cfg, command, cfg.decisions, "dmc")
    optimizer = make_optimizer(run.net, cfg.learning_rate)
    if cfg.resume:
        run.load_checkpoint(optimizer)
    names = cfg.opponents.split(",")
    members = [NetAgent(run.net, label="self") if n == "self" else make_agent(n) for n in names]
    opponents: Any = members[0] if len(members) == 1 else AgentPool(members)
    if "self" in names:
        cfg.workers = 0
    shards = run.open_games(opponents, truncation_reward=-1.0)
    returns = MonteCarlo()
    run.start_clock()
    try:
        while run.decisions < cfg.decisions:
            run.between_rollouts(optimizer)
            share = run.decisions / cfg.decisions
            epsilon = cfg.epsilon + (cfg.epsilon_final - cfg.epsilon) * share
            rollout = collect(shards, run.net, cfg.n_steps, run.device, run.generator,
                              epsilon=max(epsilon, 1e-9), temperature=cfg.temperature)
            start = time.perf_counter()
            data = returns.finished(rollout)
            loss = fit(run.net, optimizer, data, rollout.rules_table, cfg, run.generator) \
                if int(data["actions"].numel()) else 0.0
            run.advance(rollout.size, rollout, time.perf_counter() - start,
                        {"dmc/loss": loss, "dmc/epsilon": epsilon})
    except KeyboardInterrupt:
        raise stopped(run, optimizer) from None
    run.curve_point()
    run.save_checkpoint(optimizer)   # a later --resume with more decisions continues here
    record = run.finish({"recipe": "Deep Monte-Carlo on the learner core "
                                   "(experiments/train_dmc.py)"})
    run.close()
    return record
