"""Improve a heuristic by one step of approximate policy iteration (see uno_agents.improved).

    python experiments/train_improvement.py --states 400000 --out runs/improved

Read top to bottom: the settings, the data (the base heuristic against itself,
every legal action of sampled decisions played out to the end by the base in
every seat, or, with ``--search-budget B``, valued by the search agent from ``B``
playouts in worlds sampled from the public game), the advantage network fitted
to the data, the choice of the margin on one set of deals and the evaluation on
fresh ones. A run writes to ``--out``:

* ``model.pt``: the network, its base heuristic and margin
  (``uno_agents.make_agent("improved:<out>/model.pt")``);
* ``record.json``: the settings, the exact command (with the commit, date, machine
  and evaluation deals), the data and fitting numbers, the win rate of every margin
  tried and the final head-to-head results;
* ``data.npz``: the decisions and their advantages, so that several runs' data
  (``--collect-only`` with different ``--seed``, in parallel processes) can be
  fitted together with ``--data a.npz,b.npz``.

Every comparison is head-to-head on duplicate deals (the agent in one seat, the
opponent in the others, each deal replayed with the agent in every seat); the
margin is chosen on ``--select-deals`` selection deals (stream ``--seed`` of
:mod:`uno_env.deals`; against the base, or ``--select-opponent``), and the agent with
that margin is then measured on ``--eval-deals`` evaluation deals (``FRESH_SEED`` on),
so the reported numbers are not the ones the choice was made on. Against
every opponent but the base, the base plays the same deals too, and the record gives
the difference paired by deal with its interval: "beats X by more than the base
does" needs it above 0.
Torch runs one thread.
"""

from __future__ import annotations

from uno_env.launch import guard

guard("train_improvement", __name__)

import dataclasses
import json
import shlex
import sys
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from uno_env.extras import require

require("train_improvement.py", "train")

import numpy as np
import torch
from tqdm.auto import tqdm

from uno_agents import make_agent
from uno_agents.advantage_data import advantages, sampled_decisions, searched_advantages
from uno_agents.improved import AdvantageNet, ImprovedAgent, save_model
from uno_agents.ismcts import IsmctsAgent
from uno_env import Rules
from uno_env.cli import run_command
from uno_env.deals import deal_seed, describe
from uno_env.evaluation import deal_wins, head_to_head, versus_base, win_rate
from uno_env.tooling.dataclass_flags import parse_dataclass
from uno_env.tooling.machine import provenance

# --- settings ---------------------------------------------------------------------------------


@dataclass
class Config:
    """Every setting of a run; each field is a CLI flag (``select_deals`` -> ``--select-deals``)."""

    preset: str = "official"
    players: int = 2
    base: str = "tuned"            # the heuristic to improve (it also plays out every copy)
    opponent: str = ""             # who the base plays in the data games, and who the other
    #                                seats play in the play-outs ("": the base itself)
    states: int = 400_000          # decisions whose every action is played out
    games: int = 2048              # base games played side by side to find them
    record: float = 0.25           # chance that a decision with a choice is recorded
    search_budget: int = 0         # 0: one play-out per action in the true game; B: the
    #                                search agent's estimate from B playouts in sampled worlds
    search_horizon: int = 10       # the search's playout length in decisions (0: to the end)
    drew_on_weight: float = 1.0    # the search's worlds: below 1, a player who drew on a
    #                                color is dealt it (and wilds) that many times less often
    hidden: str = "256,256"
    epochs: int = 8
    batch_size: int = 1024
    learning_rate: float = 1e-3
    margins: str = "0,0.02,0.05,0.1,0.2"
    select_deals: int = 2000
    select_opponent: str = ""      # whom the margin is chosen against ("": the base)
    eval_deals: int = 5000
    eval_opponents: str = "tuned,random_play"
    seed: int = 0
    out: str = "runs/improved"
    data: str = ""                 # comma-separated data.npz files to fit instead of collecting
    collect_only: bool = False     # stop after writing data.npz
    progress: bool = True

    def rules(self) -> Rules:
        return Rules.preset(self.preset, num_players=self.players)


def parse_config(argv: list[str] | None = None) -> Config:
    """A Config from command-line flags, one per field, defaults from the dataclass."""
    return parse_dataclass(Config, __doc__.split("\n\n")[0], argv)


# --- data -------------------------------------------------------------------------------------

def collect(cfg: Config) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(observations, masks, advantages)`` of ``cfg.states`` decisions of the base
    heuristic against itself, or, with ``cfg.opponent``, against that agent (only the
    base's decisions are recorded; see :func:`sampled_decisions`)."""
    base = make_agent(cfg.base)
    opponent = make_agent(cfg.opponent) if cfg.opponent else None
    label = partial(advantages, opponent=opponent)
    if cfg.search_budget:
        search = IsmctsAgent(budget=cfg.search_budget, playout=cfg.base, opponent=cfg.opponent,
                             horizon=cfg.search_horizon, drew_on_weight=cfg.drew_on_weight)
        label = partial(searched_advantages, search)
    rng = np.random.default_rng(cfg.seed)
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    found = 0
    bar = tqdm(total=cfg.states, unit="state", disable=not cfg.progress)
    for engine, games, obs, masks, chosen in sampled_decisions(
            cfg.rules(), base, opponent, cfg.games, cfg.record, cfg.seed, rng):
        n = min(len(games), cfg.states - found)
        adv = label(engine, games[:n], masks[:n], chosen[:n], base, rng)
        parts.append((obs[:n], masks[:n], adv))
        found += n
        bar.update(n)
        if found == cfg.states:
            break
    bar.close()
    obs, masks, adv = (np.concatenate(x) for x in zip(*parts, strict=True))
    return obs, masks, adv


def load_data(paths: list[str]
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
    """``(observations, masks, advantages, settings)`` of the ``data.npz`` files of earlier
    runs, concatenated in the order given; ``settings`` holds, per file, its path, its
    decisions and the collection settings it recorded, so that a fit's record says how all
    of its data was made."""
    parts, settings = [], []
    for path in paths:
        with np.load(path) as f:
            arrays = tuple(f[k] for k in ("obs", "masks", "advantages"))
            recorded = json.loads(str(f["config"])) if "config" in f else {}
        parts.append(arrays)
        settings.append({"file": path, "decisions": len(arrays[2]), **recorded})
    obs, masks, adv = (np.concatenate(x) for x in zip(*parts, strict=True))
    return obs, masks, adv, settings


# --- fitting ----------------------------------------------------------------------------------

def fit(cfg: Config, obs: np.ndarray, masks: np.ndarray, adv: np.ndarray
        ) -> tuple[AdvantageNet, dict[str, Any]]:
    """Least squares on the legal actions' advantages; 5% of the decisions held out."""
    torch.manual_seed(cfg.seed)
    net = AdvantageNet(tuple(int(h) for h in cfg.hidden.split(",")))
    opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate)
    order = np.random.default_rng(cfg.seed).permutation(len(obs))
    held = order[: max(1, len(obs) // 20)]
    train = order[held.size:]
    x, m, y = (torch.as_tensor(a) for a in (obs, masks, adv))

    def loss_of(idx: torch.Tensor) -> torch.Tensor:
        pred = net(x[idx])
        legal = m[idx].float()
        return ((pred - y[idx]) ** 2 * legal).sum() / legal.sum()

    history = []
    for epoch in tqdm(range(cfg.epochs), desc="fitting", disable=not cfg.progress):
        net.train()
        perm = torch.as_tensor(np.random.default_rng(cfg.seed + epoch).permutation(train))
        total = 0.0
        for lo in range(0, len(perm), cfg.batch_size):
            loss = loss_of(perm[lo: lo + cfg.batch_size])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * min(cfg.batch_size, len(perm) - lo)
        net.eval()
        with torch.no_grad():
            held_loss = float(loss_of(torch.as_tensor(held)))
        history.append({"epoch": epoch, "train_loss": total / len(perm), "held_loss": held_loss})
    # the same held-out loss for a network that always says 0 (the base policy's view)
    with torch.no_grad():
        legal = m[held].float()
        zero = float((y[held] ** 2 * legal).sum() / legal.sum())
    return net, {"history": history, "held_out_loss_of_zero": zero}


# --- evaluation -------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    cfg = parse_config(argv)
    torch.set_num_threads(1)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    rules = cfg.rules()
    start = time.perf_counter()
    if cfg.data:
        obs, masks, adv, data = load_data(cfg.data.split(","))
    else:
        (obs, masks, adv), data = collect(cfg), []
        np.savez_compressed(out / "data.npz", obs=obs, masks=masks, advantages=adv,
                            config=json.dumps(dataclasses.asdict(cfg)))
    collected = time.perf_counter()
    departs = (adv > 0).any(axis=1).mean()
    print(f"{len(obs):,} decisions in {collected - start:.0f} s; in {departs:.1%} of them "
          f"another action did better than {cfg.base}'s in its copy")
    if cfg.collect_only:
        print(f"wrote {out / 'data.npz'}")
        return
    net, fitting = fit(cfg, obs, masks, adv)
    fitted = time.perf_counter()
    last = fitting["history"][-1]
    print(f"fitted in {fitted - collected:.0f} s: held-out loss {last['held_loss']:.4f} "
          f"(always 0: {fitting['held_out_loss_of_zero']:.4f})")
    base = make_agent(cfg.base)
    rival = cfg.select_opponent or cfg.base
    margins = []
    for margin in (float(m) for m in cfg.margins.split(",")):
        agent = ImprovedAgent(net, base=base, margin=margin)
        r = head_to_head(agent, make_agent(rival), rules, cfg.select_deals,
                         seed=deal_seed("selection", cfg.seed, 0, cfg.select_deals))
        margins.append({"margin": margin, **r})
        print(f"margin {margin}: {r['win_rate']:.1%} [{r['low']:.1%}, {r['high']:.1%}] against "
              f"{rival} over {r['games']:,} games (selection deals)")
    chosen = max(margins, key=lambda r: r["win_rate"])["margin"]
    agent = ImprovedAgent(net, base=base, margin=chosen)
    fresh = deal_seed("evaluation", 0, 0, cfg.eval_deals)
    results = []
    for name in cfg.eval_opponents.split(","):
        wins = deal_wins(agent, make_agent(name), rules, cfg.eval_deals, seed=fresh)
        if name == cfg.base:
            r = win_rate(wins, rules.num_players)
        else:                     # the base on the same deals, to compare with
            base_wins = deal_wins(base, make_agent(name), rules, cfg.eval_deals, seed=fresh)
            r = versus_base(wins, base_wins, rules.num_players)
        results.append({"opponent": name, **r})
        print(f"margin {chosen} against {name}: {r['win_rate']:.1%} [{r['low']:.1%}, "
              f"{r['high']:.1%}] over {r['games']:,} games (fresh deals)")
        if "base" in r:
            b, d = r["base"], r["difference"]
            print(f"{cfg.base} against {name} on the same deals: {b['win_rate']:.1%} "
                  f"[{b['low']:.1%}, {b['high']:.1%}]; the difference, paired by deal: "
                  f"{d['mean']:+.2%} [{d['low']:+.2%}, {d['high']:+.2%}]")
    record = {**provenance("python experiments/train_improvement.py " + shlex.join(argv),
                           describe(fresh, cfg.eval_deals)),
              "config": dataclasses.asdict(cfg),
              "decisions": len(obs), "departures_in_data": float(departs),
              "data": data,
              "collect_seconds": round(collected - start, 1),
              "fit_seconds": round(fitted - collected, 1), "fitting": fitting,
              "margins": margins, "margin": chosen, "results": results,
              "torch": torch.__version__}
    save_model(out / "model.pt", net, cfg.base, chosen, {k: record[k] for k in
                                                          ("command", "decisions", "margin")})
    (out / "record.json").write_text(json.dumps(record, indent=2) + "\n")
    print(f"wrote {out / 'model.pt'} and {out / 'record.json'}")


if __name__ == "__main__":
    sys.exit(run_command(main, "train_improvement"))
