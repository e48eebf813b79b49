"""The cross-preset experiment: does a policy trained under one rule set play another?

    python experiments/cross_preset.py --budget 200000 --deals 300 --out runs/cross_preset

1. Train one MaskablePPO policy per preset (``--budget`` learner decisions each,
   against ``--train-opponent``), and one rules-conditioned policy on the mixture
   of all presets (``--budget`` times the number of presets, the games split
   evenly between them), all with the settings of ``experiments/train_ppo.py``.
2. Play every policy on every preset, head-to-head against the best heuristic
   (``--heuristic``) and against ``random_play``: the policy in one seat, the
   opponent in all the others, every deal replayed with the policy in each seat
   (duplicate deals, seats rotated), 95% intervals over deals.
3. Write the matrices (trained on x played on, win rate of the policy) as
   ``matrix.json``, ``matrix.md`` (tables with intervals) and ``heatmap.png``, and
   print them. The rules-conditioned policy is the last row, ``mixture``.

Heads-up (``--players 2``) by default; team play always has 4 players. Models are
kept in ``<out>/<preset>/`` with the settings they were trained with (``config.json``);
a later run reuses one only if it asks for the same settings (players, budget,
network, opponent, ...), and otherwise, or with ``--retrain``, trains it again in its
place.
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents import make_agent
from agents.policy import PolicyAgent
from agents.ppo_training import Config, train
from uno_env import PRESETS, Rules
from uno_env.cli import integer_from, run_command
from uno_env.evaluation import head_to_head
from uno_env.parallel import executor

MIXTURE = "mixture"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--budget", type=integer_from(1), default=200_000,
                        help="learner decisions per single-preset policy")
    parser.add_argument("--presets", default="all", help="presets separated by commas, or all")
    parser.add_argument("--players", type=integer_from(2, 10), default=2)
    parser.add_argument("--train-opponent", default="tuned")
    parser.add_argument("--heuristic", default="tuned", help="the best heuristic to play")
    parser.add_argument("--deals", type=integer_from(1), default=300, help="deals per matrix cell")
    parser.add_argument("--num-envs", type=integer_from(1), default=256)
    parser.add_argument("--n-steps", type=integer_from(1), default=64)
    parser.add_argument("--batch-size", type=integer_from(1), default=4096)
    parser.add_argument("--net", default="128,128")
    parser.add_argument("--seed", type=integer_from(0, 2**31 - 1), default=0)
    parser.add_argument("--out", default="runs/cross_preset")
    parser.add_argument("--retrain", action="store_true", help="train even if a model exists")
    parser.add_argument("--jobs", type=integer_from(1), default=1,
                        help="processes training the policies and playing the cells")
    parser.add_argument("--no-progress", dest="progress", action="store_false")
    return parser.parse_args(argv)


def train_row(cfg: Config) -> None:
    """Train one row's policy (a job of ``--jobs``)."""
    print(f"training {Path(cfg.out).name}: {cfg.timesteps:,} steps", flush=True)
    train(cfg)


#: Settings that do not change a trained model (display, checkpoints, evaluation).
NOT_MODEL = frozenset({"progress", "out", "resume", "checkpoint_every", "eval_every",
                       "curve_deals", "eval_opponents", "eval_deals"})


def model_settings(config: dict[str, Any]) -> dict[str, Any]:
    """The settings of a ``Config`` (as a dict) that shape the model it trains."""
    return {k: v for k, v in config.items() if k not in NOT_MODEL}


def cached(cfg: Config) -> bool:
    """Whether ``cfg.out`` holds a finished model trained with ``cfg``'s settings (its
    ``config.json`` records them): only then is it reused."""
    out = Path(cfg.out)
    try:
        recorded = json.loads((out / "config.json").read_text())["config"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return (out / "policy.safetensors").is_file() and isinstance(recorded, dict) \
        and model_settings(recorded) == model_settings(asdict(cfg))


def row_configs(args: argparse.Namespace, presets: list[str], out: Path) -> dict[str, Config]:
    """The training settings of every row: one per preset plus the mixture."""
    rollout = args.num_envs * args.n_steps
    base = Config(players=args.players, opponents=args.train_opponent, num_envs=args.num_envs,
                  n_steps=args.n_steps, batch_size=min(args.batch_size, rollout), net=args.net,
                  seed=args.seed, eval_deals=0, progress=args.progress and args.jobs == 1,
                  checkpoint_every=10**12)
    rows = {p: replace(base, preset=p, timesteps=args.budget, out=str(out / p)) for p in presets}
    rows[MIXTURE] = replace(base, preset=",".join(presets), out=str(out / MIXTURE),
                            timesteps=args.budget * len(presets),
                            num_envs=max(args.num_envs, len(presets)))
    return rows


def train_policies(args: argparse.Namespace, rows: dict[str, Config]) -> dict[str, Path]:
    """Train the rows whose folder holds no model of their settings (every row with
    ``--retrain``), replacing what is there; returns the model file of each row.

    With ``--jobs`` > 1 the rows train side by side, the mixture (the longest) first,
    each without a progress bar."""
    todo = []
    for name in [MIXTURE, *(n for n in rows if n != MIXTURE)]:
        cfg = rows[name]
        if not args.retrain and cached(cfg):
            print(f"{name}: reusing the model in {cfg.out} (trained with these settings)")
            continue
        if Path(cfg.out).exists():
            why = "--retrain" if args.retrain else "trained with other settings, or unfinished"
            print(f"{name}: replacing the run in {cfg.out} ({why})")
            shutil.rmtree(cfg.out)
        todo.append(cfg)
    with executor(args.jobs) as pool:
        for job in [pool.submit(train_row, cfg) for cfg in todo]:
            job.result()
    return {name: Path(cfg.out) / "policy.safetensors" for name, cfg in rows.items()}


def play_cell(model: Path, name: str, opponent: str, rules: Rules, deals: int,
              seed: int) -> dict[str, float]:
    """One cell of the matrix: the policy of ``model`` against ``opponent`` on ``rules``
    (a job of ``--jobs``; one torch thread per process)."""
    torch.set_num_threads(1)
    return head_to_head(PolicyAgent(model, label=name), make_agent(opponent), rules, deals,
                        seed=seed)


def play_matrix(args: argparse.Namespace, presets: list[str],
                models: dict[str, Path]) -> dict[str, dict]:
    """Win rates with intervals: ``result[opponent][trained_on][played_on]``."""
    rules = {p: Config(preset=p, players=args.players).rules()[0] for p in presets}
    opponents = [args.heuristic, "random_play"]
    cells = [(o, name, p) for o in opponents for name in models for p in presets]
    try:
        from tqdm.auto import tqdm
        bar = tqdm(total=len(cells), unit="cell", disable=not args.progress)
    except ImportError:  # pragma: no cover
        bar = None
    result: dict[str, dict] = {o: {name: {} for name in models} for o in opponents}
    with executor(args.jobs) as pool:
        jobs = [pool.submit(play_cell, models[name], name, o, rules[p], args.deals,
                            args.seed + 10_000) for o, name, p in cells]
        for job, (o, name, p) in zip(jobs, cells, strict=True):   # in order: a stable record
            result[o][name][p] = job.result()
            if bar is not None:
                bar.update()
    if bar is not None:
        bar.close()
    return result


def write_tables(result: dict[str, dict], presets: list[str], out: Path) -> str:
    """The matrices as Markdown tables (win rate and 95% interval per cell)."""
    lines = []
    for opponent, matrix in result.items():
        lines += [f"### Against `{opponent}`", "",
                  "| trained on \\ played on | " + " | ".join(presets) + " |",
                  "|---|" + "---:|" * len(presets)]
        for name, row in matrix.items():
            cells = [f"{row[p]['win_rate']:.1%} [{row[p]['low']:.1%}, {row[p]['high']:.1%}]"
                     for p in presets]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        lines.append("")
    text = "\n".join(lines)
    (out / "matrix.md").write_text(text)
    return text


def draw_heatmap(result: dict[str, dict], presets: list[str], path: Path) -> None:
    """One heatmap per opponent: rows trained on, columns played on, color = win rate."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(result), figsize=(6.5 * len(result), 5.5), squeeze=False)
    for ax, (opponent, matrix) in zip(axes[0], result.items(), strict=True):
        names = list(matrix)
        values = np.array([[matrix[n][p]["win_rate"] for p in presets] for n in names])
        image = ax.imshow(values, vmin=0, vmax=1, cmap="RdYlGn")
        ax.set_xticks(range(len(presets)), presets, rotation=45, ha="right")
        ax.set_yticks(range(len(names)), names)
        ax.set_xlabel("played on")
        ax.set_ylabel("trained on")
        ax.set_title(f"win rate against {opponent}")
        for i in range(len(names)):
            for j in range(len(presets)):
                ax.text(j, i, f"{values[i, j]:.0%}", ha="center", va="center", fontsize=8)
        fig.colorbar(image, ax=ax, fraction=0.046)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    presets = list(PRESETS) if args.presets == "all" else args.presets.split(",")
    out = Path(args.out)
    rows = row_configs(args, presets, out)
    for cfg in rows.values():   # every setting checked before anything is written
        cfg.check()
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    models = train_policies(args, rows)
    trained = time.perf_counter()
    result = play_matrix(args, presets, models)
    record = {"command": "python experiments/cross_preset.py " + shlex.join(argv),
              "args": vars(args), "train_seconds": round(trained - start, 1),
              "eval_seconds": round(time.perf_counter() - trained, 1), "matrix": result}
    (out / "matrix.json").write_text(json.dumps(record, indent=2) + "\n")
    draw_heatmap(result, presets, out / "heatmap.png")
    print(write_tables(result, presets, out))
    print(f"wrote {out / 'matrix.json'}, {out / 'matrix.md'} and {out / 'heatmap.png'}")


if __name__ == "__main__":
    sys.exit(run_command(main, "cross_preset"))
