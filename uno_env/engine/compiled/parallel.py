"""The batch kernels over several threads: a block of games each, the same results.

Games never read one another, so a batch cut into contiguous blocks of games, each
block run by the one-thread kernel of :mod:`.kernels` on its own thread, plays
exactly the games the whole batch plays on one thread, bit for bit, whatever the
number of threads. The kernels release the GIL (``nogil``), so the blocks run at the
same time; the calling thread runs the first block and a pool of Python threads the
others (they sleep between calls, so an engine given threads costs nothing while it
waits, unlike a spinning OpenMP team). The engine uses this for large calls when it
is given more than one thread (``Engine(threads=...)``).

A changing call checks every action before any block starts (:func:`first_illegal`),
and saves the whole state first; when a block meets an error, the engine puts every
game back and replays the call on one thread, which raises the error itself and
undoes it again, so a failed call still changes no game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
from numba import njit

from ...actions import NUM_ACTIONS
from ...cards import NUM_KINDS
from .legal import legal_row

_pool: ThreadPoolExecutor | None = None


@njit(cache=True, nogil=True)
def first_illegal(rules, s, games, actions, masks):
    """The position in ``games`` of the first running game whose action is not legal, or
    -1 (``masks``: the legal masks of all games, or no rows to compute them)."""
    mask = np.empty(NUM_ACTIONS, np.bool_)
    kinds = np.empty(NUM_KINDS, np.bool_)
    for i in range(games.size):
        g = games[i]
        if s.done[g]:
            continue
        a = actions[i]
        if a < 0 or a >= NUM_ACTIONS:
            return i
        if masks.shape[0] > 0:
            if not masks[g, a]:
                return i
        else:
            legal_row(rules, s, g, mask, kinds)
            if not mask[a]:
                return i
    return -1


def block_bounds(n: int, blocks: int) -> list[tuple[int, int]]:
    """``(first, end)`` of each of ``blocks`` contiguous blocks of ``n`` items."""
    return [(b * n // blocks, (b + 1) * n // blocks) for b in range(blocks)]


def in_blocks(kernel: Callable[..., Any], blocks: int, n: int,
              args: Callable[[int, int], Sequence[Any]]) -> list[Any]:
    """``kernel(*args(first, end))`` for each of ``blocks`` blocks of ``n`` games at once,
    the first on this thread; their results in block order. Raises the first error of
    any block once every block has ended."""
    global _pool
    if _pool is None or _pool._max_workers < blocks - 1:
        _pool = ThreadPoolExecutor(max_workers=blocks - 1, thread_name_prefix="uno_env")
    bounds = block_bounds(n, blocks)
    futures = [_pool.submit(kernel, *args(*b)) for b in bounds[1:]]
    first: BaseException | None = None
    results = []
    try:
        results.append(kernel(*args(*bounds[0])))
    except Exception as err:  # noqa: BLE001 - raised once the other blocks have ended
        first = err
    for future in futures:
        try:
            results.append(future.result())
        except Exception as err:  # noqa: BLE001 - the first error is raised below
            first = first or err
    if first is not None:
        raise first
    return results
