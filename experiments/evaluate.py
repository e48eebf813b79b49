"""Head-to-head evaluation of any agents against opponents, on duplicate deals.

    python experiments/evaluate.py --agents ppo:official-2p,greedy --opponents greedy,random_play \\
        --preset official --players 2 --deals 2000

Each agent plays one seat against copies of each opponent in all the other seats.
Every deal is played once with the agent in each seat (seats rotated, the same
cards), so the luck of the deal cancels out; the 95% interval is taken over deals.
With ``--baseline NAME`` that agent plays the same deals against each opponent too,
and every agent's win rate comes with its difference to the baseline's, paired by
deal, and the difference's 95% interval ("beats X by more than the baseline does"
needs it above 0). Prints a table and writes ``--out`` (JSON) when given.

``--purpose selection`` plays stream ``--seed`` of the selection deals instead
(:mod:`uno_env.deals`): the deals to choose on (a stopping point, a seed, whether a
run goes on), so that the choice never sees the deals of a final evaluation.
"""

from __future__ import annotations

from uno_env.launch import guard

guard("evaluate", __name__)

import argparse
import json
import re
import shlex
import sys
from pathlib import Path

from uno_agents import BatchAgent, make_agent
from uno_env import Rules
from uno_env.cli import RECORDS, agent_specs, integer_from, run_command, user_errors
from uno_env.deals import deal_seed, describe
from uno_env.evaluation import deal_wins, mean_interval, win_rate
from uno_env.evaluation.tournament import SEED_MAX
from uno_env.files import check_output, write_atomic
from uno_env.records import Recorder, save_records
from uno_env.tooling.machine import provenance


def parse_args(argv: list[str]) -> argparse.Namespace:
    """The command line (counts checked by argparse: a bad one is a usage error)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", required=True,
                        help="agent specs separated by commas; a key=value piece continues "
                             "the spec before it (ismcts:budget=64,horizon=0)")
    parser.add_argument("--opponents", default="greedy,random_play",
                        help="opponent specs, each filling every other seat (default: %(default)s)")
    parser.add_argument("--preset", default="official", help="rule preset (default: %(default)s)")
    parser.add_argument("--players", type=integer_from(2, 10), default=2,
                        help="players per game (default: %(default)s)")
    parser.add_argument("--deals", type=integer_from(1), default=1000,
                        help="duplicate deals, each played in every seat rotation "
                             "(default: %(default)s)")
    parser.add_argument("--seed", type=integer_from(0, SEED_MAX), default=0,
                        help="the stream of evaluation deals played; the same seed and deal "
                             "count give the same deals as `uno-env tournament` and the "
                             "leaderboard (default: %(default)s, the deals of the published "
                             "headlines)")
    parser.add_argument("--purpose", choices=("evaluation", "selection"), default="evaluation",
                        help="whose deals --seed names: final evaluations, or the selection "
                             "deals choices are made on (default: %(default)s)")
    parser.add_argument("--baseline", default=None,
                        help="an agent whose wins on the same deals each agent is compared to")
    parser.add_argument("--out", default=None, help="write the rows as JSON here")
    parser.add_argument("--save-games", type=integer_from(0), default=0, metavar="N",
                        help="save the first N games of each agent against each opponent as "
                             "game records (replayed by `uno-env serve`; default: none)")
    parser.add_argument("--records", default=RECORDS, metavar="DIR",
                        help="folder of the game records (default: %(default)s)")
    return parser.parse_args(argv)


def build(specs: str) -> dict[str, BatchAgent]:
    """Every agent of comma-separated ``specs``, by spec (``ValueError`` naming a bad one);
    a ``key=value`` piece continues the spec before it (``ismcts:budget=64,horizon=0``)."""
    names = agent_specs([specs])
    if not names:
        raise ValueError(f"{specs!r} names no agent")
    return {name: make_agent(name) for name in names}


def evaluate(args: argparse.Namespace, rules: Rules, agents: dict[str, BatchAgent],
             opponents: dict[str, BatchAgent], baseline: BatchAgent | None,
             first: int) -> list[dict]:
    """Every agent against every opponent on the same deals, from engine seed ``first``
    (module doc); prints a line per pair and returns the rows."""
    base = {name: deal_wins(baseline, opponent, rules, args.deals, first)
            for name, opponent in opponents.items()} if baseline is not None else {}
    rows = []
    for spec, agent in agents.items():
        for name, opponent in opponents.items():
            recorder = (Recorder(range(args.save_games), "experiments/evaluate.py")
                        if args.save_games else None)
            wins = deal_wins(agent, opponent, rules, args.deals, first, recorder=recorder)
            if recorder is not None:
                stem = re.sub(r"[^A-Za-z0-9_-]+", "_", f"evaluate-{spec}-vs-{name}")
                save_records(recorder.records(rules, args.preset), args.records, stem)
            r = win_rate(wins, args.players)
            rows.append({"agent": spec, "opponent": name, **r})
            line = (f"{spec:>24} vs {name:<12} {r['win_rate']:6.1%} "
                    f"[{r['low']:.1%}, {r['high']:.1%}]  {r['deals']} deals, {r['games']} games")
            if name in base:
                b = win_rate(base[name], args.players)
                d = mean_interval(wins - base[name])
                rows[-1].update(baseline=args.baseline, baseline_win_rate=b["win_rate"],
                                difference=d)
                line += (f"; {args.baseline} {b['win_rate']:.1%}, difference {d['mean']:+.2%} "
                         f"[{d['low']:+.2%}, {d['high']:+.2%}]")
            print(line, flush=True)
    return rows


def main(argv: list[str] | None = None) -> None:
    """Evaluate; every agent spec, the rules and ``--out`` are checked before the first
    game, so a bad one costs no evaluation."""
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    try:  # trained agents: one torch thread per process (much faster on a busy CPU)
        import torch

        torch.set_num_threads(1)
    except ImportError:  # pragma: no cover - heuristics only
        pass
    with user_errors("evaluate"):
        rules = Rules.preset(args.preset, num_players=args.players)
        agents, opponents = build(args.agents), build(args.opponents)
        baseline = make_agent(args.baseline) if args.baseline else None
        first = deal_seed(args.purpose, args.seed, 0, args.deals)
        if args.out:
            check_output(args.out, "--out")
        if args.save_games:   # the folder is made before the games, not after them
            Path(args.records).mkdir(parents=True, exist_ok=True)
    rows = evaluate(args, rules, agents, opponents, baseline, first)
    if args.out:
        command = "python experiments/evaluate.py " + shlex.join(argv)
        record = {**provenance(command, describe(first, args.deals)), "preset": args.preset,
                  "players": args.players, "results": rows}
        write_atomic(args.out, json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    sys.exit(run_command(main, "evaluate"))
