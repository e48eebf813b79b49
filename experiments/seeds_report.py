"""Measure the networks of several training seeds on fresh deals, and ship one of them.

    python experiments/seeds_report.py --runs runs/d2p-s0,runs/d2p-s1,runs/d2p-s2 \\
        --players 2 --opponents tuned,random_play --deals 10000 \\
        --ship agents/models/official-2p.safetensors --out docs/results/net-2p.json

Every run folder holds a ``model.safetensors`` (``distill.py``,
``train_ppo.py --init-net``, ``train_dmc.py``) and a ``record.json`` or
``config.json`` with its command. Each network plays each opponent head-to-head on
the same ``--deals`` evaluation deals of stream ``--seed`` (:mod:`uno_env.deals`;
default 0, deal seeds from 1,000,000: no training, tuning or selection ever plays
them), and the report gives, per opponent, every seed's win rate with its 95%
interval, their mean and spread. With ``--ship``, the network of the run chosen
*before* these deals are played (``--choose``: the one with the best last curve point
against ``tuned`` recorded during training, or a given index) is copied there with a
model card (``<stem>.json``: recipe, commands, seeds, budget and this report).
``--out`` keeps the report (JSON, written atomically) with every run's training curve,
and ``--figure`` draws those curves against the decisions trained, beside each
network's result on the evaluation deals. Ctrl-C stops with exit status
130 and writes nothing (the results so far are printed as they come).
"""

from __future__ import annotations

from uno_env.launch import guard

guard("seeds_report", __name__)

import argparse
import json
import shlex
import shutil
import signal
import sys
from pathlib import Path
from typing import Any

from uno_env.extras import require

require("seeds_report.py", "train")

import numpy as np

from uno_agents import make_agent
from uno_agents.catalogue import write_headlines
from uno_agents.net import NetAgent, write_json
from uno_env import Rules
from uno_env.cli import integer_from
from uno_env.deals import STREAM, deal_seed, describe
from uno_env.evaluation import head_to_head
from uno_env.evaluation.tournament import SEED_MAX
from uno_env.tooling.dataclass_flags import HelpFormatter
from uno_env.tooling.machine import provenance
from uno_env.tooling.stages import sha256


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=HelpFormatter)
    parser.add_argument("--runs", required=True, help="run folders, comma-separated")
    parser.add_argument("--preset", default="official", help="rules preset of the games")
    parser.add_argument("--players", type=int, default=2, help="players per game")
    parser.add_argument("--opponents", default="tuned,random_play",
                        help="opponents, comma-separated (each in all other seats)")
    parser.add_argument("--deals", type=int, default=10_000, help="duplicate deals")
    parser.add_argument("--seed", type=integer_from(0, SEED_MAX), default=0,
                        help="the stream of evaluation deals (as uno-env tournament's --seed)")
    parser.add_argument("--ship", default="", help="copy the chosen network to this "
                        ".safetensors path, with its model card")
    parser.add_argument("--choose", default="curve", help="'curve' (best last training "
                        "curve point against tuned) or the index of a run")
    parser.add_argument("--recipe", default="", help="the recipe, for the model card")
    parser.add_argument("--out", default="", help="write the report here (JSON)")
    parser.add_argument("--figure", default="", help="draw the training curves against "
                        "tuned here (.png), with each network's evaluation")
    args = parser.parse_args(argv)
    args.run_list = [Path(r) for r in args.runs.split(",")]
    missing = [str(r) for r in args.run_list if not (r / "model.safetensors").is_file()]
    if missing:
        parser.error(f"no model.safetensors in {', '.join(missing)}")
    if not 2 <= args.deals <= STREAM:
        parser.error(f"--deals must be between 2 and {STREAM:,} (one stream of deals)")
    if args.choose != "curve" and not (args.choose.isdecimal()
                                       and int(args.choose) < len(args.run_list)):
        parser.error(f"--choose must be 'curve' or a run index, got {args.choose!r}")
    if args.ship and not args.ship.endswith(".safetensors"):
        parser.error("--ship must be a .safetensors path")
    try:
        Rules.preset(args.preset, num_players=args.players)
        for name in args.opponents.split(","):
            make_agent(name)
    except ValueError as e:
        parser.error(str(e))
    return args


def run_record(run: Path) -> dict[str, Any]:
    """What a run recorded about itself (its command, settings, curve)."""
    for name in ("record.json", "config.json"):
        if (run / name).is_file():
            return json.loads((run / name).read_text())
    return {}


def last_curve_point(record: dict[str, Any], run: Path, opponent: str = "tuned") -> float:
    """The last recorded win rate against ``opponent`` during training (-1 if none); for
    a PPO run without a curve, its final evaluation against it (``eval.json``, deals
    other than the fresh ones of this report)."""
    points = [r.get("curve", {}) for r in record.get("rounds", [])] or record.get("curve", [])
    if not points and (run / "eval.json").is_file():
        points = [{row["opponent"]: row} for row in json.loads((run / "eval.json").read_text())]
    for point in reversed(points):
        if opponent in point:
            return float(point[opponent]["win_rate"])
    return -1.0


def summary(rates: list[float]) -> dict[str, float]:
    values = np.array(rates)
    return {"mean": float(values.mean()), "min": float(values.min()),
            "max": float(values.max()), "std": float(values.std(ddof=1)) if len(values) > 1
            else 0.0}


def main(argv: list[str] | None = None) -> int:
    """Exit status 0, or 130 after Ctrl-C (nothing written: no network shipped, no
    report)."""
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    try:
        report = measure(args, argv)
    except KeyboardInterrupt:
        print("\nseeds_report: interrupted; nothing was written (no network shipped, no "
              "report): the results printed above are all there is", file=sys.stderr)
        return 130
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C waits for the files
    try:
        write(args, report)
    finally:
        signal.signal(signal.SIGINT, previous)
    return 0


def measure(args: argparse.Namespace, argv: list[str]) -> dict[str, Any]:
    """Every network against every opponent (printed as it comes): the report."""
    rules = Rules.preset(args.preset, num_players=args.players)
    records = [run_record(r) for r in args.run_list]
    first = deal_seed("evaluation", args.seed, 0, args.deals)
    report: dict[str, Any] = {
        **provenance("python experiments/seeds_report.py " + shlex.join(argv),
                     describe(first, args.deals)),
        "preset": args.preset, "players": args.players, "results": {}}
    print(f"measuring {len(args.run_list)} networks against {args.opponents} on "
          f"{args.deals:,} deals", flush=True)
    for name in args.opponents.split(","):
        opponent = make_agent(name)
        each = []
        for run in args.run_list:
            r = head_to_head(NetAgent(run / "model.safetensors"), opponent, rules,
                             args.deals, first)
            each.append({"run": str(run), **r})
            print(f"{run} vs {name}: {r['win_rate']:.2%} [{r['low']:.2%}, {r['high']:.2%}] "
                  f"over {r['games']:,} games", flush=True)
        report["results"][name] = {"each": each,
                                   "seeds": summary([e["win_rate"] for e in each])}
        s = report["results"][name]["seeds"]
        print(f"vs {name}: mean {s['mean']:.2%} over {len(each)} seeds "
              f"({s['min']:.2%}-{s['max']:.2%})", flush=True)
    report["curve_opponent"] = args.opponents.split(",")[0]
    report["curves"] = {str(run): curve_points(rec, report["curve_opponent"])
                        for run, rec in zip(args.run_list, records, strict=True)}
    report["records"] = records
    return report


def curve_points(record: dict[str, Any], opponent: str = "tuned") -> list[dict[str, Any]]:
    """A run's training curve against ``opponent``: decisions, seconds, win rate and
    interval."""
    return [{"decisions": p["decisions"], "seconds": p.get("seconds"),
             **{k: p[opponent][k] for k in ("win_rate", "low", "high", "games")}}
            for p in record.get("curve", []) if opponent in p]


def figure(report: dict[str, Any], path: str) -> None:
    """The training curves against the first opponent, each run's evaluation as a point
    at its end."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    opponent = report.get("curve_opponent", "tuned")
    final = {e["run"]: e for e in report["results"].get(opponent, {}).get("each", [])}
    for run, points in report["curves"].items():
        x = [p["decisions"] / 1e6 for p in points]
        line, = ax.plot(x, [100 * p["win_rate"] for p in points], marker=".", label=run)
        ax.fill_between(x, [100 * p["low"] for p in points], [100 * p["high"] for p in points],
                        color=line.get_color(), alpha=0.15)
        if run in final and x:
            e = final[run]
            ax.errorbar([x[-1]], [100 * e["win_rate"]], yerr=[[100 * (e["win_rate"] - e["low"])],
                        [100 * (e["high"] - e["win_rate"])]], fmt="s", color=line.get_color(),
                        capsize=3, label=f"{run}: {e['games']:,} evaluation games")
    fair = 100 / report.get("players", 2)
    ax.axhline(fair, color="grey", lw=0.8, ls="--", label=f"fair share {fair:g}%")
    ax.set_xlabel("learner decisions (millions)")
    ax.set_ylabel(f"win rate against {opponent} (%), 95% interval")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def headline_rows(report: dict[str, Any], k: int, ship: Path) -> dict[str, Any]:
    """The shipped network's measurements of this report, as a headlines record that
    :func:`uno_agents.catalogue.write_headlines` copies into its card (by file hash)."""
    digest = sha256(ship)
    rows = [{"file": ship.name, "sha256": digest, "opponent": name,
             "players": report["players"], **result["each"][k]}
            for name, result in report["results"].items()]
    return {**{key: report.get(key) for key in ("command", "commit", "deals")}, "rows": rows}


def write(args: argparse.Namespace, report: dict[str, Any]) -> None:
    """Ship the chosen network with its model card, and write the report."""
    records = report.pop("records")
    if args.ship:
        points = [last_curve_point(r, run, report["curve_opponent"])
                  for r, run in zip(records, args.run_list, strict=True)]
        k = int(np.argmax(points)) if args.choose == "curve" else int(args.choose)
        report["shipped"] = {"run": str(args.run_list[k]), "chosen_by": args.choose}
        ship = Path(args.ship)
        shutil.copyfile(args.run_list[k] / "model.safetensors", ship)
        card = {"recipe": args.recipe or records[k].get("recipe", ""),
                "command": records[k].get("command", ""),
                "seeds": [{"run": str(r), "command": rec.get("command", ""),
                           "config": rec.get("config", {})}
                          for r, rec in zip(args.run_list, records, strict=True)],
                "shipped_seed_index": k, "results": report}
        write_json(ship.with_suffix(".json"), card)
        write_headlines(headline_rows(report, k, ship), args.out or "", ship.parent)
        print(f"shipped {args.run_list[k]} as {ship}")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        write_json(args.out, report)
    if args.figure:
        figure(report, args.figure)


if __name__ == "__main__":
    from uno_env.cli import run_command

    sys.exit(run_command(main, "seeds_report"))
