"""Deep Monte-Carlo (as in DouZero): a network learns each action's game outcome.

    python experiments/train_dmc.py --players 2 --decisions 20000000 --out runs/dmc

Read top to bottom: the settings, the self-play and the fit, the run. The network
(:class:`uno_agents.net.PolicyNet`) reads the observation and outputs one value per
action, ``Q(s, a)``: the expected reward of the game after playing ``a``. It plays
the legal action of highest value (so the saved network is directly a ``net:``
agent), and while learning it explores with probability ``--epsilon`` (decaying
linearly to ``--epsilon-final``).

Each batch plays ``--games`` games to their end. Game ``g`` draws its opponents from
``--opponents``: ``self`` seats the learner in every seat (every seat's decisions
are learned), any agent name seats the learner in seat ``g % players`` against that
agent. Every recorded decision (those with a choice) is labelled by the reward its
player got in the end (Monte-Carlo return, no discount, no bootstrapping; a game cut
by ``max_turns`` counts -1, a loss, so that stalling never pays), and the
network regresses ``Q(s, a)`` onto it by least squares (its value head learns the
same return as ``V(s)``). No replay: each batch's decisions are fitted
``--epochs`` times and dropped, as DouZero's actors feed its learner.

After every ``--eval-every`` decisions the network is measured against ``greedy``
and ``tuned`` on a fixed set of deals (deal seeds from 900,000; TensorBoard
``eval/``), and at the end on ``--eval-deals`` fresh deals (from 1,000,000). A run
writes ``model.safetensors`` with its card ``model.json``, ``record.json`` and
``tb/``; Ctrl-C saves the network and ``--resume`` continues from it (Adam's moments
start again). Torch runs one thread.
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
from uno_agents.net import NetAgent, PolicyNet, load_net, save_net, write_json
from uno_env import Engine, Rules
from uno_env.cli import run_command
from uno_env.dataclass_flags import check_bounds, parse_dataclass, widths
from uno_env.evaluation import CURVE_SEED, FRESH_SEED, head_to_head


@dataclass
class Config:
    """Every setting of a run; each field is a CLI flag (``eval_deals`` -> ``--eval-deals``)."""

    preset: str = "official"       # the rules preset of every game
    players: int = 2               # players per game
    opponents: str = "self,tuned,random_play,greedy"  # each game draws one ("self": the
    #                                learner in every seat)
    decisions: int = 5_000_000     # learner decisions to learn from
    games: int = 1024              # games per batch
    hidden: str = "512,512,256"    # the network's hidden layer widths
    epochs: int = 1                # passes over each batch's decisions
    batch_size: int = 2048         # decisions per gradient step
    learning_rate: float = 3e-4    # Adam's step size
    epsilon: float = 0.1           # exploration: chance of a uniform legal action at start
    epsilon_final: float = 0.02    # ... decayed linearly to this at the end
    init_net: str = ""             # a saved network to start from ("" a new one)
    eval_every: int = 1_000_000    # learner decisions between curve points (0: none)
    curve_deals: int = 1000        # duplicate deals of each curve point
    eval_deals: int = 10_000       # fresh duplicate deals of the final evaluation (0: none)
    eval_opponents: str = "tuned,random_play,greedy"  # opponents of the final evaluation
    seed: int = 0                  # the deals, the initial weights, exploration, batches
    out: str = "runs/dmc"          # output folder
    resume: bool = False           # continue the run in --out from its saved network
    progress: bool = True          # show a progress bar

    def rules(self) -> Rules:
        return Rules.preset(self.preset, num_players=self.players)

    def widths(self) -> tuple[int, ...]:
        return widths(self.hidden, "hidden")

    def check(self) -> None:
        """Raise ``SystemExit`` naming the first bad setting, before any work starts."""
        check_bounds(self, at_least_one=("players", "decisions", "games", "epochs", "batch_size"),
                     non_negative=("eval_every", "curve_deals", "eval_deals"),
                     positive=("learning_rate",), fractions=("epsilon", "epsilon_final"))
        try:
            self.rules()
            PolicyNet(self.widths())
            for spec in [*self.opponent_names(), *self.eval_opponents.split(",")]:
                if spec != "self":
                    make_agent(spec)
        except ValueError as e:
            raise SystemExit(f"bad setting: {e}") from None
        if self.init_net and not Path(self.init_net).is_file():
            raise SystemExit(f"--init-net {self.init_net!r} is not a file")

    def opponent_names(self) -> list[str]:
        return self.opponents.split(",")


def parse_config(argv: list[str] | None = None) -> Config:
    """A Config from command-line flags, one per field, defaults from the dataclass."""
    return parse_dataclass(Config, __doc__.split("\n\n")[0], argv)


# --- self-play and fit ------------------------------------------------------------------------

def play_batch(rules: Rules, net: PolicyNet, opponents: list[BatchAgent | None], games: int,
               epsilon: float, seed: int, rng: np.random.Generator
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``games`` games to their end, game ``g`` against ``opponents[g % len]`` (None: the
    learner in every seat, else the learner in seat ``g % players``). Returns the
    learner's decisions with a choice: observations (float16), actions and each
    one's Monte-Carlo return (its player's summed reward)."""
    p = rules.num_players
    engine = Engine(rules, games, seed + np.arange(games))
    kind = np.arange(games) % len(opponents)
    selfplay = np.array([o is None for o in opponents])[kind]
    hero = (np.arange(games) // len(opponents)) % p
    learner = NetAgent(net)
    returns = np.zeros((games, p), np.float32)
    obs_parts, action_parts, game_parts, seat_parts = [], [], [], []
    while not engine.state.done.all():
        live = np.flatnonzero(~engine.state.done)
        seat = engine.state.current[live]
        obs, masks = engine.observe(games=live), engine.legal_action_mask(live)
        ours = selfplay[live] | (seat == hero[live])
        parts = [(learner, ours)] + [(o, ~ours & (kind[live] == k))
                                     for k, o in enumerate(opponents) if o is not None]
        actions = choose_in_parts(parts, engine, live, obs, masks, rng)
        explore = ours & (rng.random(live.size) < epsilon)
        if explore.any():
            noise = np.where(masks[explore], rng.random(masks[explore].shape), -1.0)
            actions[explore] = noise.argmax(axis=1)
        keep = np.flatnonzero(ours & (masks.sum(axis=1) > 1))
        if keep.size:
            obs_parts.append(obs[keep].astype(np.float16))
            action_parts.append(actions[keep])
            game_parts.append(live[keep])
            seat_parts.append(seat[keep])
        rewards, _, _ = engine.step(actions, games=live)
        returns += rewards
    # A game cut by max_turns is a loss for the learner (as the evaluation counts it): with
    # its zero reward, stalling would otherwise look better than losing.
    returns[engine.state.truncated] = -1.0
    g, s = np.concatenate(game_parts), np.concatenate(seat_parts)
    return (np.concatenate(obs_parts),
            np.concatenate(action_parts), returns[g, s])


def fit_batch(net: PolicyNet, opt: torch.optim.Optimizer, obs: np.ndarray, actions: np.ndarray,
              targets: np.ndarray, cfg: Config, gen: torch.Generator) -> float:
    """Least-squares steps of ``Q(s, a)`` (and ``V(s)``) onto the returns; the mean loss."""
    net.train()
    total, steps = 0.0, 0
    for _ in range(cfg.epochs):
        order = torch.randperm(len(actions), generator=gen).numpy()
        for lo in range(0, len(order), cfg.batch_size):
            idx = order[lo:lo + cfg.batch_size]
            q, v = net(torch.as_tensor(obs[idx].astype(np.float32)))
            target = torch.as_tensor(targets[idx])
            chosen = q.gather(1, torch.as_tensor(actions[idx])[:, None]).squeeze(1)
            loss = torch.nn.functional.mse_loss(chosen, target) + \
                torch.nn.functional.mse_loss(v, target)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total, steps = total + loss.item(), steps + 1
    net.eval()
    return total / max(1, steps)


# --- the run ----------------------------------------------------------------------------------

def run(cfg: Config, command: str) -> dict[str, Any]:
    """Self-play and fit until ``cfg.decisions``, with the curve, then evaluate."""
    cfg.check()
    torch.set_num_threads(1)
    out = Path(cfg.out)
    if (out / "record.json").exists() and not cfg.resume:
        raise SystemExit(f"{out} holds a run already: --resume continues it, or choose "
                         f"another --out")
    record: dict[str, Any] = {"config": asdict(cfg), "command": command, "decisions": 0,
                              "batches": 0, "curve": []}
    torch.manual_seed(cfg.seed)
    net = PolicyNet(cfg.widths())
    if cfg.resume and (out / "record.json").exists():
        record = json.loads((out / "record.json").read_text())
        record["command"] = command
        net, _ = load_net(out / "model.safetensors")
    elif cfg.init_net:
        net, _ = load_net(cfg.init_net)
    out.mkdir(parents=True, exist_ok=True)
    rules = cfg.rules()
    opponents = [None if n == "self" else make_agent(n) for n in cfg.opponent_names()]
    opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate)
    gen = torch.Generator().manual_seed(cfg.seed + record["batches"])
    rng = np.random.default_rng([cfg.seed, record["batches"]])
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(out / "tb"))
    bar = tqdm(total=cfg.decisions, initial=record["decisions"], unit="decision",
               disable=not cfg.progress)
    next_point = record["decisions"] + cfg.eval_every if cfg.eval_every else None
    start = time.perf_counter()
    try:
        while record["decisions"] < cfg.decisions:
            done = record["decisions"] / cfg.decisions
            epsilon = cfg.epsilon + (cfg.epsilon_final - cfg.epsilon) * done
            seed = cfg.seed * 1_000_003 + record["batches"] * cfg.games
            obs, actions, targets = play_batch(rules, net, opponents, cfg.games, epsilon,
                                                  seed, rng)
            loss = fit_batch(net, opt, obs, actions, targets, cfg, gen)
            record["decisions"] += len(actions)
            record["batches"] += 1
            writer.add_scalar("train/loss", loss, record["decisions"])
            writer.add_scalar("train/epsilon", epsilon, record["decisions"])
            bar.update(len(actions))
            if next_point is not None and record["decisions"] >= next_point:
                next_point += cfg.eval_every
                record["curve"].append(curve_point(net, rules, cfg, record, writer))
                save(out, net, record)
    except KeyboardInterrupt:
        save(out, net, record)
        raise SystemExit(f"stopped after {record['decisions']:,} decisions: the network is "
                         f"in {out}; --resume continues") from None
    bar.close()
    record["seconds"] = round(time.perf_counter() - start + record.get("seconds", 0), 1)
    if cfg.eval_deals:
        record["eval"] = {name: head_to_head(NetAgent(net), make_agent(name), rules,
                                             cfg.eval_deals, FRESH_SEED)
                          for name in cfg.eval_opponents.split(",")}
        record["eval_seed"] = FRESH_SEED
        for name, r in record["eval"].items():
            print(f"vs {name}: {r['win_rate']:.1%} [{r['low']:.1%}, {r['high']:.1%}] over "
                  f"{r['games']:,} games", flush=True)
    save(out, net, record)
    return record


def curve_point(net: PolicyNet, rules: Rules, cfg: Config, record: dict[str, Any],
                writer: Any) -> dict[str, Any]:
    """The network against greedy and tuned on the curve deals, logged and returned."""
    point: dict[str, Any] = {"decisions": record["decisions"]}
    for name in ("greedy", "tuned"):
        r = head_to_head(NetAgent(net), make_agent(name), rules, cfg.curve_deals, CURVE_SEED)
        point[name] = r
        for key in ("win_rate", "low", "high"):
            writer.add_scalar(f"eval/{name}_{key}", r[key], record["decisions"])
    writer.flush()
    print(f"{record['decisions']:,} decisions: greedy {point['greedy']['win_rate']:.1%}, "
          f"tuned {point['tuned']['win_rate']:.1%}", flush=True)
    return point


def save(out: Path, net: PolicyNet, record: dict[str, Any]) -> None:
    """The network with its model card, and the record (both written atomically)."""
    card = {"recipe": "Deep Monte-Carlo (experiments/train_dmc.py)", **record}
    save_net(out / "model.safetensors", net, card)
    write_json(out / "record.json", record)


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    cfg = parse_config(argv)
    run(cfg, "python experiments/train_dmc.py " + shlex.join(argv))


if __name__ == "__main__":
    sys.exit(run_command(main, "train_dmc"))
