"""Side-by-side jobs for the experiment scripts: ``--jobs N`` runs their independent
pieces (tournament cells, training runs) in N processes, ``--jobs 1`` in this one.

Each piece is deterministic on its own, so the numbers do not depend on N.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor


class InProcess(contextlib.AbstractContextManager):
    """The executor of ``--jobs 1``: runs each job when it is submitted."""

    def submit(self, fn: Callable, *args: object) -> Future:
        future: Future = Future()
        future.set_result(fn(*args))
        return future

    def __exit__(self, *exc: object) -> None:
        return None


def executor(jobs: int) -> Executor | InProcess:
    """A pool of ``jobs`` processes, or :class:`InProcess` for one job."""
    if jobs < 1:
        raise ValueError(f"--jobs must be at least 1, got {jobs}")
    return ProcessPoolExecutor(jobs) if jobs > 1 else InProcess()
