"""Learner speed, end to end, in one run (``make bench-learn``).

Three learners train PPO on the same games (preset, players, opponents) with the
same PPO settings (rollouts of ``--num-envs`` games x ``--n-steps`` decisions,
``--n-epochs`` passes in minibatches of ``--batch-size``), each for ``--rollouts``
timed rollouts after ``--warmup`` untimed ones:

* **(a) SB3**: sb3-contrib's MaskablePPO on :class:`uno_env.envs.vector.UnoVecEnv`, with the
  default network of ``experiments/train_ppo.py`` (separate 128-128 tanh perceptrons
  for the policy and the value over the scaled dense observation);
* **(b) core, same network**: the project's learner core
  (:mod:`uno_agents.training`) with that very network
  (:class:`~uno_agents.training.nets.DenseActorCritic`: the same layers, checked by
  parameter count);
* **(c) core, packed encoder**: the core with the packed encoder
  (:class:`~uno_agents.training.encoder.PackedNet`, widths ``--hidden``).

Each line gives learner steps/s (sampling plus update) and where the time went
(engine, network inference, update); beside it, the **compute floor** of its
network: the same forward passes (``n_steps`` batches of ``num_envs`` rows) and the
same update (``n_epochs`` passes over the rollout) timed alone, with no engine. On a
GPU (``--device cuda``, or ``auto`` where one is present) all three run there, SB3
through its harness's own ``--device``.

It writes a JSON record (``--out``) and ends with one line ``learner speedup over
SB3: <N>x``, N being (c)'s steps/s over (a)'s, both on the same device (on a GPU,
the core's CPU lines are printed too, for reference). The targets, on a 2-core machine:
(b) within 1.25x of its floor, and (c) at least 5x (a).

On a shared machine the speed changes from minute to minute, so the learners are
measured in ``--rounds`` rounds, each learner once per round in turn (then each
core learner's floor), and the ratios are the medians of the rounds' ratios:
measurements taken seconds apart compare better than ones taken minutes apart.
"""

from __future__ import annotations

from uno_env.launch import guard

guard("bench_learn", __name__)

import copy
import dataclasses
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from uno_env.extras import require

require("bench_learn.py", "train")

import numpy as np
import torch

from uno_agents.training.device import resolve_device
from uno_agents.training.encoder import PackedLayout, multiply_adds
from uno_agents.training.nets import DenseActorCritic, build_net, describe, parameter_count
from uno_agents.training.ppo import PPOSettings, make_optimizer, update
from uno_agents.training.rollout import collect
from uno_agents.training.workers import make_shards
from uno_env import Rules
from uno_env.files import write_atomic
from uno_env.tooling.dataclass_flags import check_bounds, parse_dataclass, widths
from uno_env.tooling.machine import machine as machine_now
from uno_env.tooling.machine import provenance


@dataclass
class Settings:
    """The benchmark's settings; each field is a flag (``n_steps`` -> ``--n-steps``)."""

    preset: str = "official"       # preset of the games
    players: int = 2               # players per game
    opponents: str = "greedy"      # the agent in every other seat
    num_envs: int = 256            # games stepped together (SB3's and the core's)
    n_steps: int = 64              # decisions per game per rollout
    batch_size: int = 4096         # decisions per gradient step
    n_epochs: int = 4              # passes over each rollout
    hidden: str = "96,96"          # widths of the packed encoder (c)
    rollouts: int = 2              # timed rollouts of each learner per round
    rounds: int = 3                # rounds: every learner measured once in each, in turn
    #                                (the ratios are the medians over rounds)
    warmup: int = 1                # untimed rollouts before them
    threads: int = 2               # torch threads (every learner, the floors too)
    workers: int = 0               # processes playing the core's games (0: in this process)
    device: str = "auto"           # where the core's networks run: auto, cpu or cuda
    seed: int = 0                  # seed of the games and the networks
    out: str = "docs/results/bench-learn.json"  # the JSON record ("" writes none)

    def check(self) -> None:
        check_bounds(self, at_least_one=("players", "num_envs", "n_steps", "batch_size",
                                         "n_epochs", "rollouts", "rounds", "threads"),
                     non_negative=("warmup", "workers"))
        if self.workers > self.num_envs:
            raise SystemExit("--workers needs at least as many --num-envs")
        try:
            Rules.preset(self.preset, num_players=self.players)
            widths(self.hidden, "hidden")
            resolve_device(self.device)
        except ValueError as e:
            raise SystemExit(f"bad setting: {e}") from None


def machine() -> dict[str, Any]:
    """The CPU, its cores, the GPU if any, the engine's backend and the library
    versions."""
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    return {**machine_now(), "gpu": gpu, "python": sys.version.split()[0],
            "torch": torch.__version__, "numpy": np.__version__,
            "load_average": [round(x, 2) for x in os.getloadavg()]}


def ppo_settings(cfg: Settings) -> PPOSettings:
    return PPOSettings(n_epochs=cfg.n_epochs, batch_size=cfg.batch_size)


class SB3Learner:
    """(a): MaskablePPO on the VecEnv, timed by its rollout and training phases."""

    def __init__(self, cfg: Settings) -> None:
        from stable_baselines3.common.vec_env import VecMonitor

        from uno_agents.training.sb3 import Config, build_model, make_env

        ppo = Config(preset=cfg.preset, players=cfg.players, opponents=cfg.opponents,
                     num_envs=cfg.num_envs, n_steps=cfg.n_steps, batch_size=cfg.batch_size,
                     n_epochs=cfg.n_epochs, seed=cfg.seed, progress=False, device=cfg.device)
        self.cfg = cfg
        self.env = make_env(ppo, [])
        self.model = build_model(ppo, VecMonitor(self.env), Path(os.devnull))
        self.model.tensorboard_log = None
        self.phases = {"collect": 0.0, "update": 0.0}
        for name, method in (("collect", "collect_rollouts"), ("update", "train")):
            setattr(self.model, method, self._timed(name, getattr(self.model, method)))
        self.label = "(a) SB3 MaskablePPO on UnoVecEnv"
        self.network = "SB3 MlpPolicy 128-128"
        self.parameters = parameter_count(self.model.policy)
        if cfg.warmup:
            self.model.learn(cfg.warmup * cfg.num_envs * cfg.n_steps)

    def _timed(self, name: str, method: Any) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                self.phases[name] += time.perf_counter() - start
        return run

    def measure(self, rollouts: int) -> dict[str, float]:
        self.phases.update(collect=0.0, update=0.0)
        self.env.seconds = 0.0
        start = time.perf_counter()
        self.model.learn(rollouts * self.cfg.num_envs * self.cfg.n_steps,
                         reset_num_timesteps=False)
        return {"seconds": time.perf_counter() - start, "engine": self.env.seconds,
                "network": self.phases["collect"] - self.env.seconds,
                "update": self.phases["update"]}

    def close(self) -> None:
        self.env.close()


class CoreLearner:
    """(b) or (c): the core's collect and update, and the network's floor alone."""

    def __init__(self, cfg: Settings, rules: Rules, net: torch.nn.Module, label: str,
                 device: torch.device) -> None:
        self.cfg, self.device, self.label = cfg, device, label
        self.net = net.to(device)
        self.network = describe(net)
        self.parameters = parameter_count(net)
        self.games = make_shards(rules, cfg.num_envs, cfg.opponents, cfg.seed, net.raw_kind,
                                 PackedLayout.of(rules), cfg.workers)
        self.optimizer = make_optimizer(self.net, 3e-4)
        self.generator = torch.Generator(device=device).manual_seed(cfg.seed)
        self.rollout: Any = None
        for _ in range(cfg.warmup):
            self.measure(1)

    def measure(self, rollouts: int) -> dict[str, float]:
        cfg, times = self.cfg, {"engine": 0.0, "network": 0.0, "update": 0.0}
        start = time.perf_counter()
        for _ in range(rollouts):
            self.rollout = collect(self.games, self.net, cfg.n_steps, self.device,
                                   self.generator)
            before = time.perf_counter()
            update(self.net, self.optimizer, self.rollout, ppo_settings(cfg), self.generator)
            sync(self.device)
            times["update"] += time.perf_counter() - before
            times["engine"] += self.rollout.engine_seconds
            times["network"] += self.rollout.network_seconds
        return {"seconds": time.perf_counter() - start, **times}

    def floor(self) -> float:
        rows = np.concatenate([shard.rows() for shard in self.games])
        return compute_floor(self.cfg, self.net, rows, self.rollout, self.device)

    def close(self) -> None:
        for shard in self.games:
            shard.close()


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def compute_floor(cfg: Settings, net: torch.nn.Module, rows: np.ndarray, rollout: Any,
                  device: torch.device) -> float:
    """Seconds of one rollout's network work alone: ``n_steps`` forward passes over
    ``num_envs`` rows (inputs already on the device) and the update; the median of 3,
    as the learner's time is a mean over its rollouts."""
    raw = torch.from_numpy(rows).to(device)
    net = copy.deepcopy(net)
    optimizer = make_optimizer(net, 3e-4)
    generator = torch.Generator(device=device).manual_seed(1)
    times = []
    for _ in range(3):
        sync(device)
        start = time.perf_counter()
        with torch.no_grad():
            for _ in range(cfg.n_steps):
                net.evaluate(net.prepare(raw), rollout.rules_table, None)
        update(net, optimizer, rollout, ppo_settings(cfg), generator)
        sync(device)
        times.append(time.perf_counter() - start)
    return sorted(times)[1]


def summary(learner: Any, rounds: list[dict[str, float]], floors: list[float],
            cfg: Settings) -> dict[str, Any]:
    """A learner's line: steps/s over every round, where the time went, its floor."""
    per_rollout = cfg.num_envs * cfg.n_steps
    seconds = sum(r["seconds"] for r in rounds)
    steps = len(rounds) * cfg.rollouts * per_rollout
    line = {"learner": learner.label, "network": learner.network,
            "parameters": int(learner.parameters), "steps": steps, "seconds": seconds,
            "steps_per_second": steps / seconds,
            "round_steps_per_second": [cfg.rollouts * per_rollout / r["seconds"]
                                       for r in rounds],
            **{f"{k}_seconds": sum(r[k] for r in rounds) for k in ("engine", "network",
                                                                    "update")}}
    if floors:
        line["floor_seconds_per_rollout"] = float(np.median(floors))
        line["floor_steps_per_second"] = per_rollout / line["floor_seconds_per_rollout"]
        line["round_over_floor"] = [per_rollout / f / s for f, s in
                                    zip(floors, line["round_steps_per_second"], strict=True)]
    if hasattr(learner, "net"):
        line["multiply_adds"] = multiply_adds(learner.net)
        line["device"] = str(learner.device)
    return line


def table(lines: list[dict[str, Any]]) -> str:
    head = ("| learner | network | steps/s | engine s | inference s | update s | floor steps/s "
            "| x floor |\n|---|---|---:|---:|---:|---:|---:|---:|\n")
    rows = []
    for r in lines:
        floor = r.get("floor_steps_per_second")
        over = f"{np.median(r['round_over_floor']):.2f}" if floor else "-"
        rows.append(f"| {r['learner']} | {r['network']} | {r['steps_per_second']:,.0f} | "
                    f"{r['engine_seconds']:.2f} | {r['network_seconds']:.2f} | "
                    f"{r['update_seconds']:.2f} | "
                    + (f"{floor:,.0f} | {over} |" if floor else "- | - |"))
    return head + "\n".join(rows)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    cfg = parse_dataclass(Settings, __doc__.split("\n\n")[0], argv)
    cfg.check()
    torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    rules = Rules.preset(cfg.preset, num_players=cfg.players)
    device = resolve_device(cfg.device)
    print(f"learner benchmark: {cfg.preset} {cfg.players}p vs {cfg.opponents}, "
          f"{cfg.num_envs} games x {cfg.n_steps} steps, {cfg.n_epochs} epochs of "
          f"{cfg.batch_size}, {cfg.rollouts} timed rollouts, {cfg.threads} torch threads",
          flush=True)
    learners: list[Any] = [SB3Learner(cfg)]
    cpu = torch.device("cpu")
    for dev in [cpu] if device.type == "cpu" else [cpu, device]:
        suffix = "" if dev.type == "cpu" else f" --device {dev.type}"
        dense = DenseActorCritic((128, 128))
        if parameter_count(dense) != learners[0].parameters:
            raise RuntimeError("the core's dense network differs from SB3's default")
        learners.append(CoreLearner(cfg, rules, dense, "(b) core, same network" + suffix, dev))
        packed = build_net("packed", widths(cfg.hidden, "hidden"), PackedLayout.of(rules))
        learners.append(CoreLearner(cfg, rules, packed, "(c) core, packed encoder" + suffix,
                                    dev))
    measured: list[list[dict[str, float]]] = [[] for _ in learners]
    floors: list[list[float]] = [[] for _ in learners]
    for k in range(cfg.rounds):
        for i, learner in enumerate(learners):
            measured[i].append(learner.measure(cfg.rollouts))
            if isinstance(learner, CoreLearner):
                floors[i].append(learner.floor())
        over_a = measured[0][-1]["seconds"] / measured[-1][-1]["seconds"]
        over_floor = measured[-2][-1]["seconds"] / (floors[-2][-1] * cfg.rollouts)
        print(f"round {k + 1}/{cfg.rounds}: (c) {over_a:.2f}x (a); (b) {over_floor:.2f}x "
              "its floor", flush=True)
    for learner in learners:
        learner.close()
    lines = [summary(learner, measured[i], floors[i], cfg)
             for i, learner in enumerate(learners)]
    print(table(lines), flush=True)
    a, b, c = lines[0], lines[-2], lines[-1]   # (b) and (c) where (a) runs: like with like
    speedups = [cc / aa for aa, cc in zip(a["round_steps_per_second"],
                                          c["round_steps_per_second"], strict=True)]
    command = "python experiments/bench_learn.py " + " ".join(argv or sys.argv[1:])
    record = {**provenance(command), "settings": dataclasses.asdict(cfg), "machine": machine(),
              "lines": lines,
              "b_over_floor": float(np.median(b["round_over_floor"])),
              "round_speedups_over_sb3": speedups,
              "speedup_over_sb3": float(np.median(speedups)),
              "multiply_adds_ratio": c["multiply_adds"] / b["multiply_adds"]}
    print(f"\n(b) takes {record['b_over_floor']:.2f}x its compute floor (target: at most 1.25x)")
    print(f"the packed encoder costs {record['multiply_adds_ratio']:.2f} of the dense "
          f"network's multiply-adds per sample (target: at most 0.25)")
    if cfg.out:
        write_atomic(Path(cfg.out), json.dumps(record, indent=2) + "\n")
        print(f"record: {cfg.out}")
    print(f"learner speedup over SB3: {record['speedup_over_sb3']:.1f}x")
    return record


if __name__ == "__main__":
    from uno_env.cli import run_command

    sys.exit(run_command(lambda: main() and 0, "bench_learn"))
