"""Distil a strong teacher into a standalone network (behaviour cloning with DAgger).

    python experiments/distill.py --players 2 --teacher improved:official-2p-exit-rp \\
        --states 600000 --rounds 3 --out runs/distill-2p --seed 0

Read top to bottom: the settings, the data, the fit, the evaluation, the run. The
network (:class:`uno_agents.net.PolicyNet`) learns the teacher's action from the
observation and mask alone, and at decision time it plays without the teacher.

**Data and DAgger.** Round 0 plays the teacher in one seat of each game against the
opponents of ``--opponents`` (each game draws one of them for all its other seats)
and records the teacher's decisions that have a choice. Every later round lets the
*network* play that seat, still labelled by the teacher's choice in the positions
the network reaches (DAgger), so the network learns to recover from its own
mistakes, and fits again on all rounds' data. With ``--init-net`` the network starts
from a saved one and plays from round 0 (how expert iteration improves a network
with a search that uses it: ``experiments/expert_iteration.py``). The value head
learns the outcome of the recorded seat's game (+1 a win, -1 a loss), for later RL
fine-tuning.

**Honest numbers.** No choice is made on any evaluation: the network of the last
round ships. After each round it is measured on a fixed set of deals against
``greedy`` and ``tuned`` (the TensorBoard curve, ``--curve-deals`` deals from deal
seed 900,000); the final evaluation uses ``--eval-deals`` fresh deals from deal seed
1,000,000 (duplicate deals, seats rotated, 95% intervals over deals).

A run writes to ``--out``: ``model.safetensors`` with its model card ``model.json``
(``uno_agents.make_agent("net:<out>/model.safetensors")``), ``record.json`` (settings,
command, per-round fit and evaluation), ``data-<round>.npz`` (each round's data), and
``tb/`` (TensorBoard). ``--resume`` continues after the last completed round; Ctrl-C
stops after saving the network so far. Torch runs one thread.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm.auto import tqdm

from uno_agents import make_agent
from uno_agents.base import BatchAgent, choose_in_parts
from uno_agents.net import NetAgent, PolicyNet, load_net, save_net, widen, write_json
from uno_env import Engine, Rules
from uno_env.cli import run_command
from uno_env.dataclass_flags import check_bounds, parse_dataclass, widths
from uno_env.evaluation import CURVE_SEED, FRESH_SEED, head_to_head

# --- settings ---------------------------------------------------------------------------------


@dataclass
class Config:
    """Every setting of a run; each field is a CLI flag (``eval_deals`` -> ``--eval-deals``)."""

    preset: str = "official"       # the rules preset of every game
    players: int = 2               # players per game
    teacher: str = "improved:official-2p-exit-rp"  # the agent whose choices are learned
    init_net: str = ""             # start from this network (.safetensors); it plays from round 0
    opponents: str = "tuned,random_play,greedy"    # each game draws one for its other seats
    states: int = 600_000          # decisions recorded per round
    rounds: int = 3                # round 0: the teacher plays; later rounds: the network
    games: int = 1024              # games played side by side while collecting
    hidden: str = "256,256"        # the network's hidden layer widths
    epochs: int = 4                # passes over all data so far, per round
    batch_size: int = 1024
    learning_rate: float = 1e-3    # Adam, decayed to a tenth over each round's fit
    value_weight: float = 0.25     # weight of the value loss beside the policy loss
    curve_deals: int = 1000        # deals of each round's curve point (0: none)
    eval_deals: int = 10_000       # fresh deals of the final evaluation (0: none)
    eval_opponents: str = "tuned,random_play,greedy"
    seed: int = 0                  # the data's deals, the initial weights and the batches
    out: str = "runs/distill"
    resume: bool = False           # continue a run in --out after its last round
    progress: bool = True

    def rules(self) -> Rules:
        return Rules.preset(self.preset, num_players=self.players)

    def check(self) -> None:
        """Raise ``SystemExit`` naming the first bad setting (before any work starts)."""
        check_bounds(self, at_least_one=("players", "states", "rounds", "games", "epochs",
                                         "batch_size"), non_negative=("curve_deals", "eval_deals",
                                                                      "value_weight"),
                     positive=("learning_rate",))
        try:
            self.rules()
            PolicyNet(self.widths())
            if self.init_net:
                load_net(self.init_net)
            for spec in [self.teacher, *self.opponents.split(","),
                         *self.eval_opponents.split(",")]:
                make_agent(spec)
        except ValueError as e:
            raise SystemExit(f"bad setting: {e}") from None

    def widths(self) -> tuple[int, ...]:
        return widths(self.hidden, "hidden")


def parse_config(argv: list[str] | None = None) -> Config:
    """A Config from command-line flags, one per field, defaults from the dataclass."""
    return parse_dataclass(Config, __doc__.split("\n\n")[0], argv)


# --- data -------------------------------------------------------------------------------------

def collect(rules: Rules, player: BatchAgent, teacher: BatchAgent,
            opponents: list[BatchAgent], states: int, games: int, seed: int,
            store: Store, progress: bool = True) -> None:
    """Add to ``store`` ``states`` decisions of the seat ``g % players`` of game ``g``
    where ``player`` acts and ``teacher`` labels, against one of ``opponents`` (game ``g``
    draws ``opponents[(g // players) % len]``) in the other seats. Only decisions with
    more than one legal action are recorded: observations (float16: counts and one-hots
    are exact), masks, the teacher's labels and the game's outcome for the recorded seat
    (+1 won, -1 lost, 0 unfinished)."""
    rng = np.random.default_rng(seed)
    p = rules.num_players
    hero = np.arange(games) % p
    opponent_of = (np.arange(games) // p) % len(opponents)
    end = store.size + states
    batch = 0
    bar = tqdm(total=states, unit="state", disable=not progress, leave=False)
    while store.size < end:
        engine = Engine(rules, games, seed * 1_000_003 + batch * games + np.arange(games))
        batch += 1
        first = store.size
        rows_game: list[np.ndarray] = []
        while not engine.state.done.all() and store.size < end:
            live = np.flatnonzero(~engine.state.done)
            obs, masks = engine.observe(games=live), engine.legal_action_mask(live)
            ours = engine.state.current[live] == hero[live]
            parts = [(opponents[k], ~ours & (opponent_of[live] == k))
                     for k in range(len(opponents))]
            labels = np.zeros(live.size, np.int64)
            if ours.any():
                labels[ours] = choose_in_parts([(teacher, ours[ours])], engine, live[ours],
                                               obs[ours], masks[ours], rng)
            if player is teacher:
                actions = labels
            else:
                actions = choose_in_parts([(player, ours)], engine, live, obs, masks, rng)
            others = choose_in_parts(parts, engine, live, obs, masks, rng)
            actions = np.where(ours, actions, others)
            keep = np.flatnonzero(ours & (masks.sum(axis=1) > 1))[: end - store.size]
            if keep.size:
                store.add({"obs": obs[keep], "masks": masks[keep], "labels": labels[keep],
                           "outcome": np.zeros(keep.size, np.float32)})
                rows_game.append(live[keep])
                bar.update(keep.size)
            engine.step(actions, games=live)
        if rows_game:
            won = np.where(engine.state.done, engine.state.winner == hero, False)
            lost = engine.state.done & ~won
            g = np.concatenate(rows_game)
            store.arrays["outcome"][first:store.size] = won[g].astype(np.float32) - lost[g]
    bar.close()


# --- fit --------------------------------------------------------------------------------------

def fit(net: PolicyNet, data: dict[str, np.ndarray], cfg: Config, seed: int,
        progress: bool = True) -> dict[str, float]:
    """Fit ``net`` to the teacher's labels (cross-entropy over the legal actions) and the
    outcomes (squared error, weight ``cfg.value_weight``) for ``cfg.epochs`` passes, on
    all but a held-out 2% that measures the agreement with the teacher."""
    n = len(data["labels"])
    gen = torch.Generator().manual_seed(seed)
    order = torch.randperm(n, generator=gen).numpy()
    held, train = order[: max(1, n // 50)], order[max(1, n // 50):]
    opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate)
    steps = cfg.epochs * max(1, len(train) // cfg.batch_size)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps, cfg.learning_rate / 10)
    net.train()
    bar = tqdm(total=steps, unit="batch", disable=not progress, leave=False)
    for _ in range(cfg.epochs):
        perm = train[torch.randperm(len(train), generator=gen).numpy()]
        for lo in range(0, len(perm) - cfg.batch_size + 1, cfg.batch_size):
            idx = np.sort(perm[lo:lo + cfg.batch_size])
            loss = losses(net, data, idx, cfg.value_weight)[0]
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            bar.update()
    bar.close()
    net.eval()
    with torch.no_grad():
        _, policy_loss, value_loss, agree = losses(net, data, held, cfg.value_weight)
    return {"held_out": int(held.size), "policy_loss": round(float(policy_loss), 5),
            "value_loss": round(float(value_loss), 5), "agreement": round(float(agree), 5)}


def losses(net: PolicyNet, data: dict[str, np.ndarray], idx: np.ndarray,
           value_weight: float) -> tuple[torch.Tensor, ...]:
    """``(total, policy, value, agreement)`` of the rows ``idx`` of ``data``."""
    obs = torch.as_tensor(data["obs"][idx].astype(np.float32))
    masks = torch.as_tensor(data["masks"][idx])
    labels = torch.as_tensor(data["labels"][idx].astype(np.int64))
    logits, value = net(obs)
    logits = logits.masked_fill(~masks, -1e9)
    policy = torch.nn.functional.cross_entropy(logits, labels)
    value_loss = torch.nn.functional.mse_loss(value, torch.as_tensor(data["outcome"][idx]))
    agree = (logits.argmax(dim=1) == labels).float().mean()
    return policy + value_weight * value_loss, policy, value_loss, agree


# --- evaluation -------------------------------------------------------------------------------

def measure(agent: BatchAgent, opponents: list[str], rules: Rules, deals: int,
            seed: int) -> dict[str, dict[str, float]]:
    """``agent``'s head-to-head against each named opponent on ``deals`` duplicate deals
    from deal seed ``seed``."""
    return {name: head_to_head(agent, make_agent(name), rules, deals, seed)
            for name in opponents}


# --- the run ----------------------------------------------------------------------------------

def load_round(out: Path, k: int) -> dict[str, np.ndarray]:
    with np.load(out / f"data-{k}.npz") as f:
        return {key: f[key] for key in f.files}


def run(cfg: Config, command: str) -> dict[str, Any]:
    """Collect, fit and measure every round, then evaluate; returns the record."""
    cfg.check()
    torch.set_num_threads(1)
    out = Path(cfg.out)
    rules = cfg.rules()
    record: dict[str, Any] = {"config": asdict(cfg), "command": command, "rounds": []}
    net = widen(*load_net(cfg.init_net)) if cfg.init_net else PolicyNet(cfg.widths())
    start_round = 0
    if cfg.resume and (out / "record.json").exists():
        record = json.loads((out / "record.json").read_text())
        record["command"] = command
        start_round = len(record["rounds"])
        if start_round:
            net, _ = load_net(out / "model.safetensors")
    elif (out / "record.json").exists():
        raise SystemExit(f"{out} holds a run already: --resume continues it, or choose "
                         f"another --out")
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(cfg.seed)
    teacher = make_agent(cfg.teacher)
    opponents = [make_agent(name) for name in cfg.opponents.split(",")]
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(out / "tb"))
    store = Store(cfg.rounds * cfg.states)
    for k in range(start_round):
        store.add(load_round(out, k))
    try:
        for k in range(start_round, cfg.rounds):
            t0 = time.perf_counter()
            player = teacher if k == 0 and not cfg.init_net else NetAgent(net)
            first = store.size
            collect(rules, player, teacher, opponents, cfg.states, cfg.games,
                    cfg.seed * 100 + k, store, cfg.progress)
            np.savez(out / f"data-{k}.npz", **store.rows(first))
            data = store.rows()
            t1 = time.perf_counter()
            stats = fit(net, data, cfg, cfg.seed * 100 + k, cfg.progress)
            t2 = time.perf_counter()
            curve = measure(NetAgent(net), ["greedy", "tuned"], rules, cfg.curve_deals,
                            CURVE_SEED) if cfg.curve_deals else {}
            for name, r in curve.items():
                for key in ("win_rate", "low", "high"):
                    writer.add_scalar(f"eval/{name}_{key}", r[key], len(data["labels"]))
            writer.add_scalar("fit/agreement", stats["agreement"], len(data["labels"]))
            writer.flush()
            record["rounds"].append({"round": k, "states": int(len(data["labels"])),
                                     "collect_seconds": round(t1 - t0, 1),
                                     "fit_seconds": round(t2 - t1, 1), **stats,
                                     "curve": curve})
            save(out, net, cfg, record)
            print(f"round {k}: {len(data['labels']):,} states, agreement "
                  f"{stats['agreement']:.2%}, " + ", ".join(
                      f"{n} {r['win_rate']:.1%}" for n, r in curve.items()), flush=True)
    except KeyboardInterrupt:
        save(out, net, cfg, record)
        raise SystemExit(f"stopped: the network so far is in {out}; --resume continues "
                         f"after round {len(record['rounds']) - 1}") from None
    if cfg.eval_deals:
        record["eval"] = measure(NetAgent(net), cfg.eval_opponents.split(","), rules,
                                 cfg.eval_deals, FRESH_SEED)
        record["eval_seed"] = FRESH_SEED
        for name, r in record["eval"].items():
            print(f"vs {name}: {r['win_rate']:.1%} [{r['low']:.1%}, {r['high']:.1%}] over "
                  f"{r['games']:,} games", flush=True)
        save(out, net, cfg, record)
    return record


class Store:
    """All rounds' data in arrays allocated once for ``capacity`` decisions and filled in
    place (observations as float16, labels as int16), so memory holds each decision once
    (joining rounds or batches by concatenation would hold them twice at its peak)."""

    DTYPES = {"obs": np.float16, "masks": np.bool_, "labels": np.int16,
              "outcome": np.float32}

    def __init__(self, capacity: int) -> None:
        self.capacity, self.size = capacity, 0
        self.arrays: dict[str, np.ndarray] = {}

    def add(self, new: dict[str, np.ndarray]) -> None:
        n = len(new["labels"])
        if self.size + n > self.capacity:
            raise ValueError(f"the store holds {self.capacity} decisions, not "
                             f"{self.size + n}")
        for key, values in new.items():
            if key not in self.arrays:
                self.arrays[key] = np.empty((self.capacity, *values.shape[1:]),
                                            self.DTYPES[key])
            self.arrays[key][self.size:self.size + n] = values
        self.size += n

    def rows(self, start: int = 0) -> dict[str, np.ndarray]:
        """The data from row ``start`` on (views, no copies)."""
        return {key: values[start: self.size] for key, values in self.arrays.items()}


def save(out: Path, net: PolicyNet, cfg: Config, record: dict[str, Any]) -> None:
    """The network with its model card, and the record (both written atomically)."""
    card = {"recipe": "behaviour cloning with DAgger (experiments/distill.py)",
            "command": record["command"], "config": asdict(cfg),
            "rounds": record["rounds"], "eval": record.get("eval")}
    save_net(out / "model.safetensors", net, card)
    write_json(out / "record.json", record)


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    cfg = parse_config(argv)
    run(cfg, "python experiments/distill.py " + shlex.join(argv))


if __name__ == "__main__":
    sys.exit(run_command(main, "distill"))
