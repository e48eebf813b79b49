"""The strategy benchmark: every agent against the random baselines on every preset.

Writes ``docs/strategies.md`` (tables), ``docs/results/strategies.json`` (every
number) and the figures ``docs/strategies_*.png``:

* every agent against ``random_play`` and against ``random`` (one agent at the
  table, the baseline in every other seat), heads-up and at 4 and 6 players, on
  every preset (``teams`` is played at 4 only);
* the head-to-head matrix of all agents on ``official`` heads-up.

Every cell is a tournament (:mod:`uno_env.evaluation.tournament`): seats rotated, each deal
replayed under every rotation, 95% intervals. ``official`` cells get
``--headline-games`` games, other presets ``--games``, and search agents (names
in ``--search``) ``--search-games`` in every cell.

Usage: ``python experiments/strategies.py [--quick]`` (``make strategies``). Every
cell is saved as soon as it is played, so ``--resume`` picks up a run that was stopped;
``--quick`` (a smoke run) writes to ``runs/strategies-quick/`` unless ``--out`` is given.
"""

from __future__ import annotations

from uno_env.launch import guard

guard("strategies", __name__)

import argparse
import json
import os
import platform
import shlex
import sys
from collections.abc import Callable
from concurrent.futures import Future, as_completed
from datetime import datetime, timezone
from pathlib import Path

from uno_env.extras import require

require("strategies.py", "eval")

from uno_agents import AGENTS
from uno_env import PRESETS, Rules
from uno_env.cli import run_command
from uno_env.deals import deal_seed, describe
from uno_env.evaluation.references import reference_heuristics
from uno_env.evaluation.report import matrix_rows, tournaments_of
from uno_env.evaluation.tournament import TournamentResult, tournament
from uno_env.files import write_atomic
from uno_env.rules import played_at
from uno_env.tooling.machine import backend_version, cpu_model, provenance
from uno_env.tooling.parallel import executor

DOCS = Path(__file__).resolve().parent.parent / "docs"
#: Where ``--quick`` writes unless ``--out`` says otherwise (relative to the working folder).
QUICK_OUT = "runs/strategies-quick"
BASELINES = ["random_play", "random"]
PLAYERS = (2, 4, 6)
HEADLINE = "official"


def cells(agents: list[str], presets: list[str]) -> list[tuple[str, str, str, int]]:
    """``(agent, baseline, preset, players)`` of every cell the rules allow."""
    return [(a, b, preset, players) for preset, players in played_at(presets, PLAYERS)
            for b in BASELINES for a in agents if a != b]


def is_search(agent: str, args: argparse.Namespace) -> bool:
    return agent.split(":")[0] in args.search


def games_for(agent: str, baseline: str, preset: str, args: argparse.Namespace) -> int:
    """Games of a cell: the headline budget on official against random_play."""
    if is_search(agent, args):
        return args.search_games
    return args.headline_games if (preset, baseline) == (HEADLINE, "random_play") else args.games


def cell_key(agent: str, baseline: str, preset: str, players: int, games: int,
             seed: int) -> str:
    return f"{agent}|{baseline}|{preset}|{players}|{games}|{seed}"


def read_record(path: Path) -> dict:
    """The JSON object in ``path``; an empty one when there is none, or when the file
    cannot be read as one (a damaged file is reported and then replaced, never trusted)."""
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as err:
        print(f"strategies: ignoring {path}, which cannot be read ({err})", file=sys.stderr)
        return {}
    return data if isinstance(data, dict) else {}


def load_cells(path: Path) -> dict[str, dict]:
    """Cells of an earlier run (``--resume``), by :func:`cell_key`."""
    cells_ = read_record(path).get("cells")
    if not isinstance(cells_, list):
        return {}
    return {r["key"]: r for r in cells_ if isinstance(r, dict) and "key" in r}


def cell_row(agent: str, baseline: str, res: TournamentResult) -> dict:
    """The agent's numbers in one cell (it is the table's first entry)."""
    s = res.agent_stats()[0]
    return {"agent": agent, "baseline": baseline, "preset": res.preset,
            "players": res.rules.num_players, "games": s.games, "deals": res.deals,
            "wins": s.wins, "win_rate": s.win_rate, "low": s.win_low, "high": s.win_high,
            "points": s.points, "truncated": res.truncated, "seconds": round(res.seconds, 1)}


def play_cell(agent: str, baseline: str, preset: str, players: int, games: int,
              seed: int) -> dict:
    """One cell: ``agent`` against ``baseline`` in every other seat."""
    res = tournament([agent] + [baseline] * (players - 1),
                     Rules.preset(preset, num_players=players), games, seed=seed, preset=preset)
    return cell_row(agent, baseline, res)


def play_matrix(agents: list[str], games: int, seed: int) -> TournamentResult:
    """The head-to-head tournament of ``agents`` on the headline preset, heads-up."""
    return tournament(agents, Rules.preset(HEADLINE, num_players=2), games, seed=seed,
                      preset=HEADLINE)


def run(args: argparse.Namespace, say: Callable[[str], None]) -> dict:
    """Every cell, the head-to-head matrix and the search agents' duels; ``--jobs``
    processes play them side by side (each is a deterministic tournament of its own, so
    the numbers do not depend on how many run at once)."""
    agents = args.agents or list(AGENTS)
    presets = args.presets or list(PRESETS)
    todo = [c for c in cells(agents, presets)
            if not is_search(c[0], args) or c[2] in args.search_presets]
    done = load_cells(record_path(args.out)) if args.resume else {}
    keys = [cell_key(a, b, p, n, games_for(a, b, p, args), args.seed) for a, b, p, n in todo]
    plain = [a for a in agents if not is_search(a, args)]
    k = len(plain)   # every pair plays headline_games games: 2 seatings per pair
    pairs = [(a, b) for a in agents for b in agents if b != a and is_search(a, args)]
    left = [(cell, key) for cell, key in zip(todo, keys, strict=True) if key not in done]

    def finished(future: Future, key: str) -> None:
        """Keep a cell as soon as it is played (with one job too), so a run killed at
        any point can be resumed."""
        if future.cancelled() or future.exception() is not None:
            return
        r = done[key] = {"key": key, **future.result()}
        save_cells(args.out, list(done.values()))
        say(f"[{len(done)}/{len(keys)}] {r['agent']} vs {r['baseline']}, {r['preset']}, "
            f"{r['players']}p: {pct(r)} over {r['games']:,} games ({r['seconds']:.0f} s)")

    with executor(args.jobs) as pool:
        pending = []
        for (a, b, p, n), key in left:
            pending.append(pool.submit(play_cell, a, b, p, n, games_for(a, b, p, args),
                                       args.seed))
            pending[-1].add_done_callback(lambda f, key=key: finished(f, key))
        matrix = pool.submit(play_matrix, plain, args.headline_games * k * (k - 1) // 2,
                             args.seed)
        duels = [pool.submit(play_cell, a, b, HEADLINE, 2, args.search_games, args.seed)
                 for a, b in pairs]
        for future in as_completed(pending):
            future.result()   # a failed cell stops the run
        h2h = matrix.result()
        say(f"head to head: {h2h.games:,} games")
        duel_rows = [d.result() for d in duels]
        for r in duel_rows:
            say(f"{r['agent']} vs {r['baseline']}: {pct(r)} over {r['games']:,} games")
    return {"cells": [done[key] for key in keys], "head_to_head": h2h, "duels": duel_rows}


def record_path(out: Path) -> Path:
    """Where the run's record goes: ``results/strategies.json`` under ``out`` (the
    project keeps its result records in ``docs/results/``)."""
    return out / "results" / "strategies.json"


def save_cells(out: Path, rows: list[dict]) -> None:
    """Keep the cells played so far (a long run can be resumed with ``--resume``); the
    file is replaced whole (:func:`write_atomic`), never left half-written."""
    path = record_path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = read_record(path)
    data["cells"] = rows
    write_atomic(path, json.dumps(data, indent=1))


def pct(r: dict) -> str:
    return f"{100 * r['win_rate']:.1f}% [{100 * r['low']:.1f}, {100 * r['high']:.1f}]"


def markdown(out: dict, args: argparse.Namespace, seconds: float, command: str) -> str:
    rows, h2h = out["cells"], out["head_to_head"]
    lines = [
        "# Strategy benchmark",
        "",
        "Every agent of `agents/` against the two random baselines, on every preset,",
        "heads-up and at 4 and 6 players (one agent at the table, the baseline in every",
        "other seat), and the agents against each other on `official` heads-up. Every",
        "cell is a tournament (`uno_env.evaluation.tournament`): each deal is replayed under every",
        "rotation of the seats, so every player sits in every seat on the same cards.",
        "Win rates are over all games of the cell (a game cut at `max_turns` is a loss",
        "for everyone, except under `last_standing` rules once someone has gone out: the",
        "first out wins it, as the rules say) with 95% intervals over deals; \"beats\" means",
        "the interval lies above the share of a fair seat (1/players).",
        "",
        "- `random`: uniformly random among the legal actions (draws, passes and",
        "  challenges as often as it plays).",
        "- `random_play`: the baseline of published UNO bots: calls and catches UNO,",
        "  plays a random card whenever it can, draws only when it cannot.",
        "- `teams`: the agent's partner is a baseline; a team win counts as a win.",
        "",
        f"Produced by `{command}` ({seconds / 60:.0f} minutes of play) on {cpu_model()} "
        f"({os.cpu_count()} cores, a shared VM), Python {platform.python_version()}, "
        f"{backend_version()} engine, {datetime.now(timezone.utc):%Y-%m-%d}. Budget: "
        f"{args.headline_games:,} games per cell on `{HEADLINE}` against `random_play` and "
        f"per pair of the head-to-head matrix, {args.games:,} in every other cell"
        + (f", {args.search_games:,} for search agents ({', '.join(args.search)}; on "
           f"{', '.join(args.search_presets)} only)" if args.search else "")
        + f"; seed {args.seed}. Every cell is deterministic (`--resume` reuses finished "
        "ones). All numbers: [results/strategies.json](results/strategies.json).",
        "",
    ]
    lines += headline(rows)
    lines += targets(out, args)
    lines += ["", f"## Head to head, `{HEADLINE}`, 2 players", "",
              f"{h2h.games:,} games ({h2h.deals:,} deals under each of "
              f"{len(h2h.schedule.seatings)} seatings). Row agent's win rate against the "
              "column agent [95% interval].", ""]
    header, body = matrix_rows(h2h)
    lines += table(header, body)
    lines += ["", "![head to head](strategies_h2h.png)", ""]
    if out["duels"]:
        lines += ["Search agents against every other agent, heads-up:", ""]
        lines += table(["agent", "opponent", "win rate [95% interval]", "games"],
                       [[r["agent"], r["baseline"], pct(r), f"{r['games']:,}"]
                        for r in out["duels"]]) + [""]
    lines += ["## Every preset", "",
              "Win rate of each agent against each baseline [95% interval]; games per "
              "cell in the JSON file.", ""]
    for baseline in BASELINES:
        for players in PLAYERS:
            sel = [r for r in rows if r["baseline"] == baseline and r["players"] == players]
            if not sel:
                continue
            agents = list(dict.fromkeys(r["agent"] for r in sel))
            presets = list(dict.fromkeys(r["preset"] for r in sel))
            lines += [f"### Against `{baseline}`, {players} players", ""]
            body = [[p] + [next((pct(r) for r in sel if r["agent"] == a and r["preset"] == p),
                                "-") for a in agents] for p in presets]
            lines += table(["preset"] + agents, body) + [""]
    lines += ["![win rates against random_play](strategies_presets.png)", ""]
    lines += reference_section(args)
    return "\n".join(lines)


def reference_section(args: argparse.Namespace) -> list[str]:
    """The reference heuristic of every preset: the table of ``--reference``."""
    record = read_record(args.reference)
    if not record.get("table"):
        return []
    sel, ev = record["deals"]["selection"], record["deals"]["evaluation"]
    return ["## Reference heuristic of every preset", "",
            "The heuristics at one table (heads-up: every ordered pair; at 4 players: every "
            "group of four in every rotation; `teams`: every pair as two teams). The "
            "reference, in bold, has the highest win rate over "
            f"{sel['per_seating']:,} selection deals per seating (selection stream "
            f"{sel['stream']}); the table gives every win rate on {ev['per_seating']:,} "
            f"evaluation deals per seating (evaluation stream {ev['stream']}) with its 95% "
            "interval. `tuned:preset=…` is `tuned` re-tuned for that preset where it was "
            "not the reference (see `PRESET_TUNED_WEIGHTS` in `agents/heuristics.py`). "
            f"Produced by `{record['command']}` at commit {record.get('commit')} on "
            f"{record['machine']['cpu']} ({record['date']}); every number: "
            "[results/reference-heuristics.json](results/reference-heuristics.json).", "",
            record["table"], ""]


#: Win rates against random_play on official the best heuristic should reach, by players.
TARGETS = {2: 0.72, 4: 0.42, 6: 0.29}


def reference_of(args: argparse.Namespace) -> dict[tuple[str, int], str]:
    """The reference heuristic of every ``(preset, players)`` from ``--reference`` (the
    record of ``experiments/reference_heuristics.py``); empty when there is none, or
    when it cannot be read (said on stderr)."""
    if not Path(args.reference).exists():
        return {}
    try:
        return reference_heuristics(args.reference)
    except ValueError as e:
        print(f"strategies: ignoring {e}", file=sys.stderr)
        return {}


def targets(out: dict, args: argparse.Namespace) -> list[str]:
    """The reference heuristic against random_play, and the search agents against it."""
    sel = {(r["agent"], r["players"]): r for r in out["cells"]
           if r["preset"] == HEADLINE and r["baseline"] == "random_play"}
    best = reference_of(args).get((HEADLINE, 2))
    if best is None or (best, 2) not in sel:
        return []
    lines = ["", "## Targets", "",
             f"Reference heuristic: `{best}` (chosen among the heuristics on selection deals "
             f"of `{HEADLINE}` heads-up, [reference heuristics](#reference-heuristic-of-every-"
             "preset)). A target is met when the win rate measured here, on evaluation deals "
             "nothing was tuned or chosen on, reaches it.", "",
             "| measure | target | measured [95% interval], games | met |", "|---|---|---|---|"]
    for players, goal in TARGETS.items():
        r = sel.get((best, players))
        if r:
            met = "yes" if r["win_rate"] >= goal else "no"
            lines.append(f"| `{best}` vs `random_play`, {players} players | >= {100 * goal:.0f}% "
                         f"| {pct(r)}, {r['games']:,} | {met} |")
    recorded = recorded_duel(args.search_duel, best)
    for r in out["duels"] + ([recorded[0]] if recorded else []):
        if r["baseline"] == best:
            lines.append(f"| `{r['agent']}` vs `{best}`, 2 players | interval above 50% | "
                         f"{pct(r)}, {r['games']:,} | {'yes' if r['low'] > 0.5 else 'no'} |")
    lines += ["", "Tournament throughput (>= 300,000 decisions/s with `greedy` agents at 4 "
              "players): see [benchmarks.md](benchmarks.md#tournaments)."]
    if recorded:
        lines += ["", f"The search agent's duel with more games is recorded in "
                  f"[results/{args.search_duel.name}](results/{args.search_duel.name}), from "
                  f"`{recorded[1]}` (the same numbers with or without `--ray` and at any "
                  "`--batch`)" + ("." if recorded[2] else
                                  ", played before the deal namespaces, when a tournament "
                                  "seed `s` meant the engine seeds `s * 2**32 + d`: the "
                                  "command reproduces it with the code of that time, "
                                  "2026-11-25.")]
    return lines + [""]


def recorded_duel(path: Path, best: str) -> tuple[dict, str, bool] | None:
    """The search agent against ``best`` from a tournament JSON written by ``uno-env
    tournament --json`` (a duel with more games than the search cells), as a cell row,
    the command that played it (its own, where the record holds one) and whether its seed
    names a stream of evaluation deals (records of older versions have no ``deals_from``);
    None if there is none."""
    if not path.exists():
        return None
    record = json.loads(path.read_text())
    res = tournaments_of(record)[0]
    if len(res["agents"]) != 2 or res["agents"][1] != best or res["preset"] != HEADLINE:
        return None
    r = res["results"][0]
    row = {"agent": r["label"], "baseline": best, "games": r["games"], "wins": r["wins"],
           "win_rate": r["win_rate"], "low": r["win_low"], "high": r["win_high"]}
    command = record["command"] if isinstance(record, dict) else (
        f"uno-env tournament --agents {' '.join(res['agents'])} --preset {res['preset']} "
        f"--games {res['games']} --seed {res['seed']} --batch 256 --ray "
        f"--json docs/results/{path.name}")
    return row, command, "deals_from" in res


def headline(rows: list[dict]) -> list[str]:
    lines = [f"## Headline: `{HEADLINE}`", "",
             "Win rate of the agent against the baseline in every other seat "
             "[95% interval], games.", ""]
    sel = [r for r in rows if r["preset"] == HEADLINE]
    agents = list(dict.fromkeys(r["agent"] for r in sel))
    header = ["agent"] + [f"vs {b}, {p}p" for b in BASELINES for p in PLAYERS]
    body = []
    for a in agents:
        cells_ = []
        for b in BASELINES:
            for p in PLAYERS:
                r = next((r for r in sel if r["agent"] == a and r["baseline"] == b
                          and r["players"] == p), None)
                cells_.append(f"{pct(r)}, {r['games']:,}" if r else "-")
        body.append([a] + cells_)
    return lines + table(header, body) + ["", "![headline](strategies_headline.png)"]


def table(header: list[str], body: list[list[str]]) -> list[str]:
    return (["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            + ["| " + " | ".join(row) + " |" for row in body])


def figures(out: dict, docs: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from uno_env.evaluation.report import figure

    fig = figure([out["head_to_head"]])
    fig.savefig(docs / "strategies_h2h.png", dpi=110)
    plt.close(fig)
    rows = out["cells"]
    sel = [r for r in rows if r["preset"] == HEADLINE]
    agents = list(dict.fromkeys(r["agent"] for r in sel))
    fig, axes = plt.subplots(1, len(BASELINES), figsize=(5.5 * len(BASELINES), 4),
                             sharey=True, squeeze=False)
    axes = axes[0]
    width = 0.8 / len(PLAYERS)
    for ax, baseline in zip(axes, BASELINES, strict=True):
        for j, players in enumerate(PLAYERS):
            xs, ys, err = [], [], [[], []]
            for i, a in enumerate(agents):
                r = next((r for r in sel if r["agent"] == a and r["baseline"] == baseline
                          and r["players"] == players), None)
                if r:
                    xs.append(i + (j - 1) * width)
                    ys.append(100 * r["win_rate"])
                    err[0].append(max(0.0, 100 * (r["win_rate"] - r["low"])))
                    err[1].append(max(0.0, 100 * (r["high"] - r["win_rate"])))
            ax.bar(xs, ys, width, yerr=err, capsize=2, label=f"{players} players")
            ax.axhline(100 / players, color=f"C{j}", lw=0.8, ls="--")
        ax.set_xticks(range(len(agents)), agents, rotation=20)
        ax.set_title(f"against {baseline}, {HEADLINE} (dashed: fair share)", fontsize=10)
    axes[0].set_ylabel("win rate, % (95% interval)")
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(docs / "strategies_headline.png", dpi=110)
    plt.close(fig)
    sel = [r for r in rows if r["baseline"] == "random_play" and r["players"] == 2]
    presets = list(dict.fromkeys(r["preset"] for r in sel))
    agents = list(dict.fromkeys(r["agent"] for r in sel))
    grid = np.full((len(agents), len(presets)), np.nan)
    for r in sel:
        grid[agents.index(r["agent"]), presets.index(r["preset"])] = 100 * r["win_rate"]
    fig, ax = plt.subplots(figsize=(1.1 * len(presets) + 2, 0.5 * len(agents) + 1.5))
    ax.imshow(grid, cmap="RdBu", vmin=0, vmax=100)
    for i in range(len(agents)):
        for j in range(len(presets)):
            if not np.isnan(grid[i, j]):
                ax.text(j, i, f"{grid[i, j]:.0f}", ha="center", va="center", fontsize=8)
    ax.set_xticks(range(len(presets)), presets, rotation=30, ha="right")
    ax.set_yticks(range(len(agents)), agents)
    ax.set_title("win rate (%) against random_play, heads-up, by preset", fontsize=10)
    fig.tight_layout()
    fig.savefig(docs / "strategies_presets.png", dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", nargs="*", help="agent specs (default: every agent)")
    parser.add_argument("--presets", nargs="*", help="presets (default: every preset)")
    parser.add_argument("--headline-games", type=int, default=10_000,
                        help=f"games per cell on {HEADLINE} against random_play, and per "
                             "pair of the head-to-head matrix")
    parser.add_argument("--games", type=int, default=1_000, help="games per cell elsewhere")
    parser.add_argument("--search", nargs="*", default=["ismcts"],
                        help="names of search agents (fewer games)")
    parser.add_argument("--search-games", type=int, default=400,
                        help="games per cell of search agents")
    parser.add_argument("--search-presets", nargs="*", default=[HEADLINE],
                        help="presets on which search agents play (they are slow)")
    parser.add_argument("--baselines", nargs="*", default=BASELINES, help="baseline agents")
    parser.add_argument("--seed", type=int, default=1,
                        help="the stream of evaluation deals every cell plays, as uno-env "
                             "tournament's (default 1: deals no shipped agent was trained, "
                             "tuned or chosen on)")
    parser.add_argument("--reference", type=Path,
                        default=DOCS / "results" / "reference-heuristics.json",
                        help="the reference heuristic of every preset (the record of "
                             "experiments/reference_heuristics.py)")
    parser.add_argument("--out", type=Path, default=None,
                        help=f"where to write (default: docs/, with --quick {QUICK_OUT}/, "
                             "so a smoke run never replaces the published results)")
    parser.add_argument("--search-duel", type=Path,
                        default=DOCS / "results" / "search_duel.json",
                        help="a recorded tournament JSON of a search agent against the best "
                             "heuristic (reported with the targets when present)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="processes playing cells side by side (the numbers do not "
                             "depend on it)")
    parser.add_argument("--quick", action="store_true", help="a smoke run (few games)")
    parser.add_argument("--resume", action="store_true",
                        help="reuse the cells of --out/strategies.json played with the same "
                             "agent, baseline, preset, players, games and seed")
    args = parser.parse_args(argv)
    BASELINES[:] = args.baselines
    if args.quick:
        args.headline_games, args.games, args.search_games = 40, 12, 8
    if args.out is None:
        args.out = Path(QUICK_OUT) if args.quick else DOCS
    argv = [a for a in (sys.argv[1:] if argv is None else argv) if a != "--resume"]
    command = ("python experiments/strategies.py " + " ".join(argv)) if argv else \
        "make strategies"
    out = run(args, lambda text: print(text, flush=True))
    seconds = (sum(r["seconds"] for r in out["cells"] + out["duels"])
               + out["head_to_head"].seconds)
    args.out.mkdir(parents=True, exist_ok=True)
    figures(out, args.out)
    # every cell, the matrix and the duels play deals from the start of the same stream
    played = max([r["deals"] for r in out["cells"] + out["duels"]]
                 + [out["head_to_head"].deals])
    data = {**provenance("python experiments/strategies.py " + shlex.join(argv),
                         describe(deal_seed("evaluation", args.seed), played)),
            "cells": out["cells"], "head_to_head": out["head_to_head"].to_dict(),
            "duels": out["duels"],
            "budget": {"headline_games": args.headline_games, "games": args.games,
                       "search_games": args.search_games, "seed": args.seed},
            "seconds": round(seconds)}
    record_path(args.out).parent.mkdir(parents=True, exist_ok=True)
    write_atomic(record_path(args.out), json.dumps(data, indent=1))
    write_atomic(args.out / "strategies.md", markdown(out, args, seconds, command) + "\n")
    print(f"wrote {args.out / 'strategies.md'}")


if __name__ == "__main__":
    sys.exit(run_command(main, "strategies"))
