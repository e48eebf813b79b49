"""Learner speed, end to end, in one run (``make bench-learn``).

Three learners train PPO on the same games (preset, players, opponents) with the
same PPO settings (rollouts of ``--num-envs`` games x ``--n-steps`` decisions,
``--n-epochs`` passes in minibatches of ``--batch-size``), each for ``--rollouts``
timed rollouts after ``--warmup`` untimed ones:

* **(a) SB3**: sb3-contrib's MaskablePPO on :class:`uno_env.vector.UnoVecEnv`, with the
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
GPU (``--device cuda``, or ``auto`` where one is present) (b) and (c) run there; SB3
stays on the CPU, as the project's SB3 harness runs it.

It writes a JSON record (``--out``) and ends with one line ``learner speedup over
SB3: <N>x``, N being (c)'s steps/s over (a)'s. The targets, on a 2-core machine:
(b) within 1.25x of its floor, and (c) at least 5x (a).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from uno_agents.training.device import resolve_device
from uno_agents.training.encoder import PackedLayout, multiply_adds
from uno_agents.training.nets import DenseActorCritic, build_net, describe
from uno_agents.training.ppo import PPOSettings, make_optimizer, update
from uno_agents.training.rollout import Games, collect
from uno_env import Rules
from uno_env.dataclass_flags import check_bounds, parse_dataclass, widths
from uno_env.tournament_report import write_atomic


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
    hidden: str = "128,128"        # widths of the packed encoder (c)
    rollouts: int = 3              # timed rollouts of each learner
    warmup: int = 1                # untimed rollouts before them
    threads: int = 2               # torch threads (every learner, the floors too)
    device: str = "auto"           # where the core's networks run: auto, cpu or cuda
    seed: int = 0                  # seed of the games and the networks
    out: str = "docs/results/bench-learn.json"  # the JSON record ("" writes none)

    def check(self) -> None:
        check_bounds(self, at_least_one=("players", "num_envs", "n_steps", "batch_size",
                                         "n_epochs", "rollouts", "threads"),
                     non_negative=("warmup",))
        try:
            Rules.preset(self.preset, num_players=self.players)
            widths(self.hidden, "hidden")
            resolve_device(self.device)
        except ValueError as e:
            raise SystemExit(f"bad setting: {e}") from None


def machine() -> dict[str, Any]:
    """The CPU, its cores, the GPU if any, and the library versions."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    return {"cpu": cpu, "cores": os.cpu_count(), "gpu": gpu, "python": sys.version.split()[0],
            "torch": torch.__version__, "numpy": np.__version__,
            "load_average": [round(x, 2) for x in os.getloadavg()]}


def ppo_settings(cfg: Settings) -> PPOSettings:
    return PPOSettings(n_epochs=cfg.n_epochs, batch_size=cfg.batch_size)


def bench_sb3(cfg: Settings, rules: Rules) -> dict[str, Any]:
    """(a): MaskablePPO on the VecEnv, timed by its rollout and training phases."""
    from stable_baselines3.common.vec_env import VecMonitor

    from uno_agents.training.sb3 import Config, build_model, make_env

    ppo = Config(preset=cfg.preset, players=cfg.players, opponents=cfg.opponents,
                 num_envs=cfg.num_envs, n_steps=cfg.n_steps, batch_size=cfg.batch_size,
                 n_epochs=cfg.n_epochs, seed=cfg.seed, progress=False)
    env = make_env(ppo, [])
    model = build_model(ppo, VecMonitor(env), Path(os.devnull))
    model.tensorboard_log = None
    phases = {"collect": 0.0, "update": 0.0}

    def timed(name: str, method: Any) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                phases[name] += time.perf_counter() - start
        return run

    model.collect_rollouts = timed("collect", model.collect_rollouts)   # type: ignore[method-assign]
    model.train = timed("update", model.train)                          # type: ignore[method-assign]
    per_rollout = cfg.num_envs * cfg.n_steps
    if cfg.warmup:
        model.learn(cfg.warmup * per_rollout)
    phases.update(collect=0.0, update=0.0)
    env.seconds = 0.0
    start = time.perf_counter()
    model.learn(cfg.rollouts * per_rollout, reset_num_timesteps=False)
    seconds = time.perf_counter() - start
    steps = cfg.rollouts * per_rollout
    params = sum(p.numel() for p in model.policy.parameters())
    return {"learner": "(a) SB3 MaskablePPO on UnoVecEnv", "network": "SB3 MlpPolicy 128-128",
            "parameters": int(params), "steps": steps, "seconds": seconds,
            "steps_per_second": steps / seconds, "engine_seconds": env.seconds,
            "network_seconds": phases["collect"] - env.seconds,
            "update_seconds": phases["update"]}


def bench_core(cfg: Settings, rules: Rules, net: torch.nn.Module, label: str,
               device: torch.device) -> dict[str, Any]:
    """(b) or (c): the core's collect and update, timed, then the network's floor."""
    net = net.to(device)
    games = Games(rules, cfg.num_envs, cfg.opponents, cfg.seed, net.raw_kind,
                  PackedLayout.of(rules))
    optimizer = make_optimizer(net, 3e-4)
    generator = torch.Generator(device=device).manual_seed(cfg.seed)
    settings = ppo_settings(cfg)
    engine = network = updating = 0.0
    rollout = None
    for k in range(cfg.warmup + cfg.rollouts):
        if k == cfg.warmup:
            engine = network = updating = 0.0
            start = time.perf_counter()
        rollout = collect(games, net, cfg.n_steps, device, generator)
        before = time.perf_counter()
        update(net, optimizer, rollout, settings, generator)
        sync(device)
        updating += time.perf_counter() - before
        engine += rollout.engine_seconds
        network += rollout.network_seconds
    seconds = time.perf_counter() - start
    steps = cfg.rollouts * cfg.num_envs * cfg.n_steps
    assert rollout is not None
    floor = compute_floor(cfg, net, games.rows(), rollout, device)
    games.close()
    return {"learner": label, "network": describe(net),
            "parameters": sum(p.numel() for p in net.parameters()),
            "multiply_adds": multiply_adds(net), "steps": steps, "seconds": seconds,
            "steps_per_second": steps / seconds, "engine_seconds": engine,
            "network_seconds": network, "update_seconds": updating,
            "floor_seconds_per_rollout": floor,
            "floor_steps_per_second": cfg.num_envs * cfg.n_steps / floor,
            "device": str(device)}


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


def table(lines: list[dict[str, Any]]) -> str:
    head = ("| learner | network | steps/s | engine s | inference s | update s | floor steps/s "
            "| x floor |\n|---|---|---:|---:|---:|---:|---:|---:|\n")
    rows = []
    for r in lines:
        floor = r.get("floor_steps_per_second")
        rows.append(f"| {r['learner']} | {r['network']} | {r['steps_per_second']:,.0f} | "
                    f"{r['engine_seconds']:.2f} | {r['network_seconds']:.2f} | "
                    f"{r['update_seconds']:.2f} | "
                    + (f"{floor:,.0f} | {floor / r['steps_per_second']:.2f} |" if floor
                       else "- | - |"))
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
    lines = [bench_sb3(cfg, rules)]
    print(table(lines), flush=True)
    cpu = torch.device("cpu")
    core_devices = [cpu] if device.type == "cpu" else [cpu, device]
    for dev in core_devices:
        suffix = "" if dev.type == "cpu" else f" --device {dev.type}"
        dense = DenseActorCritic((128, 128))
        if sum(p.numel() for p in dense.parameters()) != lines[0]["parameters"]:
            raise RuntimeError("the core's dense network differs from SB3's default")
        lines.append(bench_core(cfg, rules, dense, "(b) core, same network" + suffix, dev))
        packed = build_net("packed", widths(cfg.hidden, "hidden"), PackedLayout.of(rules))
        lines.append(bench_core(cfg, rules, packed, "(c) core, packed encoder" + suffix, dev))
        print(table(lines), flush=True)
    a, b, c = lines[0], lines[1], lines[2]
    record = {"settings": dataclasses.asdict(cfg), "machine": machine(),
              "command": "python experiments/bench_learn.py " + " ".join(argv or sys.argv[1:]),
              "lines": lines,
              "b_over_floor": b["floor_steps_per_second"] / b["steps_per_second"],
              "speedup_over_sb3": c["steps_per_second"] / a["steps_per_second"],
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
    main()
