"""Chunks of a schedule as Ray tasks (the ``rllib`` extra): many cores or machines, same results.

The chunks of a :class:`~uno_env.evaluation.play.Schedule` are split into shards of
consecutive chunks; each shard is one Ray task playing its chunks exactly as a
local run would (:func:`~uno_env.evaluation.play.play_chunks`), and the records are
merged in the canonical order. Since a chunk's games and agent random numbers
do not depend on what else is played with it, the results equal the local run's.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..rules import Rules
from .play import Clock, Records, Schedule, TournamentError, play_chunks


def _ray() -> Any:
    try:
        import ray
    except ImportError as err:
        raise ImportError("--ray needs Ray: pip install 'uno-env[rllib]'") from err
    return ray


def _probe(address: str, timeout: float = 5.0) -> None:
    """Raise ``ConnectionError`` if nothing listens at a ``host:port`` address (fast,
    where Ray itself would retry for tens of seconds); other addresses pass."""
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isascii() or not port.isdigit() or not host:
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as err:
        raise ConnectionError(f"nothing answers at {address} ({err})") from err


def connect(address: str | None = None) -> None:
    """Start a local Ray, or connect to the cluster at ``address`` (once per process);
    an address where no cluster answers raises :class:`~uno_env.evaluation.play.TournamentError`
    saying so, within seconds."""
    ray = _ray()
    if ray.is_initialized():
        return
    try:
        if address:
            _probe(address)
        ray.init(address=address, ignore_reinit_error=True, log_to_driver=False,
                 include_dashboard=False)
    except (ConnectionError, TimeoutError, RuntimeError) as err:
        where = f"the Ray cluster at {address}" if address else "a local Ray"
        message = " ".join(str(err).split())[:300]
        raise TournamentError(f"cannot connect to {where}: {message}") from None


def shards(num_chunks: int, num_shards: int) -> list[list[int]]:
    """``num_chunks`` chunk ids cut into at most ``num_shards`` runs of consecutive ids."""
    parts = np.array_split(np.arange(num_chunks), max(1, min(num_shards, num_chunks)))
    return [p.tolist() for p in parts if p.size]


def play_shard(rules: Rules, agents: Sequence[Any], schedule: Schedule, ids: list[int],
               batch: int, labels: Sequence[str], backend: str | None
               ) -> tuple[Records, Clock]:
    """One Ray task: the chunks ``ids`` played as :func:`play_chunks` would, and the
    agents' clock."""
    clock = Clock.zeros(len(agents))
    records = play_chunks(rules, agents, schedule, ids, batch, None, labels, backend, clock)
    return records, clock


def play_on_ray(rules: Rules, agents: Sequence[Any], schedule: Schedule, batch: int,
                labels: Sequence[str], address: str | None = None,
                on_progress: Callable[[int], None] | None = None,
                backend: str | None = None, num_shards: int | None = None,
                clock: Clock | None = None) -> Records:
    """Play every chunk of ``schedule`` as Ray tasks and merge their records.

    Connects to the cluster at ``address`` or starts a local Ray (reusing one
    already started by this process). ``num_shards`` defaults to twice the
    cluster's CPUs. ``agents`` are specs or picklable agent objects; ``clock`` counts
    the agents' thinking time and decisions over all tasks.
    """
    connect(address)
    ray = _ray()
    if num_shards is None:
        num_shards = 2 * max(1, int(ray.cluster_resources().get("CPU", 1)))
    task = ray.remote(play_shard)
    chunks = schedule.chunks()
    pending = {}
    for ids in shards(len(chunks), num_shards):
        games = sum(chunks[i][2] - chunks[i][1] for i in ids)
        ref = task.remote(rules, list(agents), schedule, ids, batch, list(labels), backend)
        pending[ref] = games
    parts = []
    while pending:
        done, _ = ray.wait(list(pending), num_returns=1)
        for ref in done:
            records, used = ray.get(ref)
            parts.append(records)
            if clock is not None:
                clock.add(used)
            if on_progress is not None:
                on_progress(pending[ref])
            del pending[ref]
    return Records.concat(parts)
