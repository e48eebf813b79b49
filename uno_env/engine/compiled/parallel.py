"""The batch kernels over several threads: a block of games each, the same results.

Games never read one another, so a batch cut into contiguous pieces of games, each
run by the one-thread kernel of :mod:`.kernels` on whichever thread takes it, plays
exactly the games the whole batch plays on one thread, bit for bit, whatever the
number of threads. The kernels release the GIL (``nogil``), so the pieces run at the
same time on the calling thread and a pool of Python threads (they sleep between
calls, unlike a spinning OpenMP team, and a pool thread that starts late finds the
pieces already taken instead of holding the call up). The engine uses this for large calls when it
is given more than one thread (``Engine(threads=...)``).

A changing call checks every action before any block starts (:func:`.kernels.first_illegal`),
and saves the whole state first; when a block meets an error, the engine puts every
game back and replays the call on one thread, which raises the error itself and
undoes it again, so a failed call still changes no game.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

_pool: ThreadPoolExecutor | None = None


#: Pieces of work per thread: a thread that starts late (its core busy with other
#: work) finds fewer left, and the others do its share instead of waiting for it.
PIECES_PER_THREAD = 4
#: Fewest games of a piece (each costs a compiled call).
PIECE_GAMES = 64


def block_bounds(n: int, blocks: int) -> list[tuple[int, int]]:
    """``(first, end)`` of each of ``blocks`` contiguous blocks of ``n`` items."""
    return [(b * n // blocks, (b + 1) * n // blocks) for b in range(blocks)]


class _Call:
    """One call cut into pieces that any thread takes in turn until none is left."""

    def __init__(self, kernel: Callable[..., Any], bounds: list[tuple[int, int]],
                 args: Callable[[int, int], Sequence[Any]]) -> None:
        self.kernel, self.bounds, self.args = kernel, bounds, args
        self.taken = itertools.count()        # next() is atomic in CPython
        self.left = len(bounds)
        self.lock = threading.Lock()
        self.finished = threading.Event()
        self.error: BaseException | None = None

    def work(self) -> None:
        """Run pieces until none is left to take."""
        while (i := next(self.taken)) < len(self.bounds):
            try:
                self.kernel(*self.args(*self.bounds[i]))
            except Exception as err:  # raised by the calling thread
                with self.lock:
                    self.error = self.error or err
            finally:
                with self.lock:
                    self.left -= 1
                    if not self.left:
                        self.finished.set()


def in_blocks(kernel: Callable[..., Any], threads: int, n: int,
              args: Callable[[int, int], Sequence[Any]]) -> None:
    """``kernel(*args(first, end))`` over contiguous pieces of ``n`` games, on this thread
    and up to ``threads - 1`` pool threads at once; returns when every piece has run, and
    raises an error of a piece if any failed. The calling thread never waits for a pool
    thread to start: it takes the pieces no thread has taken yet."""
    global _pool
    if _pool is None or _pool._max_workers < threads - 1:
        _pool = ThreadPoolExecutor(max_workers=threads - 1, thread_name_prefix="uno_env")
    pieces = max(threads, min(PIECES_PER_THREAD * threads, n // PIECE_GAMES))
    call = _Call(kernel, block_bounds(n, pieces), args)
    for _ in range(threads - 1):
        _pool.submit(call.work)
    call.work()
    call.finished.wait()
    if call.error is not None:
        raise call.error
