"""Distillation with DAgger on the learner core: a standalone network learns a teacher.

Round 0 lets the teacher play the learner's seat of every game (against
``--opponents``, drawn per game and episode) and records its decisions that have a
choice. Every later round lets the *network* play that seat (its most likely
action), still labelled by the teacher's choice in the positions the network
reaches (DAgger), so the network learns to recover from its own mistakes; each round
fits again on all rounds' data. With ``--init-net`` the network starts from a saved
one and plays from round 0 (how expert iteration improves a network with a search
that uses it). The policy learns the teacher's action by cross-entropy over the
legal actions; the value head learns the outcome of the recorded seat's game (its
Monte-Carlo return), ready for RL fine-tuning.

The teacher acts where the games are (any agent, the search too: it may read the
public game), so these games play in this process (``--workers 0``). A round's data
is kept as ``data-<round>.pt`` (tensors only) so that ``--resume`` continues after the
last finished round.
"""

from __future__ import annotations

import io
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from uno_env.files import write_atomic
from uno_env.tooling.dataclass_flags import check_bounds

from .. import AgentPool, make_agent
from ..base import choose_actions
from .dmc import MonteCarlo
from .ppo import legal_lists, legal_log_probs, make_optimizer
from .rollout import collect, join_rows, rules_of, take_rows
from .run import Run, RunSettings, stopped


@dataclass
class DistillConfig(RunSettings):
    """Distillation's flags on top of every trainer's (:class:`.run.RunSettings`)."""

    opponents: str = "tuned,random_play,greedy"  # drawn per game and episode for the
    #                                other seats
    teacher: str = "improved:official-2p-exit-rp"  # the agent whose choices are learned
    states: int = 600_000          # decisions with a choice recorded per round
    rounds: int = 3                # round 0: the teacher plays; later rounds: the network
    n_steps: int = 32              # decisions per game per rollout
    epochs: int = 4                # passes over all data so far, per round
    batch_size: int = 1024         # decisions per gradient step
    learning_rate: float = 1e-3    # Adam's step size, decayed to a tenth over each round
    value_weight: float = 0.25     # weight of the value loss beside the policy loss

    def check(self) -> None:
        opponents = self.opponents
        self.opponents = "random"   # RunSettings checks one agent spec; the list is ours
        try:
            super().check()
        finally:
            self.opponents = opponents
        check_bounds(self, at_least_one=("states", "rounds", "n_steps", "epochs",
                                         "batch_size"), non_negative=("value_weight",))
        if self.workers > 0:
            raise SystemExit("distillation plays its games in this process (the teacher "
                             "acts where they are): give --workers 0")
        try:
            for spec in [self.teacher, *self.opponents.split(",")]:
                make_agent(spec)
        except ValueError as e:
            raise SystemExit(f"bad setting: {e}") from None


def teacher_choice(teacher: Any, rng: np.random.Generator) -> Any:
    """``choose(shard, rows, masks)`` for :func:`.rollout.collect`: the teacher's action
    in each game, from the learner seat's observation (or the public game)."""
    def choose(shard: Any, rows: np.ndarray, masks: np.ndarray) -> np.ndarray:
        core = shard.core
        games = np.arange(shard.num_games)
        return choose_actions(teacher, core.engine, games, core.observe(), masks, rng)
    return choose


def record_round(run: Run, cfg: DistillConfig, teacher: Any, rng: np.random.Generator,
                 network_plays: bool) -> dict[str, Any]:
    """``--states`` decisions with a choice, labelled by the teacher and their returns."""
    label = teacher_choice(teacher, rng)
    returns = MonteCarlo()
    parts: list[dict[str, Any]] = []
    kept = 0
    while kept < cfg.states:
        rollout = collect(run.shards, run.net, cfg.n_steps, run.device, run.generator,
                          epsilon=1e-9 if network_plays else 0.0,
                          choose=None if network_plays else label,
                          label=label if network_plays else None)
        labels = rollout.extra.get("labels", rollout.actions)
        done = returns.finished(rollout, {"labels": labels})
        choice = done["masks"].sum(dim=1) > 1
        part = {k: take_rows(v, choice) for k, v in done.items()
                if k in ("inputs", "masks", "labels", "returns", "index")}
        parts.append(part)
        kept += int(choice.sum())
        run.advance(rollout.size, rollout)
    data = parts[0]
    for part in parts[1:]:
        data = {k: join_rows(data[k], part[k]) for k in data}
    return {k: take_rows(v, slice(0, cfg.states)) for k, v in data.items()}


def fit(run: Run, optimizer: torch.optim.Optimizer, data: dict[str, Any],
        rules_table: torch.Tensor, cfg: DistillConfig) -> dict[str, float]:
    """``--epochs`` passes of cross-entropy (legal actions) and the value loss over
    ``data``; the learning rate decays linearly to a tenth. Returns the last pass's
    loss and the share of decisions where the network's choice is the teacher's."""
    net = run.net
    ids, valid, chosen = legal_lists(data["masks"], data["labels"])
    size = int(ids.shape[0])
    batches = max(-(-size // cfg.batch_size), 1)
    total_steps, step = cfg.epochs * batches, 0
    net.train()
    stats = {"loss": 0.0, "agreement": 0.0}
    for _ in range(cfg.epochs):
        order = torch.randperm(size, generator=run.generator, device=ids.device)
        stats = {"loss": 0.0, "agreement": 0.0}
        for start in range(0, size, cfg.batch_size):
            idx = order[start:start + cfg.batch_size]
            for group in optimizer.param_groups:
                group["lr"] = cfg.learning_rate * (1 - 0.9 * step / total_steps)
            index = None if data["index"] is None else data["index"][idx]
            logits, value = net.evaluate(tuple(x[idx] for x in data["inputs"]), rules_table,
                                         index)
            logp = legal_log_probs(logits.float(), ids[idx], valid[idx])
            policy = -logp.gather(1, chosen[idx, None]).mean()
            value_loss = torch.nn.functional.mse_loss(value.float(), data["returns"][idx])
            loss = policy + cfg.value_weight * value_loss
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            step += 1
            with torch.no_grad():
                stats["loss"] += float(loss) * idx.numel() / size
                stats["agreement"] += float((logp.argmax(1) == chosen[idx]).float().sum()) / size
    net.eval()
    return stats


def save_round(run: Run, k: int, data: dict[str, Any]) -> None:
    buffer = io.BytesIO()
    torch.save({key: value for key, value in data.items() if value is not None}, buffer)
    write_atomic(run.out / f"data-{k}.pt", buffer.getvalue())


def load_round(run: Run, k: int) -> dict[str, Any]:
    saved = torch.load(run.out / f"data-{k}.pt", map_location=run.device, weights_only=True)
    saved.setdefault("index", None)
    if isinstance(saved["inputs"], list):
        saved["inputs"] = tuple(saved["inputs"])
    return saved


def train(cfg: DistillConfig, command: str = "") -> dict[str, Any]:
    """Distil ``--teacher`` over ``--rounds`` rounds; returns the run's record."""
    cfg.check()
    cfg.workers = 0
    run = Run(cfg, command, cfg.states * cfg.rounds, "distill")
    optimizer = make_optimizer(run.net, cfg.learning_rate)
    extra = run.load_checkpoint(optimizer) if cfg.resume else {}
    rounds: list[dict[str, Any]] = extra.get("rounds", [])
    teacher = make_agent(cfg.teacher)
    members = [make_agent(n) for n in cfg.opponents.split(",")]
    run.open_games(members[0] if len(members) == 1 else AgentPool(members))
    rng = np.random.default_rng(cfg.seed + len(rounds))
    data: dict[str, Any] | None = None
    for k in range(len(rounds)):
        part = load_round(run, k)
        data = part if data is None else {key: join_rows(data[key], part[key]) for key in data}
    run.start_clock()
    try:
        for k in range(len(rounds), cfg.rounds):
            start = time.perf_counter()
            part = record_round(run, cfg, teacher, rng, network_plays=k > 0 or bool(cfg.init_net))
            save_round(run, k, part)
            data = part if data is None else {key: join_rows(data[key], part[key]) for key in data}
            fitting = time.perf_counter()
            stats = fit(run, optimizer, data, rules_of(run.shards, run.device)[0], cfg)
            run.advance(0, update_seconds=time.perf_counter() - fitting)
            if cfg.curve_deals:
                run.curve_point()
            rounds.append({"round": k, "states": int(data["labels"].numel()),
                           "seconds": round(time.perf_counter() - start, 1), **stats,
                           "curve": run.curve[-1] if run.curve else {}})
            run.log({"distill/loss": stats["loss"], "distill/agreement": stats["agreement"]})
            run.save_checkpoint(optimizer, {"rounds": rounds})
    except KeyboardInterrupt:
        raise stopped(run, optimizer, {"rounds": rounds}) from None
    record = run.finish({"recipe": "Distillation with DAgger on the learner core "
                                   "(experiments/distill.py)", "rounds": rounds})
    run.close()
    return record
