"""Behaviour cloning, then RL fine-tuning, over several seeds: one command.

    python experiments/clone_finetune.py --seeds 3 --jobs 2 --out runs/clone-finetune-2p

The recipes of the shipped ``net:official-2p`` and (its clone stage, on
``--preset house_dobon --players 4``) ``net:house_dobon-4p``, as one command. For
each training seed:

1. **Clone** (``distill.py``): a network (``--hidden``, or the one of ``--init-net``)
   learns the choices of ``--teacher`` from the observation and mask alone,
   DAgger-style (round 0 the teacher plays, later rounds the network plays and the
   teacher labels; a network from ``--init-net`` plays from round 0).
2. **Fine-tune** (``train_ppo.py --init-net``): PPO from the clone against a pool of
   its own snapshots and ``--heuristics`` (``--heuristic-share`` of the draws), with a
   KL anchor (``--anchor``) that keeps the policy near the clone.
3. **Measure**: every seed's clone and fine-tuned network against ``--eval-opponent``
   on the same ``--deals`` fresh duplicate deals (deal seeds from 1,000,000: nothing
   is chosen on them), with the gain of fine-tuning paired by deal.

Each stage runs as its own process (the commands are recorded) and is skipped when
``--out`` holds it finished already; a stage stopped half-way continues from its last
round or checkpoint. So after a kill or Ctrl-C the same command continues the run.
``--jobs`` seeds train side by side (one torch thread each). Writes
``--out/seed-<k>/{clone,finetune}/`` and ``--out/clone_finetune.{json,md}``.
Budget of the defaults: about 1.5 hours per seed on one core of a 2-core machine
(cloning 1 hour, fine-tuning 25-35 minutes), so 3 seeds with ``--jobs 2`` in about
3.5 hours.
"""

from __future__ import annotations

from uno_env.launch import guard

guard("clone_finetune", __name__)

import json
import shlex
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from uno_env.extras import require

require("clone_finetune.py", "train")

from uno_agents import make_agent
from uno_agents.net import NetAgent, write_json
from uno_env import Rules
from uno_env.cli import run_command, run_process
from uno_env.deals import describe
from uno_env.evaluation import FRESH_SEED, deal_wins, mean_interval, win_rate
from uno_env.files import write_atomic
from uno_env.tooling.dataclass_flags import (
    check_bounds,
    check_file,
    check_folder,
    parse_dataclass,
    widths,
)
from uno_env.tooling.machine import provenance
from uno_env.tooling.stages import claim_stage, stage_settings

HERE = Path(__file__).parent


@dataclass
class Config:
    """Every setting of a run; each field is a CLI flag (``clone_states``:
    ``--clone-states``)."""

    preset: str = "official"       # the rules of every game
    players: int = 2               # players per game
    teacher: str = "improved:official-2p-exit-rp"  # the agent the clone learns from
    init_net: str = ""             # the clone starts from this network (empty: a new one)
    clone_opponents: str = "tuned,random_play,greedy"  # opponents while cloning
    hidden: str = "512,512,256"    # the network's hidden layer widths
    encoder: str = "packed"        # the network's encoder (packed, dense: see train_ppo.py)
    clone_states: int = 700_000    # labelled decisions per cloning round
    clone_rounds: int = 3          # round 0: the teacher plays; later: the network (DAgger)
    clone_epochs: int = 4          # passes over all data so far, per round
    clone_games: int = 1024        # games played side by side while cloning
    opponents: str = "self-play"   # fine-tuning opponents: "self-play" (a pool) or specs
    heuristics: str = "tuned,random_play"  # agents mixed into the self-play pool
    heuristic_share: float = 0.8   # their share of the pool's draws
    anchor: float = 0.05           # weight of KL(policy || clone) in the PPO loss
    learning_rate: float = 1e-4    # PPO's Adam step size
    ent_coef: float = 0.001        # PPO's entropy bonus
    timesteps: int = 2_000_000     # fine-tuning learner decisions per seed
    num_envs: int = 256            # games stepped together while fine-tuning
    n_steps: int = 64              # decisions per game per PPO rollout
    batch_size: int = 4096         # decisions per PPO gradient step
    curve_every: int = 250_000     # fine-tuning decisions between evaluation-curve points
    curve_deals: int = 1000        # fixed deals of each curve point (TensorBoard; 0: none)
    seeds: int = 3                 # training seeds seed .. seed + seeds - 1
    seed: int = 0
    jobs: int = 1                  # seeds trained side by side
    eval_opponent: str = "tuned"   # every network is measured against it
    deals: int = 10_000            # fresh duplicate deals of the measurement
    out: str = "runs/clone-finetune"
    progress: bool = True

    def check(self) -> None:
        """Raise ``SystemExit`` naming the first bad setting (before any work starts)."""
        check_bounds(self, at_least_one=("players", "clone_states", "clone_rounds",
                                         "clone_epochs", "clone_games", "timesteps", "num_envs",
                                         "n_steps", "batch_size", "curve_every", "seeds", "jobs",
                                         "deals"),
                     non_negative=("anchor", "ent_coef", "heuristic_share", "seed",
                                   "curve_deals"),
                     positive=("learning_rate",))
        check_folder(self.out)
        if self.heuristic_share > 1:
            raise SystemExit(f"bad setting: --heuristic-share must be at most 1, "
                             f"got {self.heuristic_share}")
        try:
            Rules.preset(self.preset, num_players=self.players)
            widths(self.hidden, "hidden")
            specs = [self.teacher, self.eval_opponent, *self.clone_opponents.split(","),
                     *self.heuristics.split(",")]
            if self.opponents != "self-play":
                specs += self.opponents.split(",")
            for spec in specs:
                make_agent(spec)
        except ValueError as e:
            raise SystemExit(f"bad setting: {e}") from None
        if self.init_net:
            check_file(self.init_net, "init_net")


def quiet(cfg: Config) -> list[str]:
    """No progress bars in the stages when asked, or when seeds run side by side."""
    return ["--no-progress"] if not cfg.progress or cfg.jobs > 1 else []


def resume_flag(out: Path) -> list[str]:
    """``--resume`` for a stage that left a checkpoint in ``out``, so it continues."""
    return ["--resume"] if any((out / "checkpoints").glob("*")) else []


def clone_command(cfg: Config, seed: int, out: Path) -> list[str]:
    """The ``distill.py`` command of one seed's clone."""
    command = [sys.executable, str(HERE / "distill.py"), "--preset", cfg.preset,
               "--players", str(cfg.players),
               "--teacher", cfg.teacher, "--opponents", cfg.clone_opponents,
               "--hidden", cfg.hidden, "--states", str(cfg.clone_states),
               "--rounds", str(cfg.clone_rounds), "--epochs", str(cfg.clone_epochs),
               "--num-games", str(cfg.clone_games), "--encoder", cfg.encoder,
               "--curve-deals", "0", "--eval-deals", "0", "--seed", str(seed),
               *(["--init-net", cfg.init_net] if cfg.init_net else []),
               "--out", str(out), *quiet(cfg)]
    return command + resume_flag(out)


def finetune_command(cfg: Config, seed: int, clone: Path, out: Path) -> list[str]:
    """The ``train_ppo.py`` command of one seed's fine-tuning."""
    command = [sys.executable, str(HERE / "train_ppo.py"), "--preset", cfg.preset,
               "--players", str(cfg.players),
               "--opponents", cfg.opponents, "--heuristics", cfg.heuristics,
               "--heuristic-share", str(cfg.heuristic_share), "--init-net", str(clone),
               "--anchor", str(cfg.anchor), "--ent-coef", str(cfg.ent_coef),
               "--learning-rate", str(cfg.learning_rate), "--timesteps", str(cfg.timesteps),
               "--num-games", str(cfg.num_envs), "--n-steps", str(cfg.n_steps),
               "--batch-size", str(cfg.batch_size), "--eval-every", str(cfg.curve_every),
               "--curve-deals", str(cfg.curve_deals), "--curve-opponents", cfg.eval_opponent,
               "--eval-deals", "0", "--seed", str(seed),
               "--out", str(out), *quiet(cfg)]
    return command + resume_flag(out)


def clone_done(cfg: Config, out: Path) -> bool:
    """Whether the clone in ``out`` finished every round."""
    record = out / "record.json"
    return record.exists() and len(_read(record)["rounds"]) >= cfg.clone_rounds


def finetune_done(out: Path) -> bool:
    """Whether the fine-tuning in ``out`` finished (it wrote its record)."""
    return (out / "model.safetensors").exists() and (out / "record.json").exists()


def _read(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def train_seed(cfg: Config, seed: int) -> dict[str, Any]:
    """Clone and fine-tune one seed (each stage skipped when finished under the same
    settings: :func:`uno_env.tooling.stages.claim_stage`); its paths, commands and the
    seconds each stage took by its own clock (a resumed stage continues its clock)."""
    root = Path(cfg.out) / f"seed-{seed}"
    clone, finetune = root / "clone", root / "finetune"
    commands = {"clone": clone_command(cfg, seed, clone)}
    claim_stage(clone, stage_settings(commands["clone"], [cfg.init_net] if cfg.init_net else []),
                f"seed {seed}'s clone")
    if not clone_done(cfg, clone):
        print(f"seed {seed}: cloning {cfg.teacher}", flush=True)
        run_process(commands["clone"])
    commands["finetune"] = finetune_command(cfg, seed, clone / "model.safetensors", finetune)
    claim_stage(finetune, stage_settings(commands["finetune"], [clone / "model.safetensors"]),
                f"seed {seed}'s fine-tuning")
    if not finetune_done(finetune):
        print(f"seed {seed}: fine-tuning {cfg.timesteps:,} decisions", flush=True)
        run_process(commands["finetune"])
    return {"seed": str(seed), "clone": str(clone / "model.safetensors"),
            "finetune": str(finetune / "model.safetensors"),
            **{f"{k}_command": recorded(v) for k, v in commands.items()},
            "seconds": {k: _read(d / "record.json")["seconds"]
                        for k, d in (("clone", clone), ("finetune", finetune))}}


def recorded(command: list[str]) -> str:
    """A stage's command as a user types it from the repository's root."""
    return f"python experiments/{Path(command[1]).name} {shlex.join(command[2:])}"


def measure(cfg: Config, seeds: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every seed's clone and fine-tuned network on the same fresh deals; the gain of
    fine-tuning paired by deal."""
    rules = Rules.preset(cfg.preset, num_players=cfg.players)
    opponent = make_agent(cfg.eval_opponent)
    rows = []
    for s in seeds:
        wins = {k: deal_wins(NetAgent(s[k]), opponent, rules, cfg.deals, FRESH_SEED)
                for k in ("clone", "finetune")}
        rows.append({**s, "clone_versus": win_rate(wins["clone"], cfg.players),
                     "versus": win_rate(wins["finetune"], cfg.players),
                     "gain": mean_interval(wins["finetune"] - wins["clone"])})
    return rows


def report(out: Path, record: dict[str, Any]) -> None:
    """``clone_finetune.json`` and its table ``clone_finetune.md`` (atomic writes)."""
    write_json(out / "clone_finetune.json", record)
    cfg = record["config"]
    lines = [f"Against `{cfg['eval_opponent']}` on `{cfg.get('preset', 'official')}` at "
             f"{cfg['players']} players on "
             f"{cfg['deals']:,} fresh duplicate deals (deal seeds from {FRESH_SEED:,}); "
             "95% intervals over deals, gains paired by deal.", "",
             "| seed | clone | fine-tuned | gain of fine-tuning | minutes (clone + fine-tuning) |",
             "|---:|---:|---:|---:|---:|"]
    for r in record["seeds"]:
        c, v, g = r["clone_versus"], r["versus"], r["gain"]
        minutes = {k: s / 60 for k, s in r["seconds"].items()}
        lines.append(f"| {r['seed']} | {c['win_rate']:.2%} [{c['low']:.2%}, {c['high']:.2%}] "
                     f"| {v['win_rate']:.2%} [{v['low']:.2%}, {v['high']:.2%}] "
                     f"| {g['mean']:+.2%} [{g['low']:+.2%}, {g['high']:+.2%}] "
                     f"| {minutes['clone']:.0f} + {minutes['finetune']:.0f} |")
    rates = [r["versus"]["win_rate"] for r in record["seeds"]]
    lines += ["", f"Fine-tuned, mean over {len(rates)} seeds: {sum(rates) / len(rates):.2%} "
                  f"(from {min(rates):.2%} to {max(rates):.2%})."]
    write_atomic(out / "clone_finetune.md", "\n".join(lines) + "\n")


def run(cfg: Config, command: str) -> dict[str, Any]:
    """Train every seed (``--jobs`` at once), measure them, write the record."""
    cfg.check()
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    seeds = range(cfg.seed, cfg.seed + cfg.seeds)
    with ThreadPoolExecutor(cfg.jobs) as pool:
        trained = list(pool.map(lambda k: train_seed(cfg, k), seeds))
    record = {**provenance(command, describe(FRESH_SEED, cfg.deals)), "config": asdict(cfg),
              "deal_seed": FRESH_SEED, "seeds": measure(cfg, trained)}
    report(out, record)
    print((out / "clone_finetune.md").read_text(), end="")
    return record


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    cfg = parse_dataclass(Config, __doc__.split("\n\n")[0], argv)
    run(cfg, "python experiments/clone_finetune.py " + shlex.join(argv))


if __name__ == "__main__":
    sys.exit(run_command(main, "clone_finetune"))
