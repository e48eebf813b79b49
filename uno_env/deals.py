"""Deal seeds by purpose: one module owns them, and no two purposes share a deal.

A deal is a game seed (:meth:`uno_env.Engine.reset`). Every script takes the seeds it
plays from here, named by what they are for:

* ``curve``: the fixed deals of training curves, from :data:`CURVE_START` (900,000) up to
  :data:`EVALUATION_START`;
* ``evaluation``: final evaluations, fresh deals nothing is trained, tuned or chosen
  on, from :data:`EVALUATION_START` (1,000,000) up to :data:`BLOCK` (``2**40``);
* every other purpose of :data:`PURPOSES` (training, tuning, selection, benchmark): a
  block of ``2**40`` seeds of its own above those, block ``k`` being
  ``[k * 2**40, (k + 1) * 2**40)``, cut into :data:`STREAMS` streams (a run's
  ``--seed``) of :data:`STREAM` deals.

The blocks are disjoint intervals and :func:`deal_seed` keeps every run of deals it
hands out inside its stream, so a training, tuning, selection or benchmark seed is
never a curve or evaluation deal (``tests/test_deals.py``). Later deals of a game that
resets without a seed come from a hash of its previous one, not from these integers.
"""

from __future__ import annotations

from . import checks

#: First seed of the training curves' fixed deals.
CURVE_START = 900_000
#: First seed of final evaluations (the curve's range ends here).
EVALUATION_START = 1_000_000
#: Size of each purpose's block; the evaluation range ends at the first block.
BLOCK = 1 << 40
#: Deals in one stream, and streams in one block (``STREAM * STREAMS == BLOCK``).
STREAM = 1 << 24
STREAMS = 1 << 16
#: The purposes with a block each, in block order (block 1 is the first).
PURPOSES = ("training", "tuning", "selection", "benchmark")


def deal_seed(purpose: str, stream: int = 0, index: int = 0, count: int = 1) -> int:
    """The seed of deal ``index`` of ``stream`` for ``purpose``; the ``count`` deals from
    it (seeds ``deal_seed(...) + 0 .. count - 1``) stay in that stream. Raises
    ``ValueError`` naming the purpose, stream or deals that do not fit."""
    if purpose not in PURPOSES:
        raise ValueError(f"unknown deal purpose {purpose!r}; purposes: {', '.join(PURPOSES)}")
    stream = checks.integer(stream, f"{purpose} stream (a run's seed)", 0, STREAMS - 1)
    index = checks.integer(index, f"{purpose} deal index", 0, STREAM - 1)
    count = checks.integer(count, f"{purpose} deal count", 1, STREAM - index)
    return (PURPOSES.index(purpose) + 1) * BLOCK + stream * STREAM + index


def purpose_of(seed: int) -> str:
    """What a deal seed is for: ``curve``, ``evaluation``, one of :data:`PURPOSES`, or
    ``unnamed`` (below the curve's range, or above the last block)."""
    if CURVE_START <= seed < EVALUATION_START:
        return "curve"
    if EVALUATION_START <= seed < BLOCK:
        return "evaluation"
    block = seed // BLOCK
    return PURPOSES[block - 1] if 1 <= block <= len(PURPOSES) else "unnamed"
