"""What every trainer of the learner shares: settings, progress, curves, checkpoints.

* :class:`RunSettings`: the flags every trainer has (games, network, device, threads,
  workers, seed, output, checkpoints, evaluation), checked before any work starts:
  a bad flag or combination is refused in one line.
* :class:`Run`: one training run in its folder. A progress bar shows learner
  decisions, steps/s and the last evaluation; TensorBoard (``<out>/tb``) gets every
  scalar twice, against learner decisions (``step``) and against wall-clock seconds
  (the ``by_time/`` tags); the evaluation curve (win rate with its 95% interval
  against each ``--curve-opponents`` on the same ``--curve-deals`` duplicate deals,
  deal seeds from 900,000, which nothing is chosen on) runs every ``--eval-every``
  decisions by default; checkpoints are written whole or not at all (a temporary
  file renamed), so a run killed at any moment resumes with ``--resume`` from its
  last checkpoint, nothing half written.
* Training games are dealt from the ``training`` deals of stream ``--seed``
  (:mod:`uno_env.deals`): never a curve or evaluation deal. A resumed run deals the
  deals after the ones it used.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from uno_env import Rules
from uno_env.deals import deal_seed, describe
from uno_env.evaluation import CURVE_SEED, FRESH_SEED, head_to_head
from uno_env.files import write_atomic
from uno_env.tooling.dataclass_flags import check_bounds, check_file, check_folder, widths
from uno_env.tooling.machine import provenance

from .. import make_agent
from ..net import NetAgent, PolicyNet, load_net, save_net, widen
from .device import resolve_device
from .encoder import PackedLayout
from .nets import ENCODERS, build_net, parameter_count
from .nets import describe as describe_net
from .workers import default_workers, make_shards


@dataclass
class RunSettings:
    """The flags every trainer shares (each field a flag: ``num_games`` -> ``--num-games``)."""

    preset: str = "official"       # the preset of the games
    players: int = 2               # players per game (team play always has 4)
    opponents: str = "tuned"       # the agent in every other seat (any agent spec)
    num_games: int = 256           # games played together
    encoder: str = "packed"        # the network: packed (the packed encoder), dense (the
    #                                shipped networks' perceptron) or dense-separate (SB3's)
    hidden: str = "96,96"          # layer widths of a new network
    init_net: str = ""             # start from this saved network instead (.safetensors)
    learning_rate: float = 3e-4    # Adam's step size
    device: str = "auto"           # where the network runs: auto (CUDA when present), cpu,
    #                                cuda
    amp: bool = False              # bfloat16 mixed precision (CUDA, or a CPU with bfloat16)
    threads: int = 0               # torch threads (0: the cores the workers leave, every core
    #                                without workers)
    workers: int = -1              # processes playing the games (-1: from the core count, at
    #                                most one a game; 0: none, the games in this process)
    seed: int = 0                  # seed of the training deals, the network and the sampling
    out: str = "runs/train"        # output folder
    resume: bool = False           # continue the run in --out from its last checkpoint
    checkpoint_every: int = 500_000  # learner decisions between checkpoints
    eval_every: int = 250_000      # learner decisions between points of the evaluation curve
    #                                (0: none)
    curve_opponents: str = "tuned,greedy"  # opponents of the evaluation curve
    curve_deals: int = 300         # duplicate deals of each curve point (seeds 900,000+)
    eval_deals: int = 1000         # duplicate deals of the final evaluation against the curve
    #                                opponents (seeds 1,000,000+; 0 skips it)
    progress: bool = True          # show a progress bar

    def check(self) -> None:
        """Raise ``SystemExit`` naming the first bad flag, before any work starts."""
        check_bounds(self, at_least_one=("players", "num_games", "checkpoint_every"),
                     non_negative=("threads", "eval_every", "curve_deals", "eval_deals",
                                   "seed"),
                     positive=("learning_rate",))
        if self.workers < -1:
            raise SystemExit("--workers must be -1 (from the core count), 0 or more")
        if self.encoder not in ENCODERS:
            raise SystemExit(f"--encoder must be one of {', '.join(ENCODERS)}, "
                             f"got {self.encoder!r}")
        if self.workers > self.num_games:
            raise SystemExit(f"--workers {self.workers} needs at least as many --num-games")
        try:
            self.rules()
            widths(self.hidden, "hidden")
            resolve_device(self.device)
            deal_seed("training", self.seed, 0, self.num_games)
            for spec in [self.opponents, *self.curve_opponents.split(",")]:
                make_agent(spec)
        except ValueError as e:
            raise SystemExit(f"bad setting: {e}") from None
        if self.init_net:
            check_file(self.init_net, "init_net")
        check_folder(self.out)

    def rules(self) -> Rules:
        return Rules.preset(self.preset,
                            num_players=4 if self.preset == "teams" else self.players)

    def worker_count(self) -> int:
        return min(default_workers(), self.num_games) if self.workers < 0 else self.workers


def new_network(cfg: RunSettings) -> Any:
    """The network a run trains: ``--init-net`` loaded (a dense network saved before the
    observation grew is widened to this version's, computing the same function), or a
    new one of ``--encoder``."""
    rules = cfg.rules()
    if cfg.init_net:
        net, columns = load_net(cfg.init_net)
        layout, wanted = getattr(net, "layout", None), PackedLayout.of(rules)
        if layout is not None and layout != wanted:
            raise SystemExit(f"--init-net {cfg.init_net!r} reads the packed rows of "
                             f"{_described(layout)}; --preset {cfg.preset} at "
                             f"{rules.num_players} players deals {_described(wanted)}")
        if isinstance(net, PolicyNet):
            net = widen(net, columns)
        return net.train()
    return build_net(cfg.encoder, widths(cfg.hidden, "hidden"), PackedLayout.of(rules))


def _described(layout: PackedLayout) -> str:
    """A packed layout in words: ``4-player games (with the partner's hand)``."""
    extras = [what for what, shown in (("the partner's hand", layout.partner_hand),
                                       ("the shown hands", layout.shown_hands)) if shown]
    return f"{layout.players}-player games" + (f" (with {' and '.join(extras)})" if extras
                                               else "")


class Run:
    """One training run in ``cfg.out``: its games, network, optimizer, logs and files."""

    def __init__(self, cfg: RunSettings, command: str, total: int, kind: str) -> None:
        cfg.check()
        self.cfg, self.command, self.total, self.kind = cfg, command, total, kind
        self.out = Path(cfg.out)
        if cfg.resume and self.last_checkpoint() is None:
            raise SystemExit(f"--resume: no checkpoint in {self.out / 'checkpoints'}")
        if not cfg.resume and (self.out / "record.json").exists():
            raise SystemExit(f"{self.out} holds a finished run: --resume continues it (with "
                             f"more decisions or rounds), or choose another --out")
        # by default the cores the worker processes leave (every core without workers)
        torch.set_num_threads(cfg.threads or max((os.cpu_count() or 1) - cfg.worker_count(), 1))
        torch.manual_seed(cfg.seed)
        self.device = resolve_device(cfg.device)
        self.rules = cfg.rules()
        self.net: Any = new_network(cfg).to(self.device)
        self.out.mkdir(parents=True, exist_ok=True)     # once the settings are known good
        self.generator = torch.Generator(device=self.device).manual_seed(cfg.seed)
        self.decisions = 0
        self.deals_used = 0            # training deals dealt so far (their stream's index)
        self.seconds = 0.0
        self.curve: list[dict[str, Any]] = []
        self.timing = {"engine": 0.0, "network": 0.0, "update": 0.0}
        self.shards: list[Any] = []
        self._bar: Any = None
        self._writer: Any = None
        self._last_eval = ""

    # --- games --------------------------------------------------------------------------

    def open_games(self, opponents: Any = None, truncation_reward: float = 0.0) -> list[Any]:
        """The training games: ``--num-games`` of them in ``--workers`` processes."""
        cfg = self.cfg
        first = deal_seed("training", cfg.seed, self.deals_used, cfg.num_games)
        self.deals_used += cfg.num_games
        self.shards = make_shards(self.rules, cfg.num_games,
                                  cfg.opponents if opponents is None else opponents, first,
                                  self.net.raw_kind, self._layout(), cfg.worker_count(),
                                  truncation_reward)
        return self.shards

    def _layout(self) -> PackedLayout:
        return getattr(self.net, "layout", None) or PackedLayout.of(self.rules)

    def close(self) -> None:
        for shard in self.shards:
            shard.close()
        self.shards = []
        if self._bar is not None:
            self._bar.close()
        if self._writer is not None:
            self._writer.close()

    # --- logging ------------------------------------------------------------------------

    def start_clock(self) -> None:
        """Start (or, after a resume, go on with) the training clock and the progress bar."""
        self._clock = time.perf_counter() - self.seconds
        self._next_point = self._next_checkpoint = self.decisions
        if self.cfg.progress and self._bar is None:
            from tqdm.auto import tqdm

            self._bar = tqdm(total=self.total, initial=self.decisions, unit="dec",
                             unit_scale=True, smoothing=0.1, desc=self.kind)

    def between_rollouts(self, optimizer: torch.optim.Optimizer) -> None:
        """What is due before the next rollout: a point of the evaluation curve every
        ``--eval-every`` decisions, a checkpoint every ``--checkpoint-every``."""
        if self.decisions >= self._next_point:
            self._next_point = self.decisions + max(self.cfg.eval_every, 1)
            self.curve_point()
        if self.decisions >= self._next_checkpoint:
            if self.decisions:
                self.save_checkpoint(optimizer)
            self._next_checkpoint = self.decisions + self.cfg.checkpoint_every

    def elapsed(self) -> float:
        return time.perf_counter() - self._clock

    def log(self, scalars: dict[str, float]) -> None:
        """Scalars into TensorBoard, against decisions and against seconds."""
        if self._writer is None:
            from torch.utils.tensorboard import SummaryWriter

            self._writer = SummaryWriter(str(self.out / "tb"))
        seconds = int(self.elapsed())
        for key, value in scalars.items():
            self._writer.add_scalar(key, value, self.decisions)
            self._writer.add_scalar(f"by_time/{key}", value, seconds)

    def advance(self, decisions: int, rollout: Any = None, update_seconds: float = 0.0,
                scalars: dict[str, float] | None = None) -> None:
        """Count ``decisions`` more, log the timings and ``scalars``, move the bar."""
        self.decisions += decisions
        self.seconds = self.elapsed()
        if rollout is not None:
            self.timing["engine"] += rollout.engine_seconds
            self.timing["network"] += rollout.network_seconds
        self.timing["update"] += update_seconds
        extra = dict(scalars or {})
        extra["speed/decisions_per_second"] = self.decisions / max(self.seconds, 1e-9)
        if rollout is not None and rollout.outcomes.size:
            extra["train/return"] = float(rollout.outcomes.mean())
            extra["train/win_rate"] = float((rollout.outcomes > 0).mean())
        self.log(extra)
        if self._bar is not None:
            self._bar.update(decisions)
            self._bar.set_postfix_str(f"{extra['speed/decisions_per_second']:,.0f} dec/s"
                                      + self._last_eval)

    # --- evaluation ---------------------------------------------------------------------

    def agent(self) -> NetAgent:
        return NetAgent(self.net, label=f"{self.kind}@{self.decisions}",
                        device=str(self.device))

    def curve_point(self) -> None:
        """One point of the evaluation curve (see the module doc)."""
        cfg = self.cfg
        if not cfg.eval_every or not cfg.curve_deals:
            return
        clock = time.perf_counter()
        point: dict[str, Any] = {"decisions": self.decisions, "seconds": round(self.seconds, 1)}
        agent = self.agent()
        for name in cfg.curve_opponents.split(","):
            r = head_to_head(agent, make_agent(name), self.rules, cfg.curve_deals, CURVE_SEED)
            point[name] = r
            self.log({f"eval/{name}_win_rate": r["win_rate"], f"eval/{name}_low": r["low"],
                      f"eval/{name}_high": r["high"]})
        self.net.train()
        self.curve.append(point)
        first = cfg.curve_opponents.split(",")[0]
        self._last_eval = f", vs {first} {point[first]['win_rate']:.1%}"
        self._clock += time.perf_counter() - clock   # evaluation time is not training time

    def final_evaluation(self) -> list[dict[str, Any]]:
        """The trained network against each curve opponent on fresh deals (1,000,000+)."""
        results: list[dict[str, Any]] = []
        if not self.cfg.eval_deals:
            return results
        for name in self.cfg.curve_opponents.split(","):
            r = head_to_head(self.agent(), make_agent(name), self.rules, self.cfg.eval_deals,
                             FRESH_SEED)
            results.append({"opponent": name, **r})
            print(f"{self.rules.preset_name()} {self.rules.num_players}p vs {name}: "
                  f"{r['win_rate']:.1%} [{r['low']:.1%}, {r['high']:.1%}] over "
                  f"{r['games']} games")
        return results

    # --- checkpoints --------------------------------------------------------------------

    def checkpoint_folder(self) -> Path:
        return self.out / "checkpoints"

    def last_checkpoint(self) -> Path | None:
        found = list(self.checkpoint_folder().glob("step_*.pt"))
        return max(found, key=lambda p: int(p.stem.split("_")[1])) if found else None

    def save_checkpoint(self, optimizer: torch.optim.Optimizer | None,
                        extra: dict[str, Any] | None = None) -> Path:
        """The network's and the optimizer's tensors, the decisions, the clock and the curve
        so far, in one file written whole (plain tensors and numbers: read back with
        ``weights_only=True``, it runs no code)."""
        folder = self.checkpoint_folder()
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"step_{self.decisions}.pt"
        buffer = io.BytesIO()
        torch.save({"net": self.net.state_dict(),
                    "optimizer": None if optimizer is None else optimizer.state_dict(),
                    "decisions": self.decisions, "seconds": self.seconds,
                    "deals_used": self.deals_used,
                    "curve": json.dumps(self.curve), "timing": json.dumps(self.timing),
                    "generator": self.generator.get_state(),
                    "extra": json.dumps(extra or {})}, buffer)
        write_atomic(path, buffer.getvalue())
        for old in folder.glob("step_*.pt"):
            if old != path:
                old.unlink(missing_ok=True)
        return path

    def load_checkpoint(self, optimizer: torch.optim.Optimizer | None) -> dict[str, Any]:
        """Restore the last checkpoint (``--resume``); returns its ``extra``."""
        path = self.last_checkpoint()
        if path is None:
            return {}
        saved = torch.load(path, map_location=self.device, weights_only=True)
        self.net.load_state_dict(saved["net"])
        if optimizer is not None and saved["optimizer"] is not None:
            optimizer.load_state_dict(saved["optimizer"])
        self.decisions, self.seconds = int(saved["decisions"]), float(saved["seconds"])
        self.deals_used = int(saved["deals_used"])
        self.curve = json.loads(saved["curve"])
        self.timing = json.loads(saved["timing"])
        self.generator.set_state(saved["generator"].cpu())   # a CPU tensor on every device
        return json.loads(saved["extra"])

    # --- the end ------------------------------------------------------------------------

    def finish(self, card: dict[str, Any]) -> dict[str, Any]:
        """Evaluate on fresh deals, then write ``model.safetensors`` with its model card and
        ``record.json`` (with the run's provenance: command, commit, date, machine and the
        fresh deals of the evaluation)."""
        cfg = self.cfg
        deals = describe(FRESH_SEED, cfg.eval_deals) if cfg.eval_deals else None
        record = {"recipe": card.get("recipe", self.kind), **provenance(self.command, deals),
                  "config": dataclasses.asdict(cfg),
                  # the network trained: the start's own (--init-net) or config's new one
                  "network": {"layers": describe_net(self.net),
                              "parameters": parameter_count(self.net)},
                  "decisions": self.decisions,
                  "seconds": round(self.seconds, 1),
                  "decisions_per_second": round(self.decisions / max(self.seconds, 1e-9), 1),
                  "time_split": {k: round(v, 3) for k, v in self.timing.items()},
                  "device": str(self.device), "threads": torch.get_num_threads(),
                  "workers": cfg.worker_count(), "torch": torch.__version__,
                  "curve": self.curve, **{k: v for k, v in card.items() if k != "recipe"}}
        record["evaluation"] = self.final_evaluation()
        save_net(self.out / "model.safetensors", self.net, record)
        write_atomic(self.out / "record.json", json.dumps(record, indent=2) + "\n")
        print(f"{self.decisions:,} decisions in {self.seconds:.0f} s "
              f"({record['decisions_per_second']:,.0f}/s): {self.out / 'model.safetensors'}")
        return record


def stopped(run: Run, optimizer: torch.optim.Optimizer | None,
            extra: dict[str, Any] | None = None) -> SystemExit:
    """Ctrl-C: save a checkpoint and say how to continue."""
    path = run.save_checkpoint(optimizer, extra)
    run.close()
    return SystemExit(f"stopped after {run.decisions:,} decisions: saved {path}; the same "
                      f"command with --resume continues")


