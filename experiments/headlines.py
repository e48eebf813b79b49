"""The headline numbers of the shipped agents, measured on final-evaluation deals.

    python experiments/headlines.py --jobs 2

Every row plays one agent in one seat against copies of an opponent in all the others,
on ``--deals`` duplicate deals (each deal once with the agent in every seat), the deals
of evaluation stream ``--seed`` of :mod:`uno_env.deals` (the same deals as
``uno-env tournament --seed`` and ``evaluate.py --seed``). The default stream, 1, was
never played by any training, tuning or model selection of the shipped agents: the
first deals of stream 0 were, by the seeds an earlier version of the distillation recipe
used. Writes ``--out`` (default ``docs/results/headlines.json``): the command, the
code's commit, the machine, the deal namespace and every row with its 95% interval and
the SHA-256 of the model file it measured; each shipped model's card then gets its rows as
its ``headline`` (``uno-env models`` lists them). ``--cards-only`` copies an existing
record into the cards without playing.
"""

from __future__ import annotations

from uno_env.launch import guard

guard("headlines", __name__)

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from uno_env.extras import require

require("headlines.py", "train")

from uno_env.cli import integer_from, run_command
from uno_env.deals import STREAM, deal_seed, describe
from uno_env.evaluation.tournament import SEED_MAX
from uno_env.files import check_output, write_atomic
from uno_env.tooling.machine import provenance
from uno_env.tooling.parallel import executor

#: ``(agent, opponent, players)`` of every headline: each shipped model against the
#: reference heuristic (and the random_play baseline), the heuristic's own targets.
ROWS = [
    ("net:official-2p", "tuned", 2), ("net:official-2p", "random_play", 2),
    ("improved:official-2p-exit", "tuned", 2), ("improved:official-2p-exit-rp", "tuned", 2),
    ("ppo:official-2p", "tuned", 2),
    ("net:official-4p", "tuned", 4), ("ppo:official-4p", "tuned", 4),
    ("tuned", "random_play", 2), ("tuned", "random_play", 4), ("tuned", "random_play", 6),
]


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=integer_from(1, STREAM), default=10_000,
                        help="duplicate deals of every row (default: %(default)s)")
    parser.add_argument("--seed", type=integer_from(0, SEED_MAX), default=1,
                        help="the stream of evaluation deals (default: %(default)s)")
    parser.add_argument("--rows", default="",
                        help="only the rows of these agents, comma-separated (default: all)")
    parser.add_argument("--preset", default="official", help="rule preset (default: official)")
    parser.add_argument("--jobs", type=integer_from(1), default=1,
                        help="processes the rows are played in (default: %(default)s)")
    parser.add_argument("--out", default="docs/results/headlines.json",
                        help="the record (default: %(default)s)")
    parser.add_argument("--cards-only", action="store_true",
                        help="play nothing: copy the rows of the record --out into the "
                             "cards of the shipped models they measured")
    args = parser.parse_args(argv)
    wanted = set(filter(None, args.rows.split(",")))
    args.row_list = [r for r in ROWS if not wanted or r[0] in wanted]
    if not args.row_list:
        parser.error(f"--rows names no agent of {sorted({r[0] for r in ROWS})}")
    return args


def measure(agent: str, opponent: str, players: int, preset: str, deals: int,
            first: int) -> dict[str, Any]:
    """One row: ``agent`` in one seat, ``opponent`` in all others (one torch thread)."""
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:  # pragma: no cover - heuristics only
        pass
    from uno_agents import make_agent
    from uno_agents.catalogue import model_file, model_hash
    from uno_env import Rules
    from uno_env.evaluation import deal_wins, win_rate

    rules = Rules.preset(preset, num_players=players)
    player = make_agent(agent)
    wins = deal_wins(player, make_agent(opponent), rules, deals, first)
    path = model_file(player)
    return {"agent": agent, "opponent": opponent, "players": players,
            **win_rate(wins, players), "file": path.name if path else None,
            "sha256": model_hash(player)}


def write_cards(record: dict[str, Any], out: str) -> None:
    """The record's rows into the cards of the shipped models they measured."""
    from uno_agents.catalogue import write_headlines

    for card in write_headlines(record, out):
        print(f"wrote the headline of {card.name}")


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    if args.cards_only:
        write_cards(json.loads(Path(args.out).read_text()), args.out)
        return
    check_output(args.out, "--out")
    first = deal_seed("evaluation", args.seed, 0, args.deals)
    rows = []
    with executor(args.jobs) as pool:
        futures = [pool.submit(measure, a, o, n, args.preset, args.deals, first)
                   for a, o, n in args.row_list]
        for future in futures:
            r = future.result()
            rows.append(r)
            print(f"{r['agent']:>30} vs {r['opponent']:<12} {r['players']}p "
                  f"{r['win_rate']:6.2%} [{r['low']:.2%}, {r['high']:.2%}]  "
                  f"{r['games']:,} games", flush=True)
    command = "python experiments/headlines.py " + shlex.join(argv)
    record = {**provenance(command, describe(first, args.deals)), "preset": args.preset,
              "rows": rows}
    write_atomic(args.out, json.dumps(record, indent=1) + "\n")
    print(f"wrote {args.out}")
    write_cards(record, args.out)


if __name__ == "__main__":
    sys.exit(run_command(main, "headlines"))
