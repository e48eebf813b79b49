"""Deal seeds by purpose (uno_env.deals): the purposes never share a deal."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from uno_env.deals import (
    BLOCK,
    CURVE_START,
    EVALUATION_START,
    PURPOSES,
    STREAM,
    STREAMS,
    deal_seed,
    purpose_of,
)
from uno_env.evaluation import CURVE_SEED, FRESH_SEED


@given(st.sampled_from(PURPOSES), st.integers(0, STREAMS - 1), st.integers(0, STREAM - 1),
       st.integers(1, STREAM))
def test_no_training_tuning_or_selection_deal_is_a_curve_or_evaluation_deal(
        purpose: str, stream: int, index: int, count: int) -> None:
    if index + count > STREAM:
        with pytest.raises(ValueError, match="deal count"):
            deal_seed(purpose, stream, index, count)
        return
    first = deal_seed(purpose, stream, index, count)
    for seed in (first, first + count - 1):
        assert purpose_of(seed) == purpose
        assert not CURVE_START <= seed < BLOCK


def test_streams_of_one_purpose_are_disjoint_and_purposes_do_not_meet() -> None:
    assert deal_seed("training", 1) == deal_seed("training", 0, STREAM - 1) + 1
    last = deal_seed("training", STREAMS - 1, STREAM - 1)
    assert last + 1 == deal_seed("tuning") and purpose_of(last) == "training"
    assert purpose_of(deal_seed("benchmark", STREAMS - 1, STREAM - 1) + 1) == "unnamed"


def test_the_evaluations_keep_their_published_seeds() -> None:
    assert (CURVE_SEED, FRESH_SEED) == (CURVE_START, EVALUATION_START) == (900_000, 1_000_000)
    assert purpose_of(FRESH_SEED) == purpose_of(7_000_000) == "evaluation"
    assert purpose_of(CURVE_SEED + 99_999) == "curve" and purpose_of(0) == "unnamed"


@pytest.mark.parametrize("args,message", [
    (("playing",), "unknown deal purpose 'playing'"),
    (("training", STREAMS), "training stream"),
    (("tuning", 0, -1), "tuning deal index"),
    (("selection", 0, STREAM - 2, 3), "selection deal count"),
])
def test_deals_that_do_not_fit_are_refused_by_name(args: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        deal_seed(*args)
