"""The learner core: batches of engine games, played by a network, recorded for learning.

:class:`Games` is one :class:`uno_env.Engine` of N games with one learner seat each
(:class:`uno_env.envs.learner.LearnerCore` underneath: the opponents, compiled heuristics,
snapshots or networks, act inside the same batch until every game waits on its
learner). It hands out the learner's rows straight from the engine (packed
``int16`` rows or dense ``float32`` observations, as the network reads them) and
legal masks, takes one action per game, and starts a new episode in every game that
ended, seating the learner one seat further on.

:func:`collect` plays ``steps`` decisions of every game with a network on any
device and returns a :class:`Rollout`: the prepared network inputs (each sample
prepared once), masks, actions, log-probabilities, values, rewards and episode ends,
as tensors on that device, and the time spent in the engine and in the network.
PPO, DMC and distillation read rollouts; :mod:`.workers` plays the games in other
processes behind the same interface.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import torch

from uno_env.engine.observe import rules_vector
from uno_env.engine.packed import packed_views
from uno_env.engine.packed_rows import observe_packed
from uno_env.envs.learner import LearnerCore
from uno_env.rules import Rules

from .encoder import PackedLayout, conform


class Source(Protocol):
    """What :func:`collect` plays: a shard of games waiting on their learners. A step is
    started by :meth:`step_async` and finished by :meth:`step_wait`, so a shard played in
    another process (:mod:`.workers`) steps while the network acts for the next shard."""

    num_games: int
    rules: Rules

    def rows(self) -> np.ndarray: ...
    def masks(self) -> np.ndarray: ...
    def step_async(self, actions: np.ndarray) -> None: ...
    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...
    def close(self) -> None: ...


class Games:
    """N games of ``rules`` with a learner seat each (rotating by episode), for a
    network that reads ``raw_kind`` rows (``"dense"`` or ``"packed"`` in ``layout``).
    A game cut at ``max_turns`` pays the learner ``truncation_reward`` (0: nothing;
    Deep Monte-Carlo counts it a loss, so that stalling never pays)."""

    def __init__(self, rules: Rules, num_games: int, opponents: Any, seed: int,
                 raw_kind: str = "packed", layout: PackedLayout | None = None,
                 truncation_reward: float = 0.0) -> None:
        if raw_kind not in ("dense", "packed"):
            raise ValueError(f"raw_kind must be 'dense' or 'packed', got {raw_kind!r}")
        self.rules, self.raw_kind = rules, raw_kind
        self.layout = layout or PackedLayout.of(rules)
        self._conform = list(packed_views(rules)) != list(self.layout.views())
        self.core = LearnerCore(rules, num_games, opponents, learner_seat="rotate", seed=seed)
        self.num_games = self.core.num_games
        self.truncation_reward = np.float32(truncation_reward)
        self._returns = np.zeros(self.num_games, np.float32)
        self._result: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def rows(self) -> np.ndarray:
        """The learner's view of every game: ``int16`` packed rows or ``float32`` rows."""
        core = self.core
        if self.raw_kind == "dense":
            return core.observe()
        packed = observe_packed(core.engine, core.seats)
        return conform(packed, self.rules, self.layout) if self._conform else packed

    def masks(self) -> np.ndarray:
        """``bool[N, A]``: the learner's legal actions in every game."""
        return self.core.action_masks()

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Play the learner's ``actions``, the opponents to the learner's next decision,
        and new episodes where one ended. Returns ``(rewards float32[N], done bool[N],
        outcome float32[N])``: ``outcome`` is the ended episode's return where ``done``
        (the learner's summed rewards: +1 a win, -1/(P-1) a loss), 0 elsewhere."""
        core = self.core
        rewards, terminated, truncated, _ = core.step(actions)
        done = terminated | truncated
        if self.truncation_reward and truncated.any():
            rewards = rewards + np.where(truncated, self.truncation_reward, np.float32(0))
        self._returns += rewards
        outcome = np.where(done, self._returns, 0.0).astype(np.float32)
        ended = np.flatnonzero(done)
        if ended.size:
            self._returns[ended] = 0.0
            core.reset(games=ended)
        return rewards, done, outcome

    def step_async(self, actions: np.ndarray) -> None:
        self._result = self.step(actions)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self._result is None:
            raise RuntimeError("step_wait without step_async")
        result, self._result = self._result, None
        return result

    def close(self) -> None:
        """Nothing to release (the games live in this process)."""


@dataclass
class Rollout:
    """``steps`` x ``N`` decisions as tensors on one device, flattened step-major
    (sample ``t * N + g`` is game ``g`` at step ``t``)."""

    inputs: tuple[torch.Tensor, ...]
    masks: torch.Tensor        # bool[S, A]
    actions: torch.Tensor      # int64[S]
    log_probs: torch.Tensor    # float[S]
    values: torch.Tensor       # float[S]
    rewards: torch.Tensor      # float[T, N]
    dones: torch.Tensor        # float[T, N]: 1 where the episode ended at this decision
    last_values: torch.Tensor  # float[N]: the value of the position after the last step
    rules_table: torch.Tensor
    rules_index: torch.Tensor | None
    outcomes: np.ndarray       # returns of the episodes that ended
    engine_seconds: float = 0.0
    network_seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def size(self) -> int:
        return int(self.actions.numel())


def take_rows(value: Any, rows: Any) -> Any:
    """``value``'s rows ``rows``: of a tensor, of each tensor of a tuple; None stays None."""
    if value is None:
        return None
    if isinstance(value, tuple):
        return tuple(x[rows] for x in value)
    return value[rows]


def join_rows(a: Any, b: Any) -> Any:
    """``a``'s rows then ``b``'s, as :func:`take_rows` reads them (None with None)."""
    if a is None or b is None:
        return None
    if isinstance(a, tuple):
        return tuple(torch.cat([x, y]) for x, y in zip(a, b, strict=True))
    return torch.cat([a, b])


def to_device(array: np.ndarray, device: torch.device) -> torch.Tensor:
    """A numpy array as a tensor on ``device`` (no copy on the CPU)."""
    tensor = torch.from_numpy(np.ascontiguousarray(array))
    return tensor if device.type == "cpu" else tensor.to(device, non_blocking=True)


def masked_log_probs(logits: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """Log-probabilities of the masked softmax, floored at -80 (illegal actions sit there):
    finite, so entropies and gradients through them stay numbers, and above float32's
    underflow, where ``exp`` takes a path many times slower."""
    return torch.log_softmax(logits.masked_fill(~masks, -1e9), dim=-1).clamp(min=-80.0)


def sample_actions(log_probs: torch.Tensor, masks: torch.Tensor,
                   generator: torch.Generator | None) -> torch.Tensor:
    """One legal action per row, sampled from the log-probabilities: the first action
    whose cumulative probability (over legal actions only) reaches a uniform number,
    one random number a row."""
    cumulative = log_probs.exp().masked_fill_(~masks, 0.0).cumsum_(dim=-1)
    u = torch.rand((log_probs.shape[0], 1), generator=generator, device=log_probs.device)
    return (cumulative < u * cumulative[:, -1:]).sum(dim=-1)


def rules_of(shards: Sequence[Source], device: torch.device
             ) -> tuple[torch.Tensor, torch.Tensor | None]:
    """The rule vectors of the shards' games: ``(table float[U, R], index long[N] | None)``,
    one row and no index when every shard plays the same rules."""
    distinct = list(dict.fromkeys(shard.rules for shard in shards))
    table = to_device(np.stack([rules_vector(r) for r in distinct]), device)
    if len(distinct) == 1:
        return table, None
    index = np.concatenate([np.full(sh.num_games, distinct.index(sh.rules)) for sh in shards])
    return table, to_device(index.astype(np.int64), device)


def collect(shards: Source | Sequence[Source], net: Any, steps: int,
            device: torch.device, generator: torch.Generator | None = None,
            epsilon: float = 0.0, choose: Any = None, label: Any = None,
            temperature: float = 0.0) -> Rollout:
    """Play ``steps`` decisions of every game of the ``shards`` with ``net`` (sampling its
    masked softmax; ``epsilon`` > 0, for value networks: a uniformly random legal action
    with probability ``epsilon``, else the action of highest value, or with
    ``temperature`` > 0 a sample of the masked softmax of ``value / temperature``) and
    record them. Games are numbered shard after shard.

    ``choose``, if given, picks the played actions instead (``choose(shard, rows, masks)
    -> int64[n]``, e.g. a teacher or another agent); the network's own log-probabilities
    of those actions are recorded. ``label``, if given, is called the same way and its
    actions are recorded beside the played ones (``extra["labels"]``: a teacher's choice
    in the positions the network reaches, for DAgger).

    The shards take turns: while one steps (in its process, with :mod:`.workers`), the
    network acts for the next."""
    shards = [shards] if not isinstance(shards, Sequence) else list(shards)
    rules_table, rules_index = rules_of(shards, device)
    starts = np.cumsum([0] + [sh.num_games for sh in shards])
    per_shard = [None if rules_index is None else rules_index[a:b]
                 for a, b in zip(starts[:-1], starts[1:], strict=True)]
    record: dict[str, list[Any]] = {k: [] for k in ("inputs", "masks", "actions", "log_probs",
                                                    "values", "rewards", "dones", "labels")}
    outcomes: list[np.ndarray] = []
    engine_s = network_s = 0.0
    pending = [False] * len(shards)

    def act(k: int) -> None:
        nonlocal engine_s, network_s
        shard = shards[k]
        start = time.perf_counter()
        rows, mask = shard.rows(), shard.masks()
        now = time.perf_counter()
        engine_s += now - start
        mask_t = to_device(mask, device)
        with torch.inference_mode():
            inputs = net.prepare(to_device(rows, device))
            logits, value = net.evaluate(inputs, rules_table, per_shard[k])
            logp = masked_log_probs(logits.float(), mask_t)
            if choose is not None:
                action = to_device(np.asarray(choose(shard, rows, mask), np.int64), device)
            elif epsilon > 0:
                action = logp.argmax(dim=-1) if temperature <= 0 else sample_actions(
                    masked_log_probs(logits.float() / temperature, mask_t), mask_t, generator)
                explore = torch.rand(shard.num_games, generator=generator,
                                     device=device) < epsilon
                uniform = sample_actions(torch.zeros_like(logp), mask_t, generator)
                action = torch.where(explore, uniform, action)
            else:
                action = sample_actions(logp, mask_t, generator)
            chosen = logp.gather(1, action[:, None]).squeeze(1)
            if label is not None:
                record["labels"].append(
                    to_device(np.asarray(label(shard, rows, mask), np.int64), device))
        action_np = action.cpu().numpy()
        later = time.perf_counter()
        network_s += later - now
        for key, item in zip(("inputs", "masks", "actions", "log_probs", "values"),
                             (inputs, mask_t, action, chosen, value.float()), strict=True):
            record[key].append(item)
        shard.step_async(action_np)
        engine_s += time.perf_counter() - later

    def finish(k: int) -> None:
        nonlocal engine_s
        start = time.perf_counter()
        reward, done, outcome = shards[k].step_wait()
        engine_s += time.perf_counter() - start
        record["rewards"].append(reward)
        record["dones"].append(done)
        if done.any():
            outcomes.append(outcome[done])

    try:   # pending[k]: shard k's step was sent and its result not yet taken
        for _ in range(steps):
            for k in range(len(shards)):
                if pending[k]:
                    pending[k] = False
                    finish(k)
                act(k)
                pending[k] = True
        for k in range(len(shards)):
            pending[k] = False
            finish(k)
    finally:
        for k in range(len(shards)):
            if pending[k]:
                shards[k].step_wait()
    now = time.perf_counter()
    with torch.inference_mode():
        last = [net.evaluate(net.prepare(to_device(sh.rows(), device)), rules_table,
                             per_shard[k])[1].float() for k, sh in enumerate(shards)]
    network_s += time.perf_counter() - now
    n = int(starts[-1])
    index = None if rules_index is None else rules_index.repeat(steps)
    inputs = tuple(torch.cat(column) for column in zip(*record["inputs"], strict=True))
    return Rollout(
        inputs=inputs, masks=torch.cat(record["masks"]), actions=torch.cat(record["actions"]),
        log_probs=torch.cat(record["log_probs"]), values=torch.cat(record["values"]),
        rewards=to_device(np.concatenate(record["rewards"]).reshape(steps, n), device),
        dones=to_device(np.concatenate(record["dones"]).reshape(steps, n)
                        .astype(np.float32), device),
        last_values=torch.cat(last), rules_table=rules_table, rules_index=index,
        outcomes=np.concatenate(outcomes) if outcomes else np.zeros(0, np.float32),
        engine_seconds=engine_s, network_seconds=network_s,
        extra={"labels": torch.cat(record["labels"])} if record["labels"] else {})
