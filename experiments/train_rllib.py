"""Multi-agent self-play PPO on Ray RLlib with action masking.

    python experiments/train_rllib.py --preset official --players 4 --iterations 20
    python experiments/train_rllib.py --address auto          # an existing Ray cluster
    python experiments/train_rllib.py --iterations 1 --profile  # where the sampling time goes

Every seat of :class:`uno_env.envs.rllib_env.UnoMultiAgentEnv` is an agent and all of
them map to one shared policy (self-play with parameter sharing), an
``ActionMaskingTorchRLModule`` that reads the mask from the observation dict.

Throughput: RLlib's cost is per env step and per call, not per game, so the
settings that matter are (1) ``--envs-per-runner``: each env runner steps that
many games together and runs the policy once on all their observations (RLlib's
``SyncVectorMultiAgentEnv``), instead of one forward pass per decision, and (2)
``--env-runners 0`` on a small machine: sampling runs in the driver process, no
actor-to-actor traffic, and (3) a small network with a few epochs of large
minibatches: with RLlib's PPO defaults (30 epochs of 128 samples) the update
took 95% of an iteration here. ``--profile`` runs the sampling of the iterations under
cProfile and prints the functions where the time went. Without ``--address``
Ray starts locally with ``--num-cpus`` CPUs; with it, the script joins that
cluster and ``--env-runners`` may be raised to spread sampling over its nodes.

The run writes ``<out>/result.json``: per iteration the env steps sampled (one
env step is one decision of one game), the wall seconds, the seconds spent
sampling, the env steps/s sampled and overall (sampling and PPO update), and the
total loss; plus the command, the commit, the date, the machine, the load average and
the seconds from the start to the end of the first iteration (``--profile`` adds ``profile.txt``).
"""

from __future__ import annotations

from uno_env.launch import guard

guard("train_rllib", __name__)

import argparse
import cProfile
import io
import json
import os
import pstats
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from uno_env.extras import require

require("train_rllib.py", "rllib", "train")

from uno_env.cli import run_command
from uno_env.tooling.dataclass_flags import HelpFormatter
from uno_env.tooling.machine import provenance


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=HelpFormatter)
    parser.add_argument("--preset", default="official")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--env-runners", type=int, default=0,
                        help="remote env runners (0: sample in the driver)")
    parser.add_argument("--envs-per-runner", type=int, default=64,
                        help="games stepped together by each env runner")
    parser.add_argument("--rollout-length", type=int, default=32,
                        help="env steps per game per sampling round")
    parser.add_argument("--train-batch", type=int, default=4096)
    parser.add_argument("--minibatch", type=int, default=1024)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--torch-threads", type=int, default=1)
    parser.add_argument("--address", default=None, help="Ray cluster address (default: local)")
    parser.add_argument("--num-cpus", type=int, default=2, help="CPUs of a local Ray")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", action="store_true", help="cProfile the training loop")
    parser.add_argument("--out", default="runs/rllib")
    return parser.parse_args(argv)


def build_config(args: argparse.Namespace) -> Any:
    """The PPO config: one shared action-masking policy for every seat."""
    import torch
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    from uno_env.envs.rllib_env import register_rllib_env

    torch.set_num_threads(args.torch_threads)
    name = register_rllib_env("uno_env_selfplay", preset=args.preset, num_players=args.players)
    hidden = [args.hidden, args.hidden]
    return (
        PPOConfig()
        .environment(name, env_config={"seed": args.seed}, disable_env_checking=True)
        .env_runners(num_env_runners=args.env_runners,
                     num_envs_per_env_runner=args.envs_per_runner,
                     rollout_fragment_length=args.rollout_length,
                     num_cpus_per_env_runner=1)
        .multi_agent(policies={"shared"},
                     policy_mapping_fn=lambda agent_id, episode, **kwargs: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            "shared": RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                                   model_config={"fcnet_hiddens": hidden,
                                                 "head_fcnet_hiddens": []}),
        }))
        .training(train_batch_size_per_learner=args.train_batch,
                  minibatch_size=args.minibatch, num_epochs=args.epochs)
        .debugging(seed=args.seed)
    )


def sampled_steps(result: dict[str, Any]) -> int:
    """Env steps sampled so far, as RLlib reports them."""
    runners = result.get("env_runners", {})
    return int(runners.get("num_env_steps_sampled_lifetime",
                           result.get("num_env_steps_sampled_lifetime", 0)))


class SamplingClock:
    """Seconds spent in the local env runner's ``sample()`` (``--env-runners 0``).

    RLlib's own sampling timer is a moving average; this one adds up every call,
    so an iteration's sampled env steps/s is exact.
    """

    def __init__(self, runner: Any) -> None:
        self.seconds = 0.0
        sample = runner.sample

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return sample(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start

        runner.sample = timed


def iteration_row(i: int, result: dict[str, Any], steps: int, seconds: float,
                  sampling: float | None) -> dict[str, Any]:
    """What one iteration did: env steps, wall and sampling seconds, steps/s, loss."""
    if sampling is None:  # remote env runners: RLlib's moving-average timer
        sampling = result.get("timers", {}).get("env_runner_sampling_timer")
    return {"iteration": i, "env_steps": steps, "seconds": round(seconds, 2),
            "sampling_seconds": None if sampling is None else round(sampling, 2),
            "sampled_env_steps_per_s": round(steps / sampling, 1) if sampling else None,
            "env_steps_per_s": round(steps / seconds, 1),
            "total_loss": float(result["learners"]["shared"]["total_loss"])}


def profile_text(profiler: cProfile.Profile) -> str:
    """The functions where the time went: by time inside them, then cumulative."""
    text = io.StringIO()
    stats = pstats.Stats(profiler, stream=text)
    stats.sort_stats("tottime").print_stats(30)
    stats.sort_stats("cumulative").print_stats(40)
    return text.getvalue()


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    import ray

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=args.num_cpus, include_dashboard=False, log_to_driver=False)
    iterations = []
    profiler = cProfile.Profile() if args.profile else None
    try:
        algo = build_config(args).build_algo()
        built = time.perf_counter()
        print(f"Ray and the algorithm ready in {built - start:.1f} s")
        clock = SamplingClock(algo.env_runner) if args.env_runners == 0 else None
        try:
            last, steps_before, sampled_before = built, 0, 0.0
            for i in range(args.iterations):
                if profiler is not None:
                    profiler.enable()
                result = algo.train()
                if profiler is not None:
                    profiler.disable()
                now, steps = time.perf_counter(), sampled_steps(result)
                sampling = None if clock is None else clock.seconds - sampled_before
                row = iteration_row(i + 1, result, steps - steps_before, now - last, sampling)
                iterations.append(row)
                print(row)
                last, steps_before = now, steps
                sampled_before = 0.0 if clock is None else clock.seconds
        finally:
            algo.stop()
    finally:
        ray.shutdown()
    record = {**provenance("python experiments/train_rllib.py " + shlex.join(argv)),
              "args": vars(args), "cpus": os.cpu_count(),
              "load_average": [round(x, 2) for x in os.getloadavg()],
              "seconds_to_first_iteration":
              round(built - start + iterations[0]["seconds"], 1) if iterations else None,
              "iterations": iterations}
    if profiler is not None:
        text = profile_text(profiler)
        (out / "profile.txt").write_text(text)
        print(text[:8000])
    (out / "result.json").write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    sys.exit(run_command(main, "train_rllib"))
