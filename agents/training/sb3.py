"""Train MaskablePPO (sb3-contrib) on the batched UNO VecEnv.

    python experiments/train_sb3.py --preset official --players 2 --opponents greedy \\
        --timesteps 2000000 --out runs/official-2p

Read top to bottom: the settings (a dataclass, one CLI flag per field), the
environments, the self-play pool, the training loop with its callbacks, and the
evaluation that closes every run. A run writes to ``--out``:

* ``policy.safetensors``: the final policy as plain tensors with its config
  (``uno_agents.make_agent("ppo:<out>/policy.safetensors")``; loading it runs no code);
  with ``--init-net``, ``model.safetensors`` instead (``net:<out>/model.safetensors``);
* ``model.zip``: the final SB3 model (``ppo:`` reads its policy as data, never
  unpickling it);
* ``config.json``: the settings, the exact command, steps/s and the share of
  time spent in the environment;
* ``checkpoints/``: ``step_<decisions>.pt`` every ``--checkpoint-every`` decisions (tensors
  only, read with ``weights_only=True``; ``--resume`` continues from the last);
* ``tb/``: TensorBoard logs (``tensorboard --logdir <out>/tb``);
* ``eval.json``: the final model head-to-head against each evaluation opponent.

**Opponents.** ``--opponents greedy`` (any agent name, or names separated by
commas, one per seat after the learner) fixes them. ``--opponents self-play``
plays against a pool (:class:`uno_agents.AgentPool`) of the learner's own earlier
snapshots mixed with the heuristics of ``--heuristics``. Every game draws one
pool member when an episode starts, which then plays all the opponent seats of
that game until the episode ends. The pool starts with the heuristics and the
untrained policy; every ``--snapshot-every`` steps a frozen copy of the current
policy (sampling from its masked softmax) joins it, and only the last
``--pool-size`` snapshots stay. Sampling weights: the heuristics share
``--heuristic-share`` equally; of the rest, the latest snapshot gets
``--latest-share`` and the older snapshots share what remains equally.

**Rules-conditioned training.** ``--preset all`` (or several presets separated by
commas) trains one policy on a mixture of presets at once: the games of the batch
are split evenly between the presets, each preset on its own engine. Every
observation carries the rule vector, so the policy can tell the rules apart.

**Memory ablation.** ``--no-memory`` trains on the observation without the
table's public memory (the views of what each opponent drew on, played and named,
see ``docs/observation.md``): the learner's observations are cut down by a
``VecEnv`` wrapper and the saved policy records the views it reads, so it plays
from today's whole observation like any other.

**Learning from a heuristic.** ``--prior tuned`` trains a residual policy
(:class:`uno_agents.policy.HeuristicPriorPolicy`): its logits are the heuristic's action
scores, weighted by a learned scale that starts at ``--prior-scale``, plus the
network's output, which starts near zero. The untrained policy therefore plays the
heuristic's choice when deterministic and a softened version of it when sampling,
and PPO learns where departing from the heuristic wins games. Without ``--prior``
the policy is a plain network that starts from nothing.

**CPU settings.** Torch runs one thread per process (``--torch-threads``; one
thread trained several times faster than torch's default on two busy cores). The
policy scales its observations with ``sign(x) * log1p(|x|)``
(:class:`uno_agents.policy.UnoFeatures`; ``--no-obs-scaling`` feeds them raw): hand
sizes and the draw pile reach the hundreds as raw counts. A ``VecNormalize``
wrapper would do the same job, but its running statistics would then have to
travel with every saved model; the fixed scaling needs nothing.
"""

from __future__ import annotations

import copy
import dataclasses
import io
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper, VecMonitor
from stable_baselines3.common.vec_env.base_vec_env import VecEnvObs

from uno_env import PRESETS, Rules
from uno_env.deals import deal_seed
from uno_env.envs.vector import UnoVecEnv
from uno_env.evaluation import CURVE_SEED, head_to_head
from uno_env.files import write_atomic
from uno_env.tooling.dataclass_flags import check_bounds, check_file, parse_dataclass, widths

from .. import AgentPool, make_agent
from ..files import BUILTIN_HEURISTICS, is_builtin
from ..net import PolicyNet, save_net
from ..policy import (
    CURRENT_VIEWS,
    NO_MEMORY_VIEWS,
    HeuristicPriorPolicy,
    PolicyAgent,
    UnoFeatures,
    export_policy,
    view_index,
)
from ..pool import snapshot_weights
from .device import resolve_device

# --- settings ---------------------------------------------------------------------------------

@dataclass
class Config:
    """Every setting of a run; each field is a CLI flag (``num_envs`` -> ``--num-envs``)."""

    preset: str = "official"       # a preset, several separated by commas, or "all"
    players: int = 2               # players per game (team play always has 4)
    opponents: str = "greedy"      # agent name(s), comma-separated per seat, or "self-play"
    timesteps: int = 1_000_000     # learner decisions to train on
    num_envs: int = 256            # games stepped together
    n_steps: int = 64              # decisions per game per rollout
    batch_size: int = 4096         # decisions per gradient step
    n_epochs: int = 4              # passes over each rollout
    learning_rate: float = 3e-4    # Adam's step size
    gamma: float = 0.995           # discount per learner decision
    gae_lambda: float = 0.95       # GAE's lambda (1: Monte-Carlo returns)
    ent_coef: float = 0.01         # weight of the entropy bonus
    net: str = "128,128"           # hidden layers of the policy and value networks (with
    #                                --init-net: of the network, when it starts new)
    obs_scaling: bool = True       # sign(x) * log1p(|x|) on the observation
    memory: bool = True            # public-memory views in the observation (--no-memory: none)
    rule_vector: bool = True       # the rules view in the observation (--no-rule-vector: none)
    prior: str = ""                # a heuristic whose scores the policy corrects ("" for none)
    prior_scale: float = 0.25      # its scores' weight in the logits at the start
    init_net: str = ""             # a saved network (.safetensors, e.g. from distill.py) to
    #                                fine-tune; the result is also saved as model.safetensors
    anchor: float = 0.0            # weight of KL(policy || the --init-net network) in the
    #                                loss (0: no anchor; needs --ent-coef > 0)
    torch_threads: int = 1         # torch threads of this process
    device: str = "auto"           # where the policy runs: auto (CUDA when present), cpu, cuda
    seed: int = 0                  # seed of the games, the network and the sampling
    out: str = "runs/ppo"          # output folder
    checkpoint_every: int = 250_000  # learner decisions between checkpoints
    resume: bool = False           # continue the run in --out from its last checkpoint
    # self-play
    heuristics: str = "greedy"     # agents mixed into the self-play pool
    snapshot_every: int = 100_000  # learner decisions between snapshots joining the pool
    pool_size: int = 8             # snapshots kept in the pool
    heuristic_share: float = 0.3   # the heuristics' share of the pool's draws
    latest_share: float = 0.5      # the latest snapshot's share of the snapshots' draws
    # evaluation
    eval_every: int = 250_000      # learner decisions between points of the evaluation curve
    #                                in TensorBoard (against greedy and tuned; 0: none)
    curve_deals: int = 500         # duplicate deals of each curve point (deal seeds 900,000+)
    eval_opponents: str = "greedy,random"  # opponents of the final evaluation
    eval_deals: int = 500          # duplicate deals of the final evaluation (0 skips it)
    progress: bool = True          # show a progress bar

    def check(self) -> None:
        """Raise ``SystemExit`` naming the first bad setting, before any work starts."""
        check_bounds(self, at_least_one=("players", "timesteps", "num_envs", "n_steps",
                                         "batch_size", "n_epochs", "torch_threads",
                                         "checkpoint_every", "snapshot_every", "pool_size"),
                     non_negative=("eval_every", "curve_deals", "eval_deals", "anchor",
                                   "ent_coef"), positive=("learning_rate",),
                     fractions=("gamma", "gae_lambda", "heuristic_share", "latest_share"))
        if self.anchor and not self.init_net:
            raise SystemExit("--anchor needs --init-net (the network to stay near)")
        if self.anchor and not self.ent_coef > 0:
            raise SystemExit("--anchor needs --ent-coef > 0 (see uno_agents.net_ppo)")
        if self.init_net and self.prior:
            raise SystemExit("--init-net and --prior are two different policies; give one")
        if self.prior and not is_builtin(self.prior):   # what a saved policy may name
            raise SystemExit(f"--prior must be a built-in heuristic "
                             f"({', '.join(BUILTIN_HEURISTICS)}), got {self.prior!r}")
        try:
            self.rules()
            widths(self.net, "net")
            resolve_device(self.device)
            names = [] if self.opponents == "self-play" else self.opponents.split(",")
            for spec in [*names, *self.heuristics.split(","), *self.eval_opponents.split(",")]:
                make_agent(spec)
        except ValueError as e:
            raise SystemExit(f"bad setting: {e}") from None
        if self.init_net:
            check_file(self.init_net, "init_net")

    def trained_timesteps(self) -> int:
        """The learner decisions a run trains on: ``timesteps`` rounded up to whole
        rollouts of ``num_envs * n_steps`` decisions (SB3 stops only between rollouts)."""
        rollout = self.num_envs * self.n_steps
        return -(-self.timesteps // rollout) * rollout

    def presets(self) -> list[str]:
        names = list(PRESETS) if self.preset == "all" else self.preset.split(",")
        unknown = [n for n in names if n not in PRESETS]
        if unknown:
            raise SystemExit(f"unknown preset(s) {unknown}; presets: {', '.join(PRESETS)}")
        return names

    def rules(self) -> list[Rules]:
        return [Rules.preset(p, num_players=4 if p == "teams" else self.players)
                for p in self.presets()]


def parse_config(argv: list[str] | None = None) -> Config:
    """A Config from command-line flags."""
    return parse_dataclass(Config, __doc__.split("\n\n")[0], argv)


# --- environments -----------------------------------------------------------------------------



class MixedVecEnv(VecEnv):
    """Several batched envs (one per preset) side by side as one VecEnv.

    Actions are split by each env's number of games; observations, rewards, dones,
    infos and masks are concatenated in the same order.
    """

    def __init__(self, envs: list[UnoVecEnv]) -> None:
        self.envs = envs
        self.bounds = np.cumsum([0] + [e.num_envs for e in envs])
        super().__init__(int(self.bounds[-1]), envs[0].observation_space, envs[0].action_space)
        self._actions: np.ndarray | None = None

    def reset(self) -> np.ndarray:
        return np.concatenate([e.reset() for e in self.envs])

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        actions = self._actions
        if actions is None:
            raise RuntimeError("step_wait without step_async")
        parts = [e.step(actions[lo:hi])
                 for e, lo, hi in zip(self.envs, self.bounds, self.bounds[1:], strict=False)]
        obs, rewards, dones, infos = zip(*parts, strict=True)
        return (np.concatenate(obs), np.concatenate(rewards), np.concatenate(dones),
                [info for part in infos for info in part])

    def action_masks(self) -> np.ndarray:
        return np.concatenate([e.action_masks() for e in self.envs])

    def env_method(self, method_name: str, *args: Any, indices: Any = None,
                   **kwargs: Any) -> list[Any]:
        if method_name == "action_masks":
            return list(self.action_masks())
        return [getattr(self, method_name)(*args, **kwargs)] * self.num_envs

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [getattr(self, attr_name)] * self.num_envs

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self, attr_name, value)

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * self.num_envs

    def close(self) -> None:
        pass


class ViewSubset(VecEnvWrapper):
    """The learner's observations cut down to some views (``--no-memory`` drops the public
    memory); the opponents inside the env still see theirs whole."""

    def __init__(self, venv: VecEnv, views: tuple[tuple[str, int], ...]) -> None:
        columns, space = view_index(views), venv.observation_space
        if columns is None or not isinstance(space, gym.spaces.Box):
            raise ValueError("ViewSubset keeps some views of a Box observation, not all")
        self.columns = columns
        low, high = space.low[columns], space.high[columns]
        super().__init__(venv, observation_space=gym.spaces.Box(low, high, dtype=np.float32))

    def reset(self) -> np.ndarray:
        return _array(self.venv.reset())[:, self.columns]

    def step_wait(self) -> Any:
        obs, rewards, dones, infos = self.venv.step_wait()
        for info in infos:   # SB3 bootstraps from the final observation of an episode
            if "terminal_observation" in info:
                info["terminal_observation"] = info["terminal_observation"][self.columns]
        return _array(obs)[:, self.columns], rewards, dones, infos


def _array(obs: VecEnvObs) -> np.ndarray:
    """A batch of flat observations (SB3 also types dicts and tuples of arrays)."""
    if not isinstance(obs, np.ndarray):
        raise TypeError(f"expected an array of observations, got {type(obs).__name__}")
    return obs


class TimedVecEnv(VecEnvWrapper):
    """Adds up the seconds spent inside the env (steps, resets, masks, opponents' play)."""

    def __init__(self, venv: VecEnv) -> None:
        super().__init__(venv)
        self.seconds = 0.0

    def reset(self) -> VecEnvObs:
        start = time.perf_counter()
        obs = self.venv.reset()
        self.seconds += time.perf_counter() - start
        return obs

    def step_wait(self) -> Any:
        start = time.perf_counter()
        out = self.venv.step_wait()
        self.seconds += time.perf_counter() - start
        return out

    def env_method(self, method_name: str, *args: Any, indices: Any = None,
                   **kwargs: Any) -> list[Any]:
        start = time.perf_counter()
        out = self.venv.env_method(method_name, *args, indices=indices, **kwargs)
        self.seconds += time.perf_counter() - start
        return out


def make_env(cfg: Config, pools: list[AgentPool]) -> TimedVecEnv:
    """The training env: the games split between the presets, opponents as configured.

    With self-play, each preset's env gets its own pool (``pools`` is filled here),
    because a pool keys its draws by game index within one env.
    """
    rules = cfg.rules()
    sizes = np.full(len(rules), cfg.num_envs // len(rules))
    sizes[: cfg.num_envs % len(rules)] += 1
    envs = []
    for k, (r, n) in enumerate(zip(rules, sizes, strict=True)):
        if cfg.opponents == "self-play":
            pools.append(AgentPool([make_agent(h) for h in cfg.heuristics.split(",")]))
            opponents: Any = pools[-1]
        else:
            names = cfg.opponents.split(",")
            opponents = names[0] if len(names) == 1 else names
        envs.append(UnoVecEnv(int(n), rules=r, opponents=opponents, learner_seat="rotate",
                              seed=deal_seed("training", cfg.seed, 1000 * k, int(n))))
    env: VecEnv = envs[0] if len(envs) == 1 else MixedVecEnv(envs)
    views = learner_views(cfg)
    return TimedVecEnv(env if views == CURRENT_VIEWS else ViewSubset(env, views))


def learner_views(cfg: Config) -> tuple[tuple[str, int], ...]:
    """The observation views the learner reads: all of them, less the public memory with
    ``--no-memory`` and the ``rules`` view with ``--no-rule-vector``."""
    views = CURRENT_VIEWS if cfg.memory else NO_MEMORY_VIEWS
    return views if cfg.rule_vector else tuple(v for v in views if v[0] != "rules")


# --- self-play --------------------------------------------------------------------------------

def pool_weights(num_heuristics: int, num_snapshots: int, cfg: Config) -> np.ndarray:
    """Sampling weights: heuristics first, then snapshots oldest to latest (see module doc)."""
    return snapshot_weights(num_heuristics, num_snapshots, cfg.heuristic_share,
                            cfg.latest_share)


class SelfPlayCallback(BaseCallback):
    """Adds a frozen snapshot of the policy to the pools every ``snapshot_every`` steps."""

    def __init__(self, pools: list[AgentPool], cfg: Config) -> None:
        super().__init__()
        self.pools, self.cfg = pools, cfg
        self.heuristics = [make_agent(h) for h in cfg.heuristics.split(",")]
        self.snapshots: list[PolicyAgent] = []
        self.next_snapshot = 0

    def _on_rollout_end(self) -> None:
        if self.num_timesteps < self.next_snapshot:
            return
        self.next_snapshot = self.num_timesteps + self.cfg.snapshot_every
        frozen = copy.deepcopy(self.model.policy)
        self.snapshots.append(PolicyAgent(frozen, deterministic=False,
                                          label=f"self@{self.num_timesteps}"))
        self.snapshots = self.snapshots[-self.cfg.pool_size:]
        weights = pool_weights(len(self.heuristics), len(self.snapshots), self.cfg)
        for pool in self.pools:
            pool.set_members([*self.heuristics, *self.snapshots], weights)
        self.logger.record("self_play/pool_snapshots", len(self.snapshots))

    def _on_step(self) -> bool:
        return True


class ProgressCallback(BaseCallback):
    """A tqdm bar over the timesteps, showing steps/s and the env's share of the time."""

    def __init__(self, env: TimedVecEnv, total: int) -> None:
        super().__init__()
        self.env, self.total = env, total

    def _on_training_start(self) -> None:
        from tqdm.auto import tqdm

        self.bar = tqdm(total=self.total, unit="step", unit_scale=True, smoothing=0.1)
        self.start = time.perf_counter()

    def _on_rollout_end(self) -> None:
        self.bar.update(self.num_timesteps - self.bar.n)
        elapsed = time.perf_counter() - self.start
        self.bar.set_postfix(env=f"{self.env.seconds / elapsed:.0%}")

    def _on_step(self) -> bool:
        return True

    def _on_training_end(self) -> None:
        self.bar.update(self.num_timesteps - self.bar.n)
        self.bar.close()


class EvalCurveCallback(BaseCallback):
    """Every ``eval_every`` learner decisions, the policy's win rate against ``greedy`` and
    ``tuned`` on the same ``curve_deals`` duplicate deals (deal seeds from 900,000, used by
    no other measurement), with its 95% interval, in TensorBoard (``eval/...``) and in
    :attr:`points` (which ``config.json`` keeps as ``curve``)."""

    def __init__(self, cfg: Config) -> None:
        super().__init__()
        self.cfg, self.next_point = cfg, 0
        self.points: list[dict[str, Any]] = []
        self.rules = cfg.rules()[0]
        self.opponents = {name: make_agent(name) for name in ("greedy", "tuned")}

    def _on_rollout_end(self) -> None:
        if self.num_timesteps < self.next_point:
            return
        self.next_point = self.num_timesteps + self.cfg.eval_every
        agent = PolicyAgent(self.model.policy)
        self.points.append({"timesteps": int(self.num_timesteps)})
        for name, opponent in self.opponents.items():
            r = head_to_head(agent, opponent, self.rules, self.cfg.curve_deals, CURVE_SEED)
            self.points[-1][name] = r
            for key in ("win_rate", "low", "high"):
                self.logger.record(f"eval/{name}_{key}", r[key])
        self.logger.dump(self.num_timesteps)

    def _on_step(self) -> bool:
        return True


# --- training ---------------------------------------------------------------------------------

def build_model(cfg: Config, env: VecEnv, out: Path) -> MaskablePPO:
    """A new MaskablePPO over ``env`` with the policy the settings ask for: SB3's MLP, the
    residual policy over a heuristic (``--prior``) or a network to fine-tune
    (``--init-net``, :class:`uno_agents.net_ppo.NetActorCriticPolicy`)."""
    policy: Any = "MlpPolicy"
    views = learner_views(cfg)
    layers = list(widths(cfg.net, "net"))
    kwargs: dict[str, Any] = {"net_arch": layers, "features_extractor_class": UnoFeatures,
                              "features_extractor_kwargs": {"scale": cfg.obs_scaling,
                                                            "views": views}}
    if cfg.prior:
        policy = HeuristicPriorPolicy
        kwargs.update(prior=cfg.prior, prior_scale=cfg.prior_scale)
    if cfg.init_net:
        from ..net_ppo import NetActorCriticPolicy

        policy = NetActorCriticPolicy
        kwargs = {"hidden": layers, "init": cfg.init_net, "anchor": cfg.anchor,
                  "ent_coef": cfg.ent_coef}
    return MaskablePPO(
        policy, env, n_steps=cfg.n_steps, batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs, learning_rate=cfg.learning_rate, gamma=cfg.gamma,
        gae_lambda=cfg.gae_lambda, ent_coef=cfg.ent_coef, seed=cfg.seed,
        device=resolve_device(cfg.device),
        tensorboard_log=str(out / "tb"), verbose=0, policy_kwargs=kwargs)


def save_checkpoint(model: BaseAlgorithm, folder: Path) -> Path:
    """The policy's and the optimizer's tensors and the decisions so far, as
    ``folder/step_<decisions>.pt`` (plain tensors and numbers: reading it back with
    ``weights_only=True`` runs no code, unlike an SB3 zip)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"step_{model.num_timesteps}.pt"
    buffer = io.BytesIO()
    torch.save({"parameters": model.get_parameters(), "num_timesteps": model.num_timesteps},
               buffer)
    write_atomic(path, buffer.getvalue())
    return path


def load_checkpoint(model: MaskablePPO, path: Path) -> None:
    """Put a :func:`save_checkpoint` file's tensors and decision count into ``model``."""
    saved = torch.load(path, map_location="cpu", weights_only=True)
    model.set_parameters(saved["parameters"], exact_match=True, device=model.device)
    model.num_timesteps = int(saved["num_timesteps"])


def last_checkpoint(out: Path) -> Path | None:
    """The checkpoint of the most learner decisions in ``out/checkpoints`` (None: none)."""
    found = list((out / "checkpoints").glob("step_*.pt"))
    return max(found, key=lambda p: int(p.stem.split("_")[1])) if found else None


class CheckpointEvery(BaseCallback):
    """:func:`save_checkpoint` every ``every`` learner decisions (at the end of a rollout)."""

    def __init__(self, every: int, folder: Path) -> None:
        super().__init__()
        self.every, self.folder = every, folder
        self.next_save = every

    def _on_rollout_end(self) -> None:
        if self.num_timesteps >= self.next_save:
            self.next_save = self.num_timesteps + self.every
            save_checkpoint(self.model, self.folder)

    def _on_step(self) -> bool:
        return True


def train(cfg: Config, command: str | None = None) -> dict[str, Any]:
    """Train, checkpoint, save and evaluate one model; returns what config.json records.

    Ctrl-C saves a checkpoint of the decisions so far and stops; ``--resume`` loads the
    last checkpoint and trains the remaining decisions (a self-play pool starts again
    from the heuristics)."""
    cfg.check()
    if cfg.prior and not cfg.memory:
        raise SystemExit("--prior reads the whole observation: it cannot train with --no-memory")
    if (cfg.prior or cfg.init_net) and not cfg.rule_vector:
        raise SystemExit("--prior and --init-net read the whole observation: they cannot train "
                         "with --no-rule-vector")
    torch.set_num_threads(cfg.torch_threads)
    out = Path(cfg.out)
    resume_from = last_checkpoint(out) if cfg.resume else None
    if cfg.resume and resume_from is None:
        raise SystemExit(f"--resume: no checkpoint in {out / 'checkpoints'}")
    if not cfg.resume and (out / "config.json").exists():
        raise SystemExit(f"{out} holds a finished run; choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    pools: list[AgentPool] = []
    env = make_env(cfg, pools)
    model = build_model(cfg, VecMonitor(env), out)
    if resume_from is not None:
        load_checkpoint(model, resume_from)
    callbacks: list[BaseCallback] = [CheckpointEvery(cfg.checkpoint_every, out / "checkpoints")]
    if cfg.opponents == "self-play":
        callbacks.append(SelfPlayCallback(pools, cfg))
    curve = EvalCurveCallback(cfg) if cfg.eval_every and cfg.curve_deals else None
    if curve is not None:
        callbacks.append(curve)
    if cfg.progress:
        callbacks.append(ProgressCallback(env, cfg.timesteps))
    start = time.perf_counter()
    try:
        model.learn(cfg.timesteps - model.num_timesteps, callback=callbacks, tb_log_name="ppo",
                    reset_num_timesteps=resume_from is None)
    except KeyboardInterrupt:
        path = save_checkpoint(model, out / "checkpoints")
        raise SystemExit(f"stopped after {model.num_timesteps:,} decisions: saved {path}; "
                         f"the same command with --resume continues") from None
    seconds = time.perf_counter() - start
    model.save(out / "model.zip")
    if cfg.init_net:
        net = model.policy.net
        if not isinstance(net, PolicyNet):
            raise TypeError(f"--init-net trains a PolicyNet, got {type(net).__name__}")
        save_net(out / "model.safetensors", net,
                 {"recipe": "PPO fine-tuning of a network (experiments/train_ppo.py "
                            "--init-net)", "command": command or "",
                  "config": dataclasses.asdict(cfg)})
    else:   # tensors and JSON: loading the policy runs no code
        export_policy(model.policy, out / "policy.safetensors")
    record = {
        "config": dataclasses.asdict(cfg),
        "command": command or "",
        "timesteps": int(model.num_timesteps),
        "seconds": round(seconds, 1),
        "steps_per_second": round(model.num_timesteps / seconds, 1),
        "env_share": round(env.seconds / seconds, 4),
        "torch": torch.__version__,
        "curve": curve.points if curve is not None else [],
    }
    write_atomic(out / "config.json", json.dumps(record, indent=2) + "\n")
    print(f"{model.num_timesteps:,} steps in {seconds:.0f} s: {record['steps_per_second']:,.0f}"
          f" steps/s, {record['env_share']:.1%} of the time in the env")
    if cfg.eval_deals:
        evaluate(cfg, PolicyAgent(model.policy), out)
    return record


def evaluate(cfg: Config, agent: PolicyAgent, out: Path) -> None:
    """Head-to-head of the trained policy against each evaluation opponent, every preset."""
    results = []
    for rules in cfg.rules():
        for name in cfg.eval_opponents.split(","):
            r = head_to_head(agent, make_agent(name), rules, cfg.eval_deals)
            results.append({"preset": rules.preset_name(), "players": rules.num_players,
                            "opponent": name, **r})
            print(f"{rules.preset_name()} {rules.num_players}p vs {name}: {r['win_rate']:.1%} "
                  f"[{r['low']:.1%}, {r['high']:.1%}] over {r['games']} games")
    write_atomic(out / "eval.json", json.dumps(results, indent=2) + "\n")
