"""Ablation of PPO from scratch: which setting stops it below ``greedy``?

    python experiments/ppo_ablation.py --timesteps 500000 --seeds 0,1,2 --jobs 2 \\
        --out runs/ppo-ablation

Each variant changes one thing against the baseline (the defaults of
``experiments/train_sb3.py``, learner heads-up against ``greedy`` on ``official``)
and is trained for the same number of learner decisions, once per seed, each run in
its own process (``train_sb3.py``, so every run is exactly a command a user can
repeat). Every trained policy is then measured against ``greedy`` on the same
``--deals`` duplicate deals (train_sb3's evaluation, deal seeds from 10,000), and the
table gives each variant's mean over seeds, every seed's rate and the interval of
each. Runs already finished in ``--out`` (their ``eval.json`` exists) are reused, and
a run stopped midway resumes from its last checkpoint, so a killed ablation continues
where it stopped. Ctrl-C stops the runs in progress (each saves a checkpoint), says
which runs are finished and exits with status 130; ``--list`` prints the variants.

Writes ``--out/ablation.json`` (settings, command, commit, date, machine, the deals
of the evaluation and one row per run) and
``--out/ablation.md`` (the table).
"""

from __future__ import annotations

from uno_env.launch import guard

guard("ppo_ablation", __name__)

import argparse
import json
import shlex
import signal
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from uno_env.extras import require

require("ppo_ablation.py", "train")

import numpy as np

from uno_env.deals import describe
from uno_env.files import write_atomic
from uno_env.tooling.dataclass_flags import HelpFormatter
from uno_env.tooling.machine import provenance

#: The first deal of train_sb3's evaluation (the default seed of
#: :func:`uno_env.evaluation.head_to_head`), which every run is measured on.
EVAL_SEED = 10_000

#: Each variant's flags for train_sb3.py on top of the baseline, and what it tests.
VARIANTS: dict[str, tuple[list[str], str]] = {
    "baseline": ([], "the defaults: net 128,128, lr 3e-4, entropy 0.01, 256 games x 64 "
                     "steps, batch 4096, 4 epochs, gamma 0.995, lambda 0.95, log scaling"),
    "raw-obs": (["--no-obs-scaling"], "observation scaling off"),
    "wide": (["--net", "256,256"], "wider network"),
    "big": (["--net", "512,512,256"], "wider and deeper network"),
    "lr-1e-4": (["--learning-rate", "1e-4"], "lower learning rate"),
    "lr-1e-3": (["--learning-rate", "1e-3"], "higher learning rate"),
    "ent-0": (["--ent-coef", "0"], "no entropy bonus"),
    "ent-0.03": (["--ent-coef", "0.03"], "more entropy bonus"),
    "long-rollout": (["--n-steps", "256", "--batch-size", "16384"],
                     "4x longer rollouts and batches"),
    "epochs-10": (["--n-epochs", "10"], "more passes per rollout"),
    "mc-returns": (["--gamma", "1", "--gae-lambda", "1"],
                   "undiscounted Monte-Carlo returns (no value bootstrapping)"),
    "self-play": (["--opponents", "self-play", "--heuristics", "greedy,tuned,random_play"],
                  "a pool of its snapshots and three heuristics instead of greedy alone"),
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=HelpFormatter)
    parser.add_argument("--variants", default=",".join(VARIANTS),
                        help="comma-separated variant names (--list shows them)")
    parser.add_argument("--timesteps", type=int, default=500_000,
                        help="learner decisions each run trains on")
    parser.add_argument("--seeds", default="0,1,2", help="training seeds, comma-separated")
    parser.add_argument("--deals", type=int, default=2000,
                        help="duplicate deals of the evaluation against greedy")
    parser.add_argument("--jobs", type=int, default=2, help="runs trained at once")
    parser.add_argument("--out", default="runs/ppo-ablation", help="output folder")
    parser.add_argument("--list", action="store_true", help="print the variants and stop")
    args = parser.parse_args(argv)
    if args.list:
        for name, (flags, what) in VARIANTS.items():
            print(f"{name:14} {what} ({' '.join(flags) or 'no flags'})")
        raise SystemExit(0)
    unknown = [v for v in args.variants.split(",") if v not in VARIANTS]
    if unknown:
        parser.error(f"unknown variant(s) {unknown}; variants: {', '.join(VARIANTS)}")
    try:
        args.seed_list = [int(s) for s in args.seeds.split(",")]
    except ValueError:
        parser.error(f"--seeds must be integers separated by commas, got {args.seeds!r}")
    for name in ("timesteps", "deals", "jobs"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    return args


class Runs:
    """The training processes running, so that Ctrl-C can stop them all."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running: set[subprocess.Popen] = set()
        self.stopping = False

    def run(self, command: list[str]) -> None:
        """Run one command to its end (``CalledProcessError`` if it fails or is stopped)."""
        with self.lock:
            if self.stopping:
                raise subprocess.CalledProcessError(130, command)
            # its own session: Ctrl-C reaches the ablation only, which stops each run once
            proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, start_new_session=True)
            self.running.add(proc)
        try:
            code = proc.wait()
        finally:
            with self.lock:
                self.running.discard(proc)
        if code:
            raise subprocess.CalledProcessError(code, command)

    def stop(self, timeout: float = 120.0) -> None:
        """Start no new run and interrupt the running ones (each saves a checkpoint)."""
        with self.lock:
            self.stopping = True
            procs = list(self.running)
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
        for proc in procs:
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


RUNS = Runs()


def run_one(variant: str, seed: int, args: argparse.Namespace) -> dict[str, Any]:
    """Train (unless done already) and read one run's evaluation against greedy."""
    out = Path(args.out) / f"{variant}-seed{seed}"
    if not (out / "eval.json").exists():
        flags = VARIANTS[variant][0]
        command = [sys.executable, str(Path(__file__).parent / "train_sb3.py"), *flags,
                   "--timesteps", str(args.timesteps), "--seed", str(seed),
                   "--eval-opponents", "greedy", "--eval-deals", str(args.deals),
                   "--checkpoint-every", str(10 * args.timesteps), "--no-progress",
                   "--out", str(out)]
        if any((out / "checkpoints").glob("step_*.pt")):   # stopped midway: continue it
            command.append("--resume")
        print(f"training {variant} seed {seed} in {out}", flush=True)
        RUNS.run(command)
    result = json.loads((out / "eval.json").read_text())[0]
    config = json.loads((out / "config.json").read_text())
    return {"variant": variant, "seed": seed, "win_rate": result["win_rate"],
            "low": result["low"], "high": result["high"], "games": result["games"],
            "seconds": config["seconds"], "command": config["command"]}


def table(rows: list[dict[str, Any]]) -> str:
    """The markdown table: one line per variant, mean over seeds and each seed."""
    lines = ["| variant | what changes | mean vs greedy | spread (min-max) | each seed "
             "[95% interval] |", "|---|---|---:|---:|---|"]
    for name in dict.fromkeys(r["variant"] for r in rows):
        runs = [r for r in rows if r["variant"] == name]
        rates = np.array([r["win_rate"] for r in runs])
        each = ", ".join(f"{r['win_rate']:.1%} [{r['low']:.1%}, {r['high']:.1%}]" for r in runs)
        lines.append(f"| {name} | {VARIANTS[name][1]} | {rates.mean():.1%} | "
                     f"{rates.min():.1%}-{rates.max():.1%} | {each} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Exit status 0, or 130 after Ctrl-C (the finished runs kept, the others stopped at
    a checkpoint)."""
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    jobs = [(v, s) for v in args.variants.split(",") for s in args.seed_list]
    pool = ThreadPoolExecutor(args.jobs)
    try:
        rows = list(pool.map(lambda job: run_one(*job, args), jobs))
    except KeyboardInterrupt:
        RUNS.stop()
        pool.shutdown(wait=True, cancel_futures=True)
        done = [f"{v}-seed{s}" for v, s in jobs
                if (out / f"{v}-seed{s}" / "eval.json").exists()]
        print(f"\nppo_ablation: interrupted; {len(done)} of {len(jobs)} runs finished and "
              f"kept in {out}{': ' + ', '.join(done) if done else ''}; the runs in progress "
              "saved a checkpoint; no table was written; the same command continues",
              file=sys.stderr)
        return 130
    pool.shutdown()
    record = {**provenance("python experiments/ppo_ablation.py " + shlex.join(argv),
                           describe(EVAL_SEED, args.deals)),
              "timesteps": args.timesteps, "runs": rows}
    for name, text in (("ablation.json", json.dumps(record, indent=2) + "\n"),
                       ("ablation.md", table(rows))):
        write_atomic(out / name, text)
    print(table(rows))
    return 0


if __name__ == "__main__":
    from uno_env.cli import run_command

    sys.exit(run_command(main, "ppo_ablation"))
