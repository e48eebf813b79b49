"""Combine advantage networks fitted against different opponents into one agent.

    python experiments/combine_advisers.py --models a/model.pt,b/model.pt --out runs/combined

Each model comes from ``experiments/train_improvement.py`` and knows where to depart
from the base heuristic against the opponent its search modelled (``tuned`` itself,
``random_play``, ...). Alone, each one's departures can cost against the other
opponents. Combined (:class:`uno_agents.improved.ImprovedAgent` with several advisers), an
action is played when one adviser rates it above the base's choice by more than that
adviser's margin, and, under a *veto* ``v``, when no adviser rates it below the base's
choice by more than ``v``.

Read top to bottom: the settings; each model keeps the margin its own fit chose; the
veto is chosen among ``--vetoes`` on ``--select-deals`` selection deals (stream ``--seed``
of :mod:`uno_env.deals`), for the largest *worst* gain over the base across
``--opponents`` (the gain against an opponent: the agent's win rate less the base's on
the same deals); the chosen agent is then measured on ``--eval-deals`` evaluation deals
(``FRESH_SEED`` on, which nothing was chosen on), with the
difference to the base paired by deal and its 95% interval. A run writes to
``--out`` ``model.pt`` (``uno_agents.make_agent("improved:<out>/model.pt")``) and
``record.json`` (the settings, the exact command, every veto tried and the results).
"""

from __future__ import annotations

from uno_env.launch import guard

guard("combine_advisers", __name__)

import dataclasses
import json
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from uno_env.extras import require

require("combine_advisers.py", "train")

import numpy as np
import torch

from uno_agents import make_agent
from uno_agents.improved import ImprovedAgent, load_advisers, save_advisers
from uno_env import Rules
from uno_env.cli import run_command
from uno_env.deals import deal_seed
from uno_env.evaluation import deal_wins, versus_base
from uno_env.tooling.dataclass_flags import parse_dataclass


@dataclass
class Config:
    """Every setting of a run; each field is a CLI flag (``select_deals`` -> ``--select-deals``)."""

    models: str = ""               # comma-separated model.pt files, one adviser each
    preset: str = "official"
    players: int = 2
    opponents: str = "tuned,random_play"
    vetoes: str = "none,0.1,0.05,0.02,0"   # "none": no veto
    select_deals: int = 4000
    eval_deals: int = 10000
    seed: int = 0
    out: str = "runs/combined"

    def rules(self) -> Rules:
        return Rules.preset(self.preset, num_players=self.players)


def parse_config(argv: list[str] | None = None) -> Config:
    """A Config from command-line flags, one per field, defaults from the dataclass."""
    return parse_dataclass(Config, __doc__.split("\n\n")[0], argv)


def deal_wins_by_opponent(agent: Any, cfg: Config, deals: int, seed: int
                          ) -> dict[str, np.ndarray]:
    """Per opponent of ``cfg.opponents``: ``agent``'s wins on each of the deals."""
    return {name: deal_wins(agent, make_agent(name), cfg.rules(), deals, seed)
            for name in cfg.opponents.split(",")}


def gains(agent: ImprovedAgent, base_wins: dict[str, np.ndarray], cfg: Config, deals: int,
          seed: int) -> dict[str, Any]:
    """Per opponent: the agent's win rate, the base's on the same deals (``base_wins``,
    played once for every agent compared) and the difference paired by deal."""
    wins = deal_wins_by_opponent(agent, cfg, deals, seed)
    return {name: versus_base(wins[name], base_wins[name], cfg.players) for name in wins}


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    cfg = parse_config(argv)
    if not cfg.models:
        raise SystemExit("--models: give the model.pt files to combine, comma-separated")
    torch.set_num_threads(1)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    advisers, bases = [], set()
    for path in cfg.models.split(","):
        nets, base, _ = load_advisers(Path(path))
        advisers += nets
        bases.add(base)
    if len(bases) != 1:
        raise SystemExit(f"the models improve different heuristics ({sorted(bases)}); "
                         f"combine models of one base")
    base = bases.pop()
    heuristic = make_agent(base)
    selection = deal_seed("selection", cfg.seed, 0, cfg.select_deals)
    base_wins = deal_wins_by_opponent(heuristic, cfg, cfg.select_deals, selection)
    tried = []
    for text in cfg.vetoes.split(","):
        veto = None if text == "none" else float(text)
        agent = ImprovedAgent(advisers, base=heuristic, veto=veto)
        result = gains(agent, base_wins, cfg, cfg.select_deals, selection)
        worst = min(r["difference"]["mean"] for r in result.values())
        tried.append({"veto": veto, "worst_gain": worst, "results": result})
        print(f"veto {text}: " + ", ".join(
            f"{name} {r['win_rate']:.1%} (base {r['base']['win_rate']:.1%})"
            for name, r in result.items()) + " on the selection deals")
    chosen = max(tried, key=lambda t: t["worst_gain"])["veto"]
    agent = ImprovedAgent(advisers, base=heuristic, veto=chosen)
    fresh = deal_seed("evaluation", 0, 0, cfg.eval_deals)
    final = gains(agent, deal_wins_by_opponent(heuristic, cfg, cfg.eval_deals, fresh), cfg,
                  cfg.eval_deals, fresh)
    for name, r in final.items():
        b, d = r["base"], r["difference"]
        print(f"veto {chosen} against {name}: {r['win_rate']:.1%} [{r['low']:.1%}, "
              f"{r['high']:.1%}], {base} {b['win_rate']:.1%} on the same deals; difference "
              f"{d['mean']:+.2%} [{d['low']:+.2%}, {d['high']:+.2%}] over {cfg.eval_deals:,} "
              f"deals (fresh)")
    record = {"config": dataclasses.asdict(cfg),
              "command": "python experiments/combine_advisers.py " + shlex.join(argv),
              "margins": [m for _, m in advisers], "vetoes": tried, "veto": chosen,
              "results": final, "torch": torch.__version__}
    save_advisers(out / "model.pt", advisers, base, chosen,
                  {k: record[k] for k in ("command", "margins", "veto")})
    (out / "record.json").write_text(json.dumps(record, indent=2) + "\n")
    print(f"wrote {out / 'model.pt'} and {out / 'record.json'}")


if __name__ == "__main__":
    sys.exit(run_command(main, "combine_advisers"))
