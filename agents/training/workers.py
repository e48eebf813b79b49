"""Games played in other processes: one engine per worker, shared memory, no pickling.

Processes scale with cores where an engine's threads do not (the engine's own
threads stop paying at 4 to 8). A :class:`WorkerGames` is a shard of games living in
a child process: the learner's rows, masks, actions, rewards and episode ends pass
through shared-memory arrays, and each step costs two one-byte messages on a pipe.
It offers the interface of :class:`.rollout.Games`, so :func:`.rollout.collect`
plays any mix of shards; with two or more, one shard steps in its process while the
network acts for another.

:func:`make_shards` splits ``num_games`` games into ``workers`` shards (0: one shard in
this process). Shard ``k`` holds games ``first_k ... first_k + n_k - 1`` and seeds its
engine with ``seed + first_k``, so its games are dealt as those games of one engine
seeded ``seed``; only uniformly random opponents draw from per-shard streams.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
from multiprocessing import shared_memory
from typing import Any

import numpy as np

from uno_env.actions import NUM_ACTIONS
from uno_env.engine.observe import OBS_SIZE
from uno_env.rules import Rules

from .encoder import PackedLayout
from .rollout import Games, Source

_STEP, _QUIT, _READY = b"s", b"q", b"k"


def default_workers() -> int:
    """Worker processes by default: none on a machine of 2 cores or fewer (measured
    slower there, docs/training.md), else one per core but one, up to 16."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cores = cores or 1
    return 0 if cores <= 2 else min(cores - 1, 16)


def _buffers(num_games: int, row_width: int, row_dtype: np.dtype
             ) -> dict[str, tuple[tuple[int, ...], np.dtype]]:
    return {"rows": ((num_games, row_width), row_dtype),
            "masks": ((num_games, NUM_ACTIONS), np.dtype(bool)),
            "actions": ((num_games,), np.dtype(np.int64)),
            "rewards": ((num_games,), np.dtype(np.float32)),
            "done": ((num_games,), np.dtype(bool)),
            "outcome": ((num_games,), np.dtype(np.float32))}


def _attach(names: dict[str, str], specs: dict[str, tuple[tuple[int, ...], np.dtype]]
            ) -> tuple[list[shared_memory.SharedMemory], dict[str, np.ndarray]]:
    blocks, arrays = [], {}
    for key, (shape, dtype) in specs.items():
        block = shared_memory.SharedMemory(name=names[key])
        blocks.append(block)
        arrays[key] = np.ndarray(shape, dtype, buffer=block.buf)
    return blocks, arrays


def _serve(conn: Any, names: dict[str, str], specs: dict[str, Any],
           games_args: tuple[Any, ...]) -> None:
    """The worker: build the games, then step them on every message until told to quit."""
    blocks, arrays = _attach(names, specs)
    try:
        games = Games(*games_args)
        arrays["rows"][...] = games.rows()
        arrays["masks"][...] = games.masks()
        conn.send_bytes(_READY)
        while conn.recv_bytes() == _STEP:
            rewards, done, outcome = games.step(arrays["actions"])
            arrays["rewards"][...] = rewards
            arrays["done"][...] = done
            arrays["outcome"][...] = outcome
            arrays["rows"][...] = games.rows()
            arrays["masks"][...] = games.masks()
            conn.send_bytes(_READY)
    except KeyboardInterrupt:
        pass
    except Exception as err:   # the parent raises it, with its message
        with contextlib.suppress(OSError):
            conn.send_bytes(b"e" + f"{type(err).__name__}: {err}".encode())
    finally:
        del arrays
        for block in blocks:
            block.close()


class WorkerGames:
    """A shard of :class:`.rollout.Games` played in a child process (see the module doc)."""

    def __init__(self, rules: Rules, num_games: int, opponents: Any, seed: int,
                 raw_kind: str, layout: PackedLayout, truncation_reward: float = 0.0) -> None:
        self.rules, self.num_games = rules, num_games
        width = layout.size if raw_kind == "packed" else OBS_SIZE
        dtype = np.dtype(np.int16) if raw_kind == "packed" else np.dtype(np.float32)
        specs = _buffers(num_games, width, dtype)
        self._blocks = {key: shared_memory.SharedMemory(
            create=True, size=max(int(np.prod(shape)) * dtype_.itemsize, 1))
            for key, (shape, dtype_) in specs.items()}
        self._arrays = {key: np.ndarray(shape, dtype_, buffer=self._blocks[key].buf)
                        for key, (shape, dtype_) in specs.items()}
        names = {key: block.name for key, block in self._blocks.items()}
        context = mp.get_context("spawn")   # no copy of the parent's torch threads or locks
        self._conn, child = context.Pipe()
        self._process = context.Process(
            target=_serve, args=(child, names, specs,
                                 (rules, num_games, opponents, seed, raw_kind, layout,
                                  truncation_reward)),
            daemon=True)
        self._process.start()
        child.close()

    def wait_ready(self) -> None:
        """Wait until the worker has built its games (each worker starts in seconds:
        :func:`make_shards` starts them all, then waits, so they start side by side)."""
        self._wait()

    def _wait(self) -> None:
        try:
            message = self._conn.recv_bytes()
        except EOFError:
            raise RuntimeError("a worker process ended unexpectedly") from None
        if message != _READY:
            raise RuntimeError(f"a worker process failed: {message[1:].decode()}")

    def rows(self) -> np.ndarray:
        return self._arrays["rows"].copy()

    def masks(self) -> np.ndarray:
        return self._arrays["masks"].copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._arrays["actions"][...] = actions
        self._conn.send_bytes(_STEP)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        self._wait()
        return (self._arrays["rewards"].copy(), self._arrays["done"].copy(),
                self._arrays["outcome"].copy())

    def close(self) -> None:
        """Stop the process and free the shared memory."""
        if self._process.is_alive():
            with contextlib.suppress(OSError):
                self._conn.send_bytes(_QUIT)
            self._process.join(timeout=10)
            if self._process.is_alive():
                self._process.kill()
        self._conn.close()
        self._arrays.clear()
        for block in self._blocks.values():
            block.close()
            block.unlink()
        self._blocks.clear()

    def __del__(self) -> None:
        if getattr(self, "_blocks", None):
            self.close()


def make_shards(rules: Rules, num_games: int, opponents: Any, seed: int, raw_kind: str,
                layout: PackedLayout, workers: int, truncation_reward: float = 0.0
                ) -> list[Source]:
    """``num_games`` games in ``workers`` processes (0: one shard in this process)."""
    if workers <= 0:
        return [Games(rules, num_games, opponents, seed, raw_kind, layout, truncation_reward)]
    if workers > num_games:
        raise ValueError(f"{workers} workers need at least as many games, got {num_games}")
    sizes = np.full(workers, num_games // workers)
    sizes[: num_games % workers] += 1
    firsts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    shards: list[WorkerGames] = []
    try:
        for first, size in zip(firsts, sizes, strict=True):
            shards.append(WorkerGames(rules, int(size), opponents, seed + int(first), raw_kind,
                                      layout, truncation_reward))
        for shard in shards:
            shard.wait_ready()
    except BaseException:
        for shard in shards:
            shard.close()
        raise
    return list(shards)   # as list[Source]: a list's item type is invariant
