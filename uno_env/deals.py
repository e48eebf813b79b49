"""Deal seeds by purpose: one module owns them, and no two purposes share a deal.

A deal is a game seed (:meth:`uno_env.Engine.reset`). Every script takes the seeds it
plays from here, named by what they are for:

* ``curve``: the fixed deals of training curves, from :data:`CURVE_START` (900,000) up to
  :data:`EVALUATION_START`;
* ``evaluation``: final evaluations, fresh deals nothing is trained, tuned or chosen
  on, from :data:`EVALUATION_START` (1,000,000) up to :data:`BLOCK` (``2**40``), cut
  into :data:`EVALUATION_STREAMS` streams of :data:`STREAM` deals. The ``--seed`` of
  ``uno-env tournament``, ``uno-env leaderboard`` and ``experiments/evaluate.py`` names
  such a stream: deal ``d`` of seed ``s`` is ``deal_seed("evaluation", s, d)`` in all
  three, so the same seed and deal count give the same deals;
* every purpose of :data:`PURPOSES` (training, tuning, selection, benchmark, soak): a
  block of ``2**40`` seeds of its own above those, block ``k`` being
  ``[k * 2**40, (k + 1) * 2**40)``, cut into :data:`STREAMS` streams (a run's
  ``--seed``) of :data:`STREAM` deals.

The blocks are disjoint intervals and :func:`deal_seed` keeps every run of deals it
hands out inside its stream, so a training, tuning, selection, benchmark or soak seed is
never a curve or evaluation deal (``tests/test_deals.py``). Later deals of a game that
resets without a seed come from a hash of its previous one, not from these integers.
"""

from __future__ import annotations

from typing import Any

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
#: Streams of the evaluation range (a tournament's ``--seed`` is one of them).
EVALUATION_STREAMS = (BLOCK - EVALUATION_START) // STREAM
#: The purposes with a block each, in block order (block 1 is the first).
PURPOSES = ("training", "tuning", "selection", "benchmark", "soak")


def deal_seed(purpose: str, stream: int = 0, index: int = 0, count: int = 1) -> int:
    """The seed of deal ``index`` of ``stream`` for ``purpose`` (``evaluation`` or one of
    :data:`PURPOSES`); the ``count`` deals from it (seeds ``deal_seed(...) + 0 ..
    count - 1``) stay in that stream. Raises ``ValueError`` naming the purpose, stream or
    deals that do not fit."""
    if purpose == "evaluation":
        start, streams = EVALUATION_START, EVALUATION_STREAMS
    elif purpose in PURPOSES:
        start, streams = (PURPOSES.index(purpose) + 1) * BLOCK, STREAMS
    else:
        raise ValueError(f"unknown deal purpose {purpose!r}; purposes: evaluation, "
                         f"{', '.join(PURPOSES)}")
    stream = checks.integer(stream, f"{purpose} stream (a run's seed)", 0, streams - 1)
    index = checks.integer(index, f"{purpose} deal index", 0, STREAM - 1)
    count = checks.integer(count, f"{purpose} deal count", 1, STREAM - index)
    return start + stream * STREAM + index


def purpose_of(seed: int) -> str:
    """What a deal seed is for: ``curve``, ``evaluation``, one of :data:`PURPOSES`, or
    ``unnamed`` (below the curve's range, or above the last block)."""
    if CURVE_START <= seed < EVALUATION_START:
        return "curve"
    if EVALUATION_START <= seed < BLOCK:
        return "evaluation"
    block = seed // BLOCK
    return PURPOSES[block - 1] if 1 <= block <= len(PURPOSES) else "unnamed"


def describe(first: int, count: int) -> dict[str, Any]:
    """A record's account of the ``count`` deals from seed ``first``: their namespace (as
    :func:`purpose_of`) and first and last seed. Raises ``ValueError`` when they straddle
    two namespaces."""
    last = first + count - 1
    namespace = purpose_of(first)
    if purpose_of(last) != namespace:
        raise ValueError(f"deals {first:,} .. {last:,} straddle the {namespace} and "
                         f"{purpose_of(last)} namespaces")
    return {"namespace": namespace, "first": int(first), "last": int(last),
            "count": int(count)}
