"""Do the search agent's departures from a heuristic pay in the true game?

    python experiments/departure_check.py --opponent random_play --search-horizon 0 \\
        --drew-on-weight 0.02 --states 3000 --seed 2

Before collecting search labels for ``experiments/train_improvement.py`` (minutes of
search per thousand decisions), check that the search's model of the game is right
for the opponent: the base heuristic (``tuned``) plays the opponent; at sampled
decisions of the base with a choice, the search agent values every legal action in
worlds sampled from the public game (as it does when it labels data) and, for each
confidence ``c`` of ``--confidences``, picks the action whose gain over the base's
choice, less ``c`` standard errors, is largest and positive (the base's choice if
none is). Each pick and the base's choice are then played out ``--true-playouts``
times in copies of the *true* game (the real hands and draw pile, the base in the
searcher's seat and the opponent in the others), so the mean difference is an
unbiased estimate of what the departures are worth against that opponent, per
decision, in units of a game's reward (+1 a win, -1 a loss heads-up).

A search whose worlds or playouts mis-model the opponent departs where it should not
and the gain comes out negative; only a configuration with a positive gain is worth
distilling. Prints a table per confidence (and per phase of play) and writes
``--out`` (JSON).
"""

from __future__ import annotations

from uno_env.launch import guard

guard("departure_check", __name__)

import dataclasses
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from uno_agents import make_agent
from uno_agents.advantage_data import outcomes, sampled_decisions
from uno_agents.ismcts import IsmctsAgent, pick
from uno_env import Rules
from uno_env.cli import run_command
from uno_env.dataclass_flags import parse_dataclass
from uno_env.engine.state import PHASE_NAMES
from uno_env.evaluation import mean_interval


@dataclass
class Config:
    """Every setting of a run; each field is a CLI flag (``states`` -> ``--states``)."""

    preset: str = "official"
    players: int = 2
    base: str = "tuned"
    opponent: str = "random_play"
    search_budget: int = 512
    search_horizon: int = 10
    drew_on_weight: float = 1.0
    confidences: str = "0,1,2,3"
    states: int = 2000
    true_playouts: int = 32
    games: int = 256
    record: float = 0.25
    seed: int = 0
    out: str = "runs/departure_check.json"
    progress: bool = True


def check(cfg: Config) -> list[dict]:
    """Per sampled decision: its phase, the base's choice, the search's pick per confidence
    and the true value of each."""
    rules = Rules.preset(cfg.preset, num_players=cfg.players)
    base, opponent = make_agent(cfg.base), make_agent(cfg.opponent)
    search = IsmctsAgent(budget=cfg.search_budget, playout=cfg.base, horizon=cfg.search_horizon,
                         opponent=cfg.opponent, drew_on_weight=cfg.drew_on_weight)
    confidences = [float(c) for c in cfg.confidences.split(",")]
    rng = np.random.default_rng(cfg.seed)
    decisions: list[dict] = []
    bar = tqdm(total=cfg.states, unit="decision", disable=not cfg.progress)
    for engine, games, _, masks, chosen in sampled_decisions(
            rules, base, opponent, cfg.games, cfg.record, cfg.seed, rng):
        n = min(len(games), cfg.states - len(decisions))
        games, masks = games[:n], masks[:n]
        found = []
        for i, value in enumerate(search.action_values(engine, games, masks, rng)):
            legal = np.flatnonzero(masks[i])
            default = int(np.searchsorted(legal, chosen[i]))
            found.append({"phase": PHASE_NAMES[engine.state.phase[games[i]]],
                          "base": int(legal[default]),
                          "picks": [int(legal[pick(value, default, c)]) for c in confidences]})
        # the true value of every action some confidence picks, and of the base's choice
        todo = [(i, a) for i, f in enumerate(found) for a in sorted({f["base"], *f["picks"]})]
        rows = np.repeat([i for i, _ in todo], cfg.true_playouts)
        actions = np.repeat([a for _, a in todo], cfg.true_playouts)
        values = outcomes(engine, games[rows], actions, base, rng, opponent)
        for (i, a), v in zip(todo, values.reshape(len(todo), -1).mean(axis=1), strict=True):
            found[i].setdefault("true", {})[str(a)] = float(v)
        decisions += found
        bar.update(n)
        if len(decisions) == cfg.states:
            break
    bar.close()
    return decisions


def summary(cfg: Config, decisions: list[dict]) -> list[dict]:
    """Per confidence and phase ("all" included): the share of decisions where the search
    departs and the mean true gain per decision with its 95% interval."""
    out = []
    for k, c in enumerate(float(c) for c in cfg.confidences.split(",")):
        gain = np.array([d["true"][str(d["picks"][k])] - d["true"][str(d["base"])]
                         for d in decisions])
        departs = np.array([d["picks"][k] != d["base"] for d in decisions])
        phase = np.array([d["phase"] for d in decisions])
        for name in ["all", *sorted(set(phase))]:
            sel = np.ones(len(gain), bool) if name == "all" else phase == name
            if sel.sum() < 2:
                continue
            out.append({"confidence": c, "phase": name, "decisions": int(sel.sum()),
                        "departs": float(departs[sel].mean()), **mean_interval(gain[sel])})
    return out


def main(argv: list[str] | None = None) -> None:
    cfg = parse_dataclass(Config, __doc__.split("\n\n")[0], argv)
    decisions = check(cfg)
    table = summary(cfg, decisions)
    print(f"{'confidence':>10} {'phase':>12} {'decisions':>9} {'departs':>8}  "
          f"true gain per decision")
    for r in table:
        print(f"{r['confidence']:>10g} {r['phase']:>12} {r['decisions']:>9,} {r['departs']:>8.1%}"
              f"  {r['mean']:+.4f} [{r['low']:+.4f}, {r['high']:+.4f}]")
    Path(cfg.out).parent.mkdir(parents=True, exist_ok=True)
    Path(cfg.out).write_text(json.dumps({"config": dataclasses.asdict(cfg), "summary": table},
                                        indent=2) + "\n")
    print(f"wrote {cfg.out}")


if __name__ == "__main__":
    sys.exit(run_command(main, "departure_check"))
