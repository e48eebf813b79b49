"""Side-by-side jobs for the experiment scripts: ``--jobs N`` runs their independent
pieces (tournament cells, training runs) in N processes, ``--jobs 1`` in this one.

Each piece is deterministic on its own, so the numbers do not depend on N. Leaving the
pool by an exception (Ctrl-C, which also stops the pieces running in the workers) starts
no further piece: a process pool hands a worker its next piece before the piece running
there ends, so the pool's workers are told to skip every piece they take after that.
"""

from __future__ import annotations

import contextlib
import multiprocessing
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

#: Set in every worker of a :class:`StoppablePool`: the pool was left by an exception.
_stopped: Any = None


class JobSkipped(RuntimeError):
    """A piece taken by a worker after its pool was left by an exception."""


class InProcess(contextlib.AbstractContextManager):
    """The executor of ``--jobs 1``: runs each job when it is submitted."""

    def submit(self, fn: Callable, *args: object) -> Future:
        future: Future = Future()
        future.set_result(fn(*args))
        return future

    def __exit__(self, *exc: object) -> None:
        return None


class StoppablePool(contextlib.AbstractContextManager):
    """A pool of ``jobs`` processes whose pieces not yet started are skipped once the
    ``with`` block is left by an exception; a clean exit waits for every piece."""

    def __init__(self, jobs: int) -> None:
        self._stop = multiprocessing.get_context().Event()
        self._pool = ProcessPoolExecutor(jobs, initializer=_remember, initargs=(self._stop,))

    def submit(self, fn: Callable, *args: object) -> Future:
        return self._pool.submit(_unless_stopped, fn, *args)

    def __exit__(self, kind: object, *exc: object) -> None:
        if kind is not None:
            self._stop.set()
        self._pool.shutdown(wait=True, cancel_futures=kind is not None)
        return None


def _remember(stop: Any) -> None:
    global _stopped
    _stopped = stop


def _unless_stopped(fn: Callable, *args: object) -> Any:
    if _stopped is not None and _stopped.is_set():
        raise JobSkipped("the pool was left before this piece started")
    return fn(*args)


def executor(jobs: int) -> StoppablePool | InProcess:
    """A pool of ``jobs`` processes, or :class:`InProcess` for one job."""
    if jobs < 1:
        raise ValueError(f"--jobs must be at least 1, got {jobs}")
    return StoppablePool(jobs) if jobs > 1 else InProcess()
