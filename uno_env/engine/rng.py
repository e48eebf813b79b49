"""Counter-based per-game random numbers.

Every game owns a 64-bit key (derived from its seed) and a counter. A random
number is a SplitMix64 hash of ``key + counter``; no generator state is carried,
so a game draws exactly the same numbers whatever the batch it runs in.
"""

from __future__ import annotations

import numpy as np

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)


def mix64(x: np.ndarray) -> np.ndarray:
    """The SplitMix64 finaliser: a bijective, well-mixing hash of uint64 values."""
    x = np.asarray(x, dtype=np.uint64)
    x = (x ^ (x >> _S30)) * _M1
    x = (x ^ (x >> _S27)) * _M2
    return x ^ (x >> _S31)


def seed_key(seeds: np.ndarray) -> np.ndarray:
    """The hashing key of each game seed (any integers, negative ones included)."""
    return mix64(np.asarray(seeds, dtype=np.int64).astype(np.uint64) * GOLDEN + GOLDEN)


def next_random(key: np.ndarray, counter: np.ndarray) -> np.ndarray:
    """One uint64 per game from ``(key, counter)``; the caller advances ``counter``."""
    return mix64(key + (counter + np.uint64(1)) * GOLDEN)


def random_below(key: np.ndarray, counter: np.ndarray, n: int | np.ndarray) -> np.ndarray:
    """A uniform integer in ``[0, n)`` per game (modulo bias < 2**-58)."""
    return (next_random(key, counter) % np.asarray(n, dtype=np.uint64)).astype(np.int64)


def shuffle_order(key: np.ndarray, counter: np.ndarray, lengths: np.ndarray, width: int
                  ) -> np.ndarray:
    """Per game, a random permutation of ``range(length)`` padded by the unused positions.

    Returns ``int[G, width]``: the first ``lengths[g]`` entries of row ``g`` are a
    uniformly random order of the positions ``0 .. lengths[g]-1``.
    """
    base = next_random(key, counter)
    positions = np.arange(width, dtype=np.uint64)
    keys = mix64(base[:, None] + (positions[None, :] + np.uint64(1)) * GOLDEN)
    keys[positions[None, :] >= np.asarray(lengths, dtype=np.uint64)[:, None]] = np.uint64(2**64 - 1)
    # Valid keys are distinct 64-bit hashes, so any sort gives the same order for them
    # (ties only among the padding, which is never read): the fastest sort will do.
    return np.argsort(keys, axis=1)
