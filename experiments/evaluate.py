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
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from train_ppo import deal_wins, mean_interval, win_rate  # noqa: E402

from agents import make_agent  # noqa: E402
from uno_env import Rules  # noqa: E402
from uno_env.cli import run_command  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", required=True, help="agent specs separated by commas")
    parser.add_argument("--opponents", default="greedy,random_play")
    parser.add_argument("--preset", default="official")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=10_000,
                        help="the first deal's seed: the deals are seed .. seed + deals - 1")
    parser.add_argument("--baseline", default=None,
                        help="an agent whose wins on the same deals each agent is compared to")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    try:  # trained agents: one torch thread per process (much faster on a busy CPU)
        import torch

        torch.set_num_threads(1)
    except ImportError:  # pragma: no cover - heuristics only
        pass
    rules = Rules.preset(args.preset, num_players=args.players)
    baseline = {opponent: deal_wins(make_agent(args.baseline), make_agent(opponent), rules,
                                    args.deals, args.seed)
                for opponent in args.opponents.split(",")} if args.baseline else {}
    rows = []
    for spec in args.agents.split(","):
        for opponent in args.opponents.split(","):
            wins = deal_wins(make_agent(spec), make_agent(opponent), rules, args.deals, args.seed)
            r = win_rate(wins, args.players)
            rows.append({"agent": spec, "opponent": opponent, **r})
            line = (f"{spec:>24} vs {opponent:<12} {r['win_rate']:6.1%} "
                    f"[{r['low']:.1%}, {r['high']:.1%}]  {r['deals']} deals, {r['games']} games")
            if opponent in baseline:
                b = win_rate(baseline[opponent], args.players)
                d = mean_interval(wins - baseline[opponent])
                rows[-1].update(baseline=args.baseline, baseline_win_rate=b["win_rate"],
                                difference=d)
                line += (f"; {args.baseline} {b['win_rate']:.1%}, difference {d['mean']:+.2%} "
                         f"[{d['low']:+.2%}, {d['high']:+.2%}]")
            print(line, flush=True)
    if args.out:
        record = {"command": "python experiments/evaluate.py " + shlex.join(argv),
                  "preset": args.preset, "players": args.players, "results": rows}
        Path(args.out).write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    sys.exit(run_command(main, "evaluate"))
