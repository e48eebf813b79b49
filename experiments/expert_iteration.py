"""Iterated expert iteration: a search guided by the network, distilled into the next one.

    python experiments/expert_iteration.py --start runs/d2p-s0/model.safetensors \\
        --iterations 2 --budget 256 --states 100000 --seed 0 --out runs/exit-2p-s0

Each iteration ``i`` turns network ``i - 1`` (``--start`` for the first) into network
``i``:

1. **The expert** is the search ``ismcts`` with that network as its *prior*: in every
   position the network's own choice is played unless another legal action beats it
   in the same sampled worlds by more than ``--confidence`` standard errors of the
   paired difference (playouts by ``--playout``, a fast heuristic). The expert is
   therefore the network, improved where the search is sure.
2. **Distillation** (``distill.py --init-net``): the network plays its seat against
   ``--opponents`` and the expert labels the positions it reaches; the network, started
   from its previous weights, fits those labels for ``--epochs`` passes.
3. **The gain** of each iteration is measured on the same ``--deals`` fresh duplicate
   deals (deal seeds from 1,000,000, nothing chosen on them): every network against
   ``--eval-opponent``, and its difference to the previous network paired by deal.

Every distillation is a ``distill.py`` command in its own process; an iteration
already finished in ``--out`` is reused, so a stopped run continues where it stopped.
Writes ``--out/iter-<i>/`` (each network with its card), ``--out/expert_iteration.json``
(settings, command, per-iteration results) and ``--out/expert_iteration.md`` (the table).
"""

from __future__ import annotations

from uno_env.launch import guard

guard("expert_iteration", __name__)

import json
import shlex
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from uno_env.extras import require

require("expert_iteration.py", "train")

from uno_agents import make_agent
from uno_agents.net import NetAgent, load_net, write_json
from uno_env import Rules
from uno_env.cli import run_command, run_process
from uno_env.deals import describe
from uno_env.evaluation import FRESH_SEED, deal_wins, mean_interval, win_rate
from uno_env.files import write_atomic
from uno_env.tooling.dataclass_flags import check_bounds, check_folder, parse_dataclass
from uno_env.tooling.machine import provenance
from uno_env.tooling.stages import claim_stage, stage_settings


@dataclass
class Config:
    """Every setting of a run; each field is a CLI flag (``eval_opponent``:
    ``--eval-opponent``)."""

    start: str = ""                # the first network (.safetensors), e.g. a distilled one
    players: int = 2               # players per game (the official rules)
    iterations: int = 2            # networks to make, each from the one before
    budget: int = 256              # the search's playouts per decision
    horizon: int = 10              # decisions per playout (0: to the end of the game)
    confidence: float = 2.0        # standard errors a gain must clear to override the network
    playout: str = "tuned"         # the playout policy of the search (all seats)
    opponents: str = "tuned,random_play,greedy"  # each game draws one for its other seats
    states: int = 100_000          # labelled decisions per iteration
    epochs: int = 3                # passes over an iteration's labels
    learning_rate: float = 5e-5    # Adam, decayed to a tenth over each fit (small: the
    #                                labels are mostly the network's own choices)
    value_weight: float = 0.0      # weight of the value loss (0: the value head is left alone)
    games: int = 256               # games played side by side while labelling
    deals: int = 5000              # fresh duplicate deals of every measurement
    eval_opponent: str = "tuned"   # the opponent every network is measured against
    seed: int = 0                  # the labelling deals and the batches
    out: str = "runs/expert-iteration"
    progress: bool = True

    def check(self) -> None:
        """Raise ``SystemExit`` naming the first bad setting (before any work starts)."""
        check_bounds(self, at_least_one=("players", "iterations", "budget", "states", "epochs",
                                         "games", "deals"),
                     non_negative=("horizon", "confidence", "value_weight"),
                     positive=("learning_rate",))
        if not self.start:
            raise SystemExit("bad setting: --start names the first network (.safetensors)")
        check_folder(self.out)
        try:
            Rules.preset("official", num_players=self.players)
            load_net(self.start)
            for spec in [self.playout, self.eval_opponent, *self.opponents.split(",")]:
                make_agent(spec)
        except ValueError as e:
            raise SystemExit(f"bad setting: {e}") from None

    def expert(self, network: Path) -> str:
        """The agent spec of the search that improves on ``network``."""
        return (f"ismcts:budget={self.budget},horizon={self.horizon},"
                f"confidence={self.confidence},playout={self.playout},prior=net:{network}")


def distil(cfg: Config, i: int, previous: Path) -> Path:
    """Network ``i`` (its distillation run, unless finished already in ``--out`` under
    the same settings: :func:`uno_env.tooling.stages.claim_stage`)."""
    out = Path(cfg.out) / f"iter-{i}"
    record = out / "record.json"
    command = [sys.executable, str(Path(__file__).parent / "distill.py"),
               "--players", str(cfg.players), "--init-net", str(previous),
               "--teacher", cfg.expert(previous), "--opponents", cfg.opponents,
               "--rounds", "1", "--states", str(cfg.states), "--epochs", str(cfg.epochs),
               "--learning-rate", str(cfg.learning_rate), "--num-games", str(cfg.games),
               "--value-weight", str(cfg.value_weight),
               "--curve-deals", "0", "--eval-deals", "0", "--seed", str(cfg.seed * 100 + i),
               "--out", str(out)]
    if not cfg.progress:
        command.append("--no-progress")
    claim_stage(out, stage_settings(command, [previous]), f"iteration {i}")
    if record.exists() and len(json.loads(record.read_text())["rounds"]) >= 1:
        return out / "model.safetensors"
    if any((out / "checkpoints").glob("*")):   # a distillation stopped half-way
        command.append("--resume")
    run_process(command)
    return out / "model.safetensors"


def run(cfg: Config, command: str) -> dict[str, Any]:
    """Make and measure every iteration's network; returns the record."""
    cfg.check()
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    rules = Rules.preset("official", num_players=cfg.players)
    opponent = make_agent(cfg.eval_opponent)
    networks = [Path(cfg.start)]
    wins = [deal_wins(NetAgent(networks[0]), opponent, rules, cfg.deals, FRESH_SEED)]
    rows: list[dict[str, Any]] = [{"iteration": 0, "network": str(networks[0]),
                                   "versus": win_rate(wins[0], cfg.players)}]
    record = {**provenance(command, describe(FRESH_SEED, cfg.deals)), "config": asdict(cfg),
              "deal_seed": FRESH_SEED, "iterations": rows}
    for i in range(1, cfg.iterations + 1):
        t0 = time.perf_counter()
        networks.append(distil(cfg, i, networks[-1]))
        seconds = time.perf_counter() - t0
        wins.append(deal_wins(NetAgent(networks[i]), opponent, rules, cfg.deals, FRESH_SEED))
        fit = json.loads((out / f"iter-{i}" / "record.json").read_text())["rounds"][-1]
        rows.append({"iteration": i, "network": str(networks[i]),
                     "seconds": round(seconds, 1), "agreement": fit["agreement"],
                     "versus": win_rate(wins[i], cfg.players),
                     "gain": mean_interval(wins[i] - wins[i - 1]),
                     "gain_over_start": mean_interval(wins[i] - wins[0])})
        report(out, record)
        r = rows[-1]
        print(f"iteration {i}: vs {cfg.eval_opponent} {r['versus']['win_rate']:.1%} "
              f"[{r['versus']['low']:.1%}, {r['versus']['high']:.1%}], gain "
              f"{r['gain']['mean']:+.2%} [{r['gain']['low']:+.2%}, {r['gain']['high']:+.2%}]",
              flush=True)
    report(out, record)
    return record


def report(out: Path, record: dict[str, Any]) -> None:
    """``expert_iteration.json`` and its table ``expert_iteration.md`` (atomic writes)."""
    write_json(out / "expert_iteration.json", record)
    cfg = record["config"]
    lines = [f"Against `{cfg['eval_opponent']}` on {cfg['deals']:,} fresh duplicate deals "
             f"(deal seeds from {record['deal_seed']:,}); gains paired by deal, 95% intervals.",
             "", "| iteration | win rate [95%] | gain over the previous | gain over the start "
             "| agreement with the expert |", "|---:|---:|---:|---:|---:|"]
    for r in record["iterations"]:
        v = r["versus"]
        cells = [f"{r['iteration']}", f"{v['win_rate']:.2%} [{v['low']:.2%}, {v['high']:.2%}]"]
        for key in ("gain", "gain_over_start"):
            g = r.get(key)
            cells.append(f"{g['mean']:+.2%} [{g['low']:+.2%}, {g['high']:+.2%}]" if g else "")
        cells.append(f"{r['agreement']:.1%}" if "agreement" in r else "")
        lines.append("| " + " | ".join(cells) + " |")
    write_atomic(out / "expert_iteration.md", "\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    cfg = parse_dataclass(Config, __doc__.split("\n\n")[0], argv)
    run(cfg, "python experiments/expert_iteration.py " + shlex.join(argv))


if __name__ == "__main__":
    sys.exit(run_command(main, "expert_iteration"))
