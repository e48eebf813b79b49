"""The cross-preset study: does a policy trained under one rule set play another, and does
one rules-conditioned policy over every preset match the specialists?

The full study (all presets, heads-up; see ``--help`` for every flag)::

    python experiments/cross_preset.py --budget 200000 --seeds 3 --deals 300 --jobs 2 \\
        --out runs/cross_preset

**Rows** (policies; every trained row with ``--seeds`` seeds ``--seed``,
``--seed`` + 1, ..., against ``--train-opponent``, with the settings of
``experiments/train_sb3.py``):

* one per preset (``official``, ``no_mercy``, ...): a specialist, trained on that
  preset only for ``--budget`` learner decisions;
* ``mixture``: one rules-conditioned policy trained on all the presets at once (the
  games split evenly between them) for ``--budget`` decisions: the compute of *one*
  specialist;
* ``mixture-<N>x`` (N = the number of presets, ``mixture-9x`` for all of them): the
  same for N times ``--budget``: the compute of *all* the specialists together;
* ``mixture-no-rules``: ``mixture-<N>x`` without the rule vector in the policy's
  input (``--no-rule-vector`` of ``train_sb3.py``): it cannot tell the presets apart,
  so it measures what conditioning on the rules is worth;
* the heuristic itself (no training): the reference row. By default (``--heuristic
  reference``) it is each preset's reference heuristic at ``--players``, the best
  heuristic chosen on selection deals (``docs/results/reference-heuristics.json``,
  ``experiments/reference_heuristics.py``): ``tuned`` on most presets,
  ``tuned:preset=no_mercy`` on no_mercy heads-up. Against itself it wins 1/players of
  the games (exactly, per deal, when it plays deterministically).

**Cells.** Every row's policy of every seed plays every preset against ``--heuristic``
(one seat the policy, the others the heuristic: that preset's reference by default), on
the same ``--deals`` duplicate deals for every row and seed (each deal once with the
policy in each seat), so rows are compared deal by deal. A cell reports each seed's
win rate, and the mean over seeds with its 95% interval over deals (the unit is a
deal: its share of wins averaged over the seeds), with the seeds' spread beside it.
The interval is over deals for *these* training seeds; how much another seed would move
a row shows in the spread.

**Paired differences** (the same deals, 95% intervals over deals,
:mod:`uno_env.evaluation`): each specialist on its own preset minus ``mixture`` and
minus ``mixture-<N>x`` on that preset; ``mixture-<N>x`` minus ``mixture-no-rules`` on
each preset; every row minus the reference row on each preset.

**Outputs** in ``--out``: ``matrix.json`` (the command, the settings, budgets, seeds,
deal seeds, every per-seed and mean result and every difference), ``matrix.md``
(tables with intervals and a verdict list that claims a difference only where its
interval excludes 0), ``heatmap.png`` (win rates with intervals, and the paired
differences with intervals), and ``cells.json`` (every cell's per-deal wins). Every
file is written atomically.

**Reuse and resume.** Models live in ``<out>/<row>/seed-<k>/`` with the settings they
were trained with; a later run reuses one only if it asks for the same settings
(``--retrain``: never). ``--resume`` also keeps the cells already played (in
``cells.json``, each tied to the model file it played) and continues a training run
that was interrupted from its last checkpoint. Ctrl-C (or a kill) loses at most the
cells being played and the decisions since the last checkpoint: the same command with
``--resume`` goes on from there.
"""

from __future__ import annotations

from uno_env.launch import guard

guard("cross_preset", __name__)

import argparse
import hashlib
import io
import json
import math
import shlex
import shutil
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from uno_env.extras import require

require("cross_preset.py", "train", "eval")

import numpy as np
import torch

from uno_agents import make_agent
from uno_agents.policy import PolicyAgent
from uno_agents.training.sb3 import Config, last_checkpoint, train
from uno_env import PRESETS, Rules
from uno_env.cli import integer_from, run_command
from uno_env.deals import deal_seed, describe
from uno_env.evaluation import deal_wins, mean_interval, win_rate
from uno_env.evaluation.references import RECORD as REFERENCE_RECORD
from uno_env.evaluation.references import reference_of
from uno_env.evaluation.tournament import SEED_MAX
from uno_env.files import write_atomic
from uno_env.tooling.dataclass_flags import HelpFormatter
from uno_env.tooling.machine import provenance
from uno_env.tooling.parallel import executor

MIXTURE = "mixture"
NO_RULES = "mixture-no-rules"
RANDOM = "random_play"
#: ``--heuristic``'s name for each preset's reference heuristic.
REFERENCE = "reference"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=HelpFormatter,
        epilog="Rows, cells, outputs and resuming: see the module docstring of this script.")
    parser.add_argument("--budget", type=integer_from(1), default=150_000,
                        help="learner decisions of each specialist and of 'mixture'; "
                             "'mixture-<N>x' and 'mixture-no-rules' get N times as many; each "
                             "rounded up to whole rollouts (--num-envs x --n-steps), the "
                             "decisions trained, which the record reports")
    parser.add_argument("--seeds", type=integer_from(1), default=3,
                        help="training seeds of every trained row: --seed, --seed + 1, ...")
    parser.add_argument("--presets", default="all",
                        help="presets separated by commas (at least two), or all")
    parser.add_argument("--players", type=integer_from(2, 10), default=2,
                        help="players per game (team play always has 4)")
    parser.add_argument("--train-opponent", default="tuned",
                        help="agent the policies train against (one agent on every preset: "
                             "the mixtures train on all of them at once)")
    parser.add_argument("--heuristic", default=REFERENCE,
                        help="agent every cell plays against, and the reference row; "
                             f"'{REFERENCE}': each preset's reference heuristic in --reference")
    parser.add_argument("--reference", type=Path, default=REFERENCE_RECORD,
                        help="the record of experiments/reference_heuristics.py that "
                             f"--heuristic {REFERENCE} reads")
    parser.add_argument("--also-random-play", action="store_true",
                        help="also play every cell against random_play (doubles the cells)")
    parser.add_argument("--deals", type=integer_from(1), default=300,
                        help="duplicate deals per cell (each played once per seat)")
    parser.add_argument("--deal-seed", type=integer_from(0, SEED_MAX), default=0,
                        help="the stream of evaluation deals every cell plays (as uno-env "
                             "tournament's --seed; default 0, deal seeds from 1,000,000)")
    parser.add_argument("--num-envs", type=integer_from(1), default=256,
                        help="games stepped together in training")
    parser.add_argument("--n-steps", type=integer_from(1), default=64,
                        help="decisions per game per rollout")
    parser.add_argument("--batch-size", type=integer_from(1), default=4096,
                        help="decisions per gradient step (at most one rollout)")
    parser.add_argument("--net", default="128,128", help="hidden layers of the policy")
    parser.add_argument("--seed", type=integer_from(0, 2**31 - 1), default=0,
                        help="first training seed")
    parser.add_argument("--checkpoint-every", type=integer_from(1), default=100_000,
                        help="learner decisions between the checkpoints --resume continues from")
    parser.add_argument("--out", default="runs/cross_preset", help="output folder")
    parser.add_argument("--resume", action="store_true",
                        help="keep the cells already played and continue interrupted training")
    parser.add_argument("--retrain", action="store_true",
                        help="train every model again, even one trained with these settings")
    parser.add_argument("--jobs", type=integer_from(1), default=1,
                        help="processes training the policies and playing the cells")
    parser.add_argument("--no-progress", dest="progress", action="store_false",
                        help="no progress bars")
    return parser.parse_args(argv)


# --- rows and models ------------------------------------------------------------------------

def big_mixture(presets: list[str]) -> str:
    """The name of the mixture trained with the specialists' total compute."""
    return f"{MIXTURE}-{len(presets)}x"


#: Settings that do not change a trained model (display, checkpoints, evaluation).
NOT_MODEL = frozenset({"progress", "out", "resume", "checkpoint_every", "eval_every",
                       "curve_deals", "eval_opponents", "eval_deals"})


def model_settings(config: dict[str, Any]) -> dict[str, Any]:
    """The settings of a ``Config`` (as a dict) that shape the model it trains."""
    return {k: v for k, v in config.items() if k not in NOT_MODEL}


def read_json(path: Path) -> Any:
    """The JSON in ``path`` (None: absent or unreadable)."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def cached(cfg: Config) -> bool:
    """Whether ``cfg.out`` holds a finished model trained with ``cfg``'s settings (its
    ``config.json`` records them): only then is it reused."""
    out = Path(cfg.out)
    recorded = read_json(out / "config.json")
    recorded = recorded.get("config") if isinstance(recorded, dict) else None
    return (out / "policy.safetensors").is_file() and isinstance(recorded, dict) \
        and model_settings(recorded) == model_settings(asdict(cfg))


def unfinished(cfg: Config) -> bool:
    """Whether ``cfg.out`` holds a run of ``cfg``'s settings that did not finish."""
    out = Path(cfg.out)
    return read_json(out / "settings.json") == model_settings(asdict(cfg)) \
        and not (out / "config.json").exists()


def resumable(cfg: Config) -> bool:
    """Whether ``cfg.out`` holds an interrupted run of ``cfg``'s settings with a checkpoint."""
    return unfinished(cfg) and last_checkpoint(Path(cfg.out)) is not None


def kept_work(cfg: Config, resume: bool) -> str:
    """What in ``cfg.out`` a run of ``cfg`` without ``--retrain`` would have to delete
    ("" when nothing: no folder, an empty one, a model of these settings, or, with
    ``resume``, an unfinished run of them)."""
    out = Path(cfg.out)
    if not out.is_dir() or not any(out.iterdir()) or cached(cfg) or \
            (resume and unfinished(cfg)):
        return ""
    if resumable(cfg):
        return "an interrupted run of these settings: --resume continues it, --retrain replaces it"
    if unfinished(cfg):   # stopped before its first checkpoint
        return ("an unfinished run of these settings without a checkpoint: --resume starts "
                "it again, --retrain replaces it")
    return "a model or run of other settings: --retrain replaces it, or choose another --out"


def row_configs(args: argparse.Namespace, presets: list[str],
                out: Path) -> dict[tuple[str, int], Config]:
    """The training settings of every trained row and seed: ``{(row, seed): Config}``."""
    rollout = args.num_envs * args.n_steps
    base = Config(players=args.players, opponents=args.train_opponent, num_envs=args.num_envs,
                  n_steps=args.n_steps, batch_size=min(args.batch_size, rollout), net=args.net,
                  eval_deals=0, progress=args.progress and args.jobs == 1,
                  checkpoint_every=args.checkpoint_every)
    mixed = replace(base, preset=",".join(presets), num_envs=max(args.num_envs, len(presets)))
    every = len(presets) * args.budget
    rows = {p: replace(base, preset=p, timesteps=args.budget) for p in presets}
    rows[MIXTURE] = replace(mixed, timesteps=args.budget)
    rows[big_mixture(presets)] = replace(mixed, timesteps=every)
    rows[NO_RULES] = replace(mixed, timesteps=every, rule_vector=False)
    return {(name, seed): replace(cfg, seed=seed, out=str(out / name / f"seed-{seed}"))
            for name, cfg in rows.items()
            for seed in range(args.seed, args.seed + args.seeds)}


def train_row(cfg: Config) -> None:
    """Train one model (a job of ``--jobs``; a run with a checkpoint continues from it)."""
    print(f"training {Path(cfg.out).parent.name}/{Path(cfg.out).name}: "
          f"{cfg.trained_timesteps():,} decisions{' (resumed)' if cfg.resume else ''}", flush=True)
    train(cfg)


def run_jobs(args: argparse.Namespace, fn: Callable, jobs: Iterable[tuple],
             done: Callable[[tuple, Any], None], unit: str) -> None:
    """``fn(*job)`` for every job in ``--jobs`` processes, ``done(job, result)`` as each
    ends (in the order given: stable records); Ctrl-C cancels the jobs not started."""
    jobs = list(jobs)
    bar = progress_bar(args, len(jobs), unit)
    with executor(args.jobs) as pool:
        futures: list[Future] = [pool.submit(fn, *job) for job in jobs]
        try:   # leaving the pool by an exception starts no further job
            for job, future in zip(jobs, futures, strict=True):
                done(job, future.result())
                bar.update()
        finally:
            bar.close()


def progress_bar(args: argparse.Namespace, total: int, unit: str) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, unit=unit, disable=not args.progress or total == 0)


def train_policies(args: argparse.Namespace,
                   rows: dict[tuple[str, int], Config]) -> list[str]:
    """Train the models whose folder holds none of their settings (all with ``--retrain``),
    longest first; returns the folders trained in this run. Nothing saved is deleted
    without ``--retrain``: a folder holding other work (another model, or an interrupted
    run without ``--resume``) stops the run, in one line, before any training."""
    ordered = sorted(rows.items(), key=lambda kv: -kv[1].timesteps)
    if not args.retrain:
        kept = [(f"{name} seed {seed}", cfg, why) for (name, seed), cfg in ordered
                if (why := kept_work(cfg, args.resume))]
        if kept:
            where, cfg, why = kept[0]
            more = f" (and {len(kept) - 1} more)" if len(kept) > 1 else ""
            raise SystemExit(f"cross_preset: {where}: {cfg.out} holds {why}{more}; it is kept")
    todo = []
    for (name, seed), cfg in ordered:
        where = f"{name} seed {seed}"
        if not args.retrain and cached(cfg):
            print(f"{where}: reusing the model in {cfg.out} (trained with these settings)")
            continue
        if args.resume and not args.retrain and resumable(cfg):
            print(f"{where}: continuing the interrupted run in {cfg.out}")
            todo.append(replace(cfg, resume=True))
            continue
        if Path(cfg.out).exists():   # with --retrain, or a folder with nothing saved in it
            print(f"{where}: replacing the run in {cfg.out} "
                  f"({'--retrain' if args.retrain else 'no checkpoint saved'})")
            shutil.rmtree(cfg.out)
        Path(cfg.out).mkdir(parents=True)
        write_atomic(Path(cfg.out) / "settings.json",
                     json.dumps(model_settings(asdict(cfg)), indent=2) + "\n")
        todo.append(cfg)
    if args.jobs > 1:   # one bar over the models; each run's own bar only with --jobs 1
        run_jobs(args, train_row, [(cfg,) for cfg in todo], lambda job, _: None, "model")
    else:
        for cfg in todo:
            train_row(cfg)
    return [cfg.out for cfg in todo]


# --- cells ----------------------------------------------------------------------------------

def digest(path: Path) -> str:
    """The SHA-256 of a model file: a played cell belongs to exactly this model."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def play_cell(player: str, model: str, opponent: str, rules: Rules, deals: int,
              seed: int) -> list[float]:
    """One cell: per-deal wins of ``model`` (a policy file, or an agent spec for the
    reference row) against ``opponent`` on ``rules`` (a job of ``--jobs``; one torch
    thread per process)."""
    torch.set_num_threads(1)
    agent = make_agent(model) if player == "agent" else PolicyAgent(Path(model))
    return deal_wins(agent, make_agent(opponent), rules, deals, seed=seed).tolist()


def cell_key(opponent: str, row: str, seed: int | None, preset: str) -> str:
    return f"{opponent}|{row}|{'-' if seed is None else seed}|{preset}"


def table_size(preset: str, players: int) -> int:
    """The players at a table of ``preset`` asked for ``players`` (team play has 4)."""
    return Config(preset=preset, players=players).rules()[0].num_players


def agent_specs(name: str, presets: list[str], args: argparse.Namespace) -> dict[str, str]:
    """The agent spec that ``name`` (``--heuristic``, or ``random_play``) stands for on
    each preset: each preset's reference heuristic for ``reference``, else itself."""
    if name != REFERENCE:
        return {p: name for p in presets}
    try:
        return {p: reference_of(p, table_size(p, args.players), args.reference)
                for p in presets}
    except ValueError as e:
        raise SystemExit(f"--heuristic {REFERENCE}: {e}") from None


def play_cells(args: argparse.Namespace, presets: list[str], opponents: list[str],
               rows: dict[tuple[str, int], Config], out: Path) -> tuple[dict[str, dict], int]:
    """Every cell, played or (with ``--resume``) kept from ``cells.json`` when it was
    played by the same model against the same opponent on the same deals; ``cells.json``
    is rewritten after every cell. Returns the cells and how many were played in this
    run."""
    path = out / "cells.json"
    kept = read_json(path) if args.resume else None
    kept = kept if isinstance(kept, dict) else {}
    rules = {p: Config(preset=p, players=args.players).rules()[0] for p in presets}
    players: list[tuple[str, int | None, str, str]] = [
        (name, seed, "policy", str(Path(cfg.out) / "policy.safetensors"))
        for (name, seed), cfg in rows.items()]
    players.append((args.heuristic, None, "agent", args.heuristic))
    specs = {name: agent_specs(name, presets, args) for name in {*opponents, args.heuristic}}
    cells: dict[str, dict] = {}
    todo = []
    for opponent in opponents:
        for name, seed, kind, row_model in players:
            for p in presets:
                model = specs[name][p] if kind == "agent" else row_model
                identity = digest(Path(model)) if kind == "policy" else model
                key = cell_key(opponent, name, seed, p)
                want = {"row": name, "seed": seed, "preset": p, "opponent": opponent,
                        "opponent_spec": specs[opponent][p],
                        "model": identity, "players": rules[p].num_players,
                        "deals": args.deals, "deal_seed": args.first_deal}
                old = kept.get(key)
                if isinstance(old, dict) and {k: old.get(k) for k in want} == want \
                        and len(old.get("wins", ())) == args.deals:
                    cells[key] = old
                else:
                    todo.append((key, want, kind, model, specs[opponent][p], p))
    if cells:
        print(f"keeping {len(cells)} cells already played; playing {len(todo)}")

    def done(job: tuple, wins: list[float]) -> None:
        key, want = job[0], job[1]
        cells[key] = {**want, **win_rate(np.asarray(wins), want["players"]), "wins": wins}
        write_atomic(path, json.dumps(cells) + "\n")

    write_atomic(path, json.dumps(cells) + "\n")
    run_jobs(args, _Cell(rules, args.deals, args.first_deal), todo, done, "cell")
    return cells, len(todo)


class _Cell:
    """``play_cell`` for one job tuple of :func:`play_cells` (picklable for ``--jobs``)."""

    def __init__(self, rules: dict[str, Rules], deals: int, seed: int) -> None:
        self.rules, self.deals, self.seed = rules, deals, seed

    def __call__(self, key: str, want: dict, kind: str, model: str, opponent: str,
                 p: str) -> list[float]:
        return play_cell(kind, model, opponent, self.rules[p], self.deals, self.seed)


# --- summaries ------------------------------------------------------------------------------

def per_deal(cells: dict[str, dict], opponent: str, row: str, seeds: list[int | None],
             preset: str) -> np.ndarray:
    """``float[seeds, deals]``: the row's per-deal wins on ``preset``, seed by seed."""
    return np.array([cells[cell_key(opponent, row, s, preset)]["wins"] for s in seeds])


def summarize(cells: dict[str, dict], opponents: list[str], names: list[str],
              seeds_of: dict[str, list[int | None]], presets: list[str],
              players: dict[str, int]) -> dict[str, dict]:
    """``result[opponent][row][preset]``: the mean over seeds (win rate with its interval
    over deals, each deal's wins averaged over the seeds) and every seed's win rate."""
    result: dict[str, dict] = {}
    for o in opponents:
        result[o] = {}
        for name in names:
            result[o][name] = {}
            for p in presets:
                wins = per_deal(cells, o, name, seeds_of[name], p)
                by_seed = [float(w.mean()) for w in wins]
                mean = win_rate(wins.mean(axis=0), players[p])
                result[o][name][p] = {**mean, "games": mean["games"] * len(wins),
                                      "seeds": seeds_of[name], "by_seed": by_seed,
                                      "seed_min": min(by_seed), "seed_max": max(by_seed)}
    return result


def difference(cells: dict[str, dict], opponent: str, a: str, b: str, preset: str,
               seeds_of: dict[str, list[int | None]]) -> dict[str, Any]:
    """Row ``a`` minus row ``b`` on ``preset``, paired by deal (each deal's wins averaged
    over each row's seeds): the mean and its 95% interval over deals, and how many of
    ``a``'s seeds are above ``b``'s mean."""
    wins_a = per_deal(cells, opponent, a, seeds_of[a], preset)
    wins_b = per_deal(cells, opponent, b, seeds_of[b], preset)
    d = mean_interval(wins_a.mean(axis=0) - wins_b.mean(axis=0))
    b_mean = float(wins_b.mean())
    return {"a": a, "b": b, "preset": preset, **d,
            "seeds_above": int(sum(w.mean() > b_mean for w in wins_a)),
            "seeds_below": int(sum(w.mean() < b_mean for w in wins_a)), "seeds": len(wins_a)}


def differences(cells: dict[str, dict], opponents: list[str], names: list[str],
                seeds_of: dict[str, list[int | None]], presets: list[str],
                reference: str) -> dict[str, dict[str, list[dict]]]:
    """The paired comparisons of the study (see the module doc), per opponent."""
    big = big_mixture(presets)
    out: dict[str, dict[str, list[dict]]] = {}
    for o in opponents:
        def diff(a: str, b: str, p: str, o: str = o) -> dict[str, Any]:
            return difference(cells, o, a, b, p, seeds_of)
        out[o] = {
            "specialist_minus_mixture": [diff(p, m, p) for m in (MIXTURE, big) for p in presets],
            "rules_minus_no_rules": [diff(big, NO_RULES, p) for p in presets],
            "minus_reference": [diff(n, reference, p) for n in names if n != reference
                                for p in presets],
        }
    return out


def points(x: float) -> str:
    return f"{100 * x:+.1f}"


def verdict(d: dict[str, Any]) -> str:
    """One line about a difference that claims only what its interval supports."""
    a, b, p = d["a"], d["b"], d["preset"]
    shown = f"{points(d['mean'])} points [{points(d['low'])}, {points(d['high'])}]"
    if d["low"] > 0:
        who = f"`{a}` beats `{b}` on {p}: {shown}"
        agree = d["seeds_above"]
    elif d["high"] < 0:
        who = f"`{b}` beats `{a}` on {p}: {shown}"
        agree = d["seeds_below"]
    else:
        return f"no difference shown between `{a}` and `{b}` on {p}: {shown}"
    if d["seeds"] > 1:
        who += f" ({agree} of {d['seeds']} seeds of `{a}` on that side of `{b}`'s mean)"
    return who


def rate(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{100 * x:.1f}"


def tables(record: dict[str, Any]) -> str:
    """``matrix.md``: win rates, seed spreads, differences and verdicts."""
    presets, reference = record["presets"], record["reference"]
    lines = ["# Cross-preset study", "", f"`{record['command']}`", "",
             "Win rates in %, mean over seeds with its 95% interval over "
             f"{record['deals']['count']} {record['deals']['namespace']} duplicate deals "
             f"(deal seeds {record['deal_seeds'][0]}.."
             f"{record['deal_seeds'][-1]}, the same for every cell); below each, the seeds' "
             "range. Differences are paired by deal, in percentage points. Intervals are over "
             "deals for these training seeds.", ""]
    specs = record.get("reference_specs") or {}
    shown = ", ".join(f"`{spec}` on {', '.join(p for p in presets if specs[p] == spec)}"
                      for spec in dict.fromkeys(specs.values()))
    for row, budget in record["budgets"].items():
        lines.append(f"- `{row}`: {budget:,} learner decisions per seed" if budget else
                     f"- `{row}`: the heuristic itself (reference, no training)"
                     + (f": {shown}" if row == reference and shown else ""))
    lines.append("")
    head = ["| row \\ played on | " + " | ".join(presets) + " |",
            "|---|" + "---:|" * len(presets)]
    for opponent, matrix in record["matrix"].items():
        lines += [f"## Against `{opponent}`", "", *head]
        for name, row in matrix.items():
            cells = [f"{rate(c['win_rate'])} [{rate(c['low'])}, {rate(c['high'])}]"
                     + (f"<br>seeds {rate(c['seed_min'])}..{rate(c['seed_max'])}"
                        if len(c["by_seed"]) > 1 else "") for c in (row[p] for p in presets)]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        lines.append("")
        diffs = record["differences"][opponent]
        for title, key in (("Specialist on its own preset minus a mixture",
                            "specialist_minus_mixture"),
                           ("The rule vector: with minus without", "rules_minus_no_rules"),
                           (f"Each row minus `{reference}`", "minus_reference")):
            lines += [f"### {title} (against `{opponent}`)", "",
                      "| a - b | preset | difference [95% interval] |", "|---|---|---:|"]
            lines += [f"| {d['a']} - {d['b']} | {d['preset']} | {points(d['mean'])} "
                      f"[{points(d['low'])}, {points(d['high'])}] |" for d in diffs[key]]
            lines.append("")
        lines += [f"### Verdicts (against `{opponent}`)", "",
                  "A difference is claimed only when its 95% interval excludes 0.", ""]
        lines += [f"- {verdict(d)}" for key in ("specialist_minus_mixture",
                                                "rules_minus_no_rules", "minus_reference")
                  for d in diffs[key]]
        lines.append("")
    return "\n".join(lines)


def draw_heatmap(record: dict[str, Any], path: Path) -> None:
    """Win rates against the heuristic (rows = policies and the reference, columns =
    presets) and the paired differences, each cell annotated with its interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    presets, opponent = record["presets"], record["heuristic"]
    matrix = record["matrix"][opponent]
    names = list(matrix)
    diffs = record["differences"][opponent]
    pairs = [("specialist - mixture", [d for d in diffs["specialist_minus_mixture"]
                                       if d["b"] == MIXTURE]),
             (f"specialist - {big_mixture(presets)}",
              [d for d in diffs["specialist_minus_mixture"] if d["b"] != MIXTURE]),
             (f"{big_mixture(presets)} - {NO_RULES}", diffs["rules_minus_no_rules"])]
    width = max(7.0, 3.0 + 1.25 * len(presets))
    fig, (top, bottom) = plt.subplots(
        2, 1, figsize=(width, 2.4 + 0.62 * (len(names) + len(pairs))),
        gridspec_kw={"height_ratios": [len(names), len(pairs) + 0.6]})

    def panel(ax: Any, values: np.ndarray, labels: list[list[str]], rows: list[str],
              title: str, **color: Any) -> None:
        image = ax.imshow(values, aspect="auto", **color)
        ax.set_xticks(range(len(presets)), presets, rotation=30, ha="right")
        ax.set_yticks(range(len(rows)), rows)
        ax.set_title(title, fontsize=10)
        for i, row in enumerate(labels):
            for j, text in enumerate(row):
                ax.text(j, i, text, ha="center", va="center", fontsize=7)
        fig.colorbar(image, ax=ax, fraction=0.03, pad=0.01)

    cells = [[matrix[n][p] for p in presets] for n in names]
    panel(top, np.array([[100 * c["win_rate"] for c in row] for row in cells]),
          [[f"{rate(c['win_rate'])}\n[{rate(c['low'])}, {rate(c['high'])}]" for c in row]
           for row in cells], names,
          f"win rate % against {opponent}\n(mean over seeds, 95% interval over deals)",
          cmap="RdYlGn", vmin=0, vmax=100)
    values = np.array([[100 * d["mean"] for d in ds] for _, ds in pairs])
    bound = max(1.0, float(np.nanmax(np.abs(values))))
    panel(bottom, values,
          [[f"{points(d['mean'])}\n[{points(d['low'])}, {points(d['high'])}]" for d in ds]
           for _, ds in pairs], [label for label, _ in pairs],
          "paired differences, points\n(same deals, 95% interval over deals)", cmap="RdBu",
          vmin=-bound, vmax=bound)
    top.set_xlabel("")
    bottom.set_xlabel("played on")
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    write_atomic(path, buffer.getvalue())


# --- main -----------------------------------------------------------------------------------

def check_settings(args: argparse.Namespace, presets: list[str], out: Path,
                   rows: dict[tuple[str, int], Config]) -> None:
    """Raise ``SystemExit`` naming the first bad setting, before anything is written."""
    if len(presets) < 2:
        raise SystemExit("--presets: give at least two presets (a mixture of one preset is "
                         "its specialist)")
    if len(set(presets)) != len(presets):
        raise SystemExit(f"--presets: a preset is named twice in {args.presets!r}")
    for cfg in rows.values():
        cfg.check()
    for spec in set(agent_specs(args.heuristic, presets, args).values()):
        try:
            make_agent(spec)
        except ValueError as e:
            raise SystemExit(f"--heuristic: {e}") from None
    if out.exists() and not out.is_dir():
        raise SystemExit(f"--out {str(out)!r} is a file, not a folder")
    parent = next((p for p in [out, *out.parents] if p.exists()), Path("."))
    if not parent.is_dir():
        raise SystemExit(f"--out {str(out)!r}: {parent} is not a folder")


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    args.first_deal = deal_seed("evaluation", args.deal_seed, 0, args.deals)
    presets = list(PRESETS) if args.presets == "all" else args.presets.split(",")
    out = Path(args.out)
    rows = row_configs(args, presets, out)
    check_settings(args, presets, out, rows)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    trained = train_policies(args, rows)
    middle = time.perf_counter()
    opponents = [args.heuristic, *([RANDOM] if args.also_random_play else [])]
    cells, played = play_cells(args, presets, opponents, rows, out)
    names = list(dict.fromkeys(name for name, _ in rows)) + [args.heuristic]
    seeds_of: dict[str, list[int | None]] = {name: [s for n, s in rows if n == name]
                                             for name in names}
    seeds_of[args.heuristic] = [None]
    players = {p: table_size(p, args.players) for p in presets}
    budgets = {name: next(cfg.trained_timesteps() for (n, _), cfg in rows.items() if n == name)
               for name in names[:-1]}
    command = "python experiments/cross_preset.py " + shlex.join(argv)
    record = {
        **provenance(command, describe(args.first_deal, args.deals)),
        "args": {**vars(args), "reference": str(args.reference)}, "presets": presets,
        "heuristic": args.heuristic, "reference": args.heuristic,
        "reference_specs": agent_specs(args.heuristic, presets, args), "opponents": opponents,
        "budgets": {**budgets, args.heuristic: 0},
        "seeds": list(range(args.seed, args.seed + args.seeds)),
        "deal_seeds": [args.first_deal, args.first_deal + args.deals - 1],
        "trained_this_run": trained, "cells_played_this_run": played,
        "train_seconds": round(middle - start, 1),
        "play_seconds": round(time.perf_counter() - middle, 1),
        "models": {f"{n}/seed-{s}": cfg.out for (n, s), cfg in rows.items()},
        "matrix": summarize(cells, opponents, names, seeds_of, presets, players),
        "differences": differences(cells, opponents, names, seeds_of, presets, args.heuristic),
    }
    write_atomic(out / "matrix.json", json.dumps(record, indent=2) + "\n")
    text = tables(record)
    write_atomic(out / "matrix.md", text)
    draw_heatmap(record, out / "heatmap.png")
    print(text)
    print(f"wrote {out / 'matrix.json'}, {out / 'matrix.md'} and {out / 'heatmap.png'}")


if __name__ == "__main__":
    sys.exit(run_command(main, "cross_preset"))
