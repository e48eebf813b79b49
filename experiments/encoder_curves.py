"""Learning curves of the networks' encoders: the same PPO recipe, several seeds each.

    python experiments/encoder_curves.py --arms "dense-separate:128,128;packed:128,128" \\
        --seeds 0,1,2 --timesteps 2000000 --runs runs/encoder-curves

Every arm (an encoder and its widths) trains with ``experiments/train_ppo.py`` on the
same settings (``--preset``, ``--players``, ``--opponents`` and PPO's defaults) for every
seed of ``--seeds``, one run after the other, each its own recorded command (a finished
run is reused, a stopped one resumed). Each run's curve is its win rate against the
curve opponents on the same curve deals (seeds 900,000+) every ``--eval-every``
decisions; its final evaluation plays ``--eval-deals`` fresh deals (1,000,000+) that
nothing was chosen on. The script writes ``--out`` (JSON: every run's curve and final
evaluation, and per arm the mean and spread over seeds) and a figure of the curves
against decisions and against wall time (``--figure``).
"""

from __future__ import annotations

from uno_env.launch import guard

guard("encoder_curves", __name__)

import argparse
import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

from uno_env.extras import require

require("encoder_curves.py", "train", "eval")

import numpy as np

from uno_env.cli import run_command, run_process
from uno_env.deals import describe
from uno_env.evaluation import FRESH_SEED
from uno_env.tooling.dataclass_flags import HelpFormatter
from uno_env.tooling.machine import provenance

HERE = Path(__file__).resolve().parent


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=HelpFormatter)
    p.add_argument("--arms", default="dense-separate:128,128;packed:128,128",
                   help="encoder:widths of each arm, separated by ';'")
    p.add_argument("--seeds", default="0,1,2", help="training seeds")
    p.add_argument("--preset", default="official", help="preset of the games")
    p.add_argument("--players", type=int, default=2, help="players per game")
    p.add_argument("--opponents", default="tuned", help="the training opponent")
    p.add_argument("--timesteps", type=int, default=2_000_000, help="decisions per run")
    p.add_argument("--num-games", type=int, default=256, help="games played together")
    p.add_argument("--n-steps", type=int, default=64, help="decisions per game per rollout")
    p.add_argument("--eval-every", type=int, default=250_000, help="decisions between points")
    p.add_argument("--curve-deals", type=int, default=500, help="duplicate deals of a point")
    p.add_argument("--eval-deals", type=int, default=2000, help="fresh deals of the final "
                   "evaluation")
    p.add_argument("--threads", type=int, default=0, help="torch threads (0: every core)")
    p.add_argument("--runs", default="runs/encoder-curves", help="folder of the runs")
    p.add_argument("--out", default="docs/results/encoder-curves.json", help="the record")
    p.add_argument("--figure", default="docs/encoder_curves.png", help="the figure")
    args = p.parse_args(argv)
    try:
        args.arm_list = [(a.split(":")[0], a.split(":")[1]) for a in args.arms.split(";")]
        args.seed_list = [int(s) for s in args.seeds.split(",")]
    except (IndexError, ValueError):
        p.error(f"--arms must be encoder:widths;... and --seeds integers, got "
                f"{args.arms!r} and {args.seeds!r}")
    if min(args.timesteps, args.eval_every, args.num_games, args.n_steps) < 1:
        p.error("--timesteps, --eval-every, --num-games and --n-steps must be at least 1")
    return args


def command(args: argparse.Namespace, encoder: str, hidden: str, seed: int, out: Path
            ) -> list[str]:
    flags = ["--preset", args.preset, "--players", str(args.players), "--opponents",
             args.opponents, "--encoder", encoder, "--hidden", hidden, "--seed", str(seed),
             "--timesteps", str(args.timesteps), "--eval-every", str(args.eval_every),
             "--num-games", str(args.num_games), "--n-steps", str(args.n_steps),
             "--curve-deals", str(args.curve_deals), "--eval-deals", str(args.eval_deals),
             "--curve-opponents", args.opponents, "--threads", str(args.threads),
             "--workers", "0", "--device", "cpu", "--no-progress", "--out", str(out)]
    if (out / "checkpoints").is_dir() and not (out / "record.json").exists():
        flags.append("--resume")
    return [sys.executable, str(HERE / "train_ppo.py"), *flags]


def summarise(records: dict[str, list[dict[str, Any]]], opponent: str) -> dict[str, Any]:
    """Per arm: the mean and spread over seeds of each curve point and of the final
    evaluation."""
    out: dict[str, Any] = {}
    for arm, runs in records.items():
        points = [[p[opponent]["win_rate"] for p in r["curve"]] for r in runs]
        length = min(len(p) for p in points)
        curve = np.array([p[:length] for p in points])
        finals = [next(e for e in r["evaluation"] if e["opponent"] == opponent)["win_rate"]
                  for r in runs]
        out[arm] = {"decisions": [p["decisions"] for p in runs[0]["curve"][:length]],
                    "mean": curve.mean(axis=0).tolist(), "min": curve.min(axis=0).tolist(),
                    "max": curve.max(axis=0).tolist(),
                    "final_mean": float(np.mean(finals)), "final_by_seed": finals,
                    "decisions_per_second": float(np.mean([r["decisions_per_second"]
                                                           for r in runs]))}
    return out


def figure(records: dict[str, list[dict[str, Any]]], opponent: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for k, (arm, runs) in enumerate(records.items()):
        color = f"C{k}"
        for i, r in enumerate(runs):
            x = [p["decisions"] / 1e6 for p in r["curve"]]
            t = [p["seconds"] / 60 for p in r["curve"]]
            y = [100 * p[opponent]["win_rate"] for p in r["curve"]]
            label = arm if i == 0 else None
            axes[0].plot(x, y, color=color, alpha=0.8, label=label)
            axes[1].plot(t, y, color=color, alpha=0.8, label=label)
    axes[0].set_xlabel("learner decisions (millions)")
    axes[1].set_xlabel("training wall time (minutes, evaluations excluded)")
    axes[0].set_ylabel(f"win rate against {opponent} (%)")
    for ax in axes:
        ax.axhline(50, color="grey", lw=0.8, ls=":")
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle("PPO, same recipe, one line per seed")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    records: dict[str, list[dict[str, Any]]] = {}
    commands: dict[str, list[str]] = {}
    for encoder, hidden in args.arm_list:
        arm = f"{encoder} {hidden.replace(',', 'x')}"
        for seed in args.seed_list:
            out = Path(args.runs) / f"{encoder}-{hidden.replace(',', 'x')}-s{seed}"
            cmd = command(args, encoder, hidden, seed, out)
            commands[f"{arm} seed {seed}"] = cmd
            if not (out / "record.json").exists():
                print(f"{arm}, seed {seed}: training", flush=True)
                try:
                    run_process(cmd)
                except subprocess.CalledProcessError as err:
                    raise SystemExit(f"{arm}, seed {seed} failed (exit {err.returncode})"
                                     ) from None
            records.setdefault(arm, []).append(json.loads((out / "record.json").read_text()))
    summary = summarise(records, args.opponents)
    for arm, s in summary.items():
        print(f"{arm}: final vs {args.opponents} {100 * s['final_mean']:.1f}% (seeds "
              f"{', '.join(f'{100 * f:.1f}' for f in s['final_by_seed'])}), "
              f"{s['decisions_per_second']:,.0f} decisions/s")
    # ``deals`` names the final evaluation's fresh deals (every run plays the same ones)
    deals = describe(FRESH_SEED, args.eval_deals) if args.eval_deals else None
    record = {**provenance("python experiments/encoder_curves.py " + shlex.join(
        argv if argv is not None else sys.argv[1:]), deals), "settings": vars(args) | {
        "arm_list": args.arm_list}, "summary": summary,
        "runs": {arm: [{k: r[k] for k in ("command", "decisions", "seconds",
                                          "decisions_per_second", "curve", "evaluation",
                                          "threads", "device")} for r in runs]
                 for arm, runs in records.items()}}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(record, indent=2) + "\n")
    figure(records, args.opponents, Path(args.figure))
    print(f"record: {args.out}; figure: {args.figure}")


if __name__ == "__main__":
    sys.exit(run_command(main, "encoder_curves"))
