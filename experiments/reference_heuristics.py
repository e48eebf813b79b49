"""The reference heuristic of every preset: chosen on selection deals, reported on
evaluation deals.

    python experiments/reference_heuristics.py --jobs 2

For every preset at 2 and 4 players (where its rules allow them), the heuristics of
``--heuristics`` play one tournament (:mod:`uno_env.tournament`: seats rotated, every
deal replayed under every seating): heads-up, every ordered pair; at 4 players, every
group of four in each rotation; in team play, every pair of heuristics as two teams. The
heuristic with the highest win rate over all its games is that cell's reference. It is
chosen on ``--select-deals`` deals per seating from the *selection* block of
:mod:`uno_env.deals` (stream ``--select-seed``), and the same tournament is then played
on ``--deals`` *evaluation* deals (stream ``--seed``), which report every heuristic's
win rate with its 95% interval over deals and, heads-up, the reference against each
other heuristic. The choice is fixed before the evaluation deals are played, so the
reported numbers are not the ones it was made on; a cell where the evaluation would rank
another heuristic first says so.

Writes ``--out`` (default ``docs/results/reference-heuristics.json``: the command, code
commit, machine and deal namespaces, every number) and prints one table.
"""

from __future__ import annotations

from uno_env.launch import guard

guard("reference_heuristics", __name__)

import argparse
import json
import shlex
import sys
from itertools import combinations
from typing import Any

import numpy as np

from uno_env import PRESETS, Rules
from uno_env.cli import integer_from, run_command
from uno_env.deals import STREAM, STREAMS, deal_seed
from uno_env.evaluation.intervals import rate_interval
from uno_env.evaluation.play import seatings
from uno_env.machine import provenance
from uno_env.parallel import executor
from uno_env.rules import played_at
from uno_env.tournament import SEED_MAX, tournament
from uno_env.tournament_report import check_output, write_atomic

#: The heuristics a reference is chosen among (``random`` never beats them).
HEURISTICS = "random_play,greedy,defender,tuned"
PLAYERS = (2, 4)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presets", default="all", help="presets, comma-separated, or all")
    parser.add_argument("--heuristics", default=HEURISTICS,
                        help="the agents a reference is chosen among (default: %(default)s)")
    parser.add_argument("--select-deals", type=integer_from(1, STREAM), default=5000,
                        help="selection deals per seating (default: %(default)s)")
    parser.add_argument("--select-seed", type=integer_from(0, STREAMS - 1), default=0,
                        help="stream of the selection deals (default: %(default)s)")
    parser.add_argument("--deals", type=integer_from(1, STREAM), default=5000,
                        help="evaluation deals per seating (default: %(default)s)")
    parser.add_argument("--seed", type=integer_from(0, SEED_MAX), default=2,
                        help="stream of the evaluation deals, as uno-env tournament's "
                             "(default: %(default)s)")
    parser.add_argument("--jobs", type=integer_from(1), default=1,
                        help="processes the cells are played in (default: %(default)s)")
    parser.add_argument("--out", default="docs/results/reference-heuristics.json",
                        help="the record (default: %(default)s)")
    args = parser.parse_args(argv)
    args.preset_list = list(PRESETS) if args.presets == "all" else args.presets.split(",")
    unknown = [p for p in args.preset_list if p not in PRESETS]
    if unknown:
        parser.error(f"unknown preset {unknown[0]!r}; presets: {', '.join(PRESETS)}")
    args.agents = args.heuristics.split(",")
    if len(args.agents) < 2:
        parser.error("--heuristics needs at least two agents")
    return args


def play(agents: list[str], preset: str, players: int, deals: int, seed: int,
         purpose: str) -> dict[str, Any]:
    """One tournament of ``agents``: every agent's win rate, and heads-up the matrix."""
    rules = Rules.preset(preset, num_players=players)
    if rules.teams:
        return play_teams(agents, rules, preset, deals, seed, purpose)
    res = tournament(agents, rules, deals * len(seatings(len(agents), players)), seed=seed,
                     preset=preset, purpose=purpose)
    out: dict[str, Any] = {
        "deals": res.deals, "games": res.games, "seed": seed, "deals_from": purpose,
        "first_deal": deal_seed(purpose, seed), "decisions": res.decisions,
        "stats": {s.label: {"win_rate": s.win_rate, "low": s.win_low, "high": s.win_high,
                            "games": s.games} for s in res.agent_stats()}}
    if players == 2:
        rate, low, high = res.head_to_head_rates()
        out["head_to_head"] = {a: {b: [float(rate[i, j]), float(low[i, j]), float(high[i, j])]
                                   for j, b in enumerate(agents) if i != j}
                               for i, a in enumerate(agents)}
    return out


def play_teams(agents: list[str], rules: Rules, preset: str, deals: int, seed: int,
               purpose: str) -> dict[str, Any]:
    """Team play: every pair of heuristics as two teams (each heuristic in both seats of
    its team, seats rotated) on the same deals. A heuristic's win rate is its team's
    share of wins over all its pairings, deal by deal, with the interval over deals."""
    shares: dict[str, list[np.ndarray]] = {a: [] for a in agents}
    head: dict[str, dict[str, list[float]]] = {a: {} for a in agents}
    games = decisions = 0
    for a, b in combinations(agents, 2):
        res = tournament([a, b, a, b], rules, deals * rules.num_players, seed=seed,
                         preset=preset, purpose=purpose)
        per_deal = res.deal_win_rates()
        games, decisions = games + res.games, decisions + res.decisions
        for name, column in ((a, 0), (b, 1)):
            shares[name].append(per_deal[:, column])
            other = b if name == a else a
            head[name][other] = list(rate_interval(per_deal[:, column]))
    stats = {}
    for name in agents:
        rate, low, high = rate_interval(np.mean(shares[name], axis=0))
        stats[name] = {"win_rate": rate, "low": low, "high": high,
                       "games": deals * rules.num_players * (len(agents) - 1)}
    return {"deals": deals, "games": games, "seed": seed, "deals_from": purpose,
            "first_deal": deal_seed(purpose, seed), "decisions": decisions, "stats": stats,
            "head_to_head": head}


def best(stats: dict[str, dict]) -> str:
    return max(stats, key=lambda name: stats[name]["win_rate"])


def candidates(agents: list[str], preset: str, players: int) -> list[str]:
    """``agents``, and ``tuned:preset=<preset>`` where ``tuned`` was re-tuned for the
    preset at this table size (:data:`uno_agents.heuristics.PRESET_TUNED_WEIGHTS`)."""
    from uno_agents.heuristics import PRESET_TUNED_WEIGHTS

    retuned = "tuned" in agents and players in PRESET_TUNED_WEIGHTS.get(preset, {})
    return agents + [f"tuned:preset={preset}"] if retuned else agents


def measure_cell(agents: list[str], preset: str, players: int,
                 args: argparse.Namespace) -> dict[str, Any]:
    """Choose the reference on selection deals, then play the evaluation deals."""
    agents = candidates(agents, preset, players)
    selection = play(agents, preset, players, args.select_deals, args.select_seed,
                     "selection")
    reference = best(selection["stats"])
    evaluation = play(agents, preset, players, args.deals, args.seed, "evaluation")
    return {"preset": preset, "players": players, "heuristics": agents,
            "reference": reference,
            "evaluation_best": best(evaluation["stats"]), "selection": selection,
            "evaluation": evaluation}


def table(rows: list[dict[str, Any]], agents: list[str]) -> str:
    """The evaluation win rates of every cell, the reference in bold (the column
    ``tuned:preset=…`` holds each preset's re-tuned weights, where there are some)."""
    retuned = any(len(row["heuristics"]) > len(agents) for row in rows)
    header = agents + (["tuned:preset=…"] if retuned else [])
    lines = ["| preset | players | " + " | ".join(header) + " | reference |",
             "|---|---|" + "---|" * len(header) + "---|"]
    for row in rows:
        cells_ = []
        for name in row["heuristics"] + ["-"] * (len(header) - len(row["heuristics"])):
            s = row["evaluation"]["stats"].get(name)
            text = "-" if s is None else (
                f"{s['win_rate']:.1%} [{s['low']:.1%}, {s['high']:.1%}]")
            cells_.append(f"**{text}**" if name == row["reference"] else text)
        note = "" if row["evaluation_best"] == row["reference"] else (
            f" ({row['evaluation_best']} first on evaluation deals)")
        lines.append(f"| {row['preset']} | {row['players']} | " + " | ".join(cells_)
                     + f" | `{row['reference']}`{note} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    check_output(args.out, "--out")
    todo = played_at(args.preset_list, PLAYERS)
    rows = []
    with executor(args.jobs) as pool:
        futures = [pool.submit(measure_cell, args.agents, p, n, args) for p, n in todo]
        for (preset, players), future in zip(todo, futures, strict=True):
            rows.append(future.result())
            r = rows[-1]
            print(f"{preset}, {players} players: reference {r['reference']} "
                  f"(chosen on {r['selection']['games']:,} selection games); "
                  f"on {r['evaluation']['games']:,} evaluation games "
                  f"{r['evaluation']['stats'][r['reference']]['win_rate']:.1%}", flush=True)
    command = "python experiments/reference_heuristics.py " + shlex.join(argv)
    record = {**provenance(command), "heuristics": args.agents,
              "deals": {"selection": {"namespace": "selection", "stream": args.select_seed,
                                      "per_seating": args.select_deals},
                        "evaluation": {"namespace": "evaluation", "stream": args.seed,
                                       "per_seating": args.deals}},
              "cells": rows, "table": table(rows, args.agents)}
    write_atomic(args.out, json.dumps(record, indent=1) + "\n")
    print(record["table"])
    print(f"wrote {args.out}")


if __name__ == "__main__":
    sys.exit(run_command(main, "reference_heuristics"))
