"""Action features read from the observation, for agents that score actions linearly.

A heuristic here is a weight per feature (:data:`FEATURES`: the static ones, then
the dynamic ones): the score of an action is the weighted sum of its features, and
the agent plays the best-scoring legal action. The scorer itself is the engine's
numpy reference, :mod:`uno_env.engine.scoring` (which says what each feature
means), re-exported here under the names the agents use; its compiled twin plays
the same agents inside the engine (:func:`linear_playout_policy`).
"""

from __future__ import annotations

import numpy as np

from uno_env.engine.playout import LINEAR, PlayoutPolicy
from uno_env.engine.scoring import (
    DYNAMIC,
    FEATURES,
    STATIC,
    STATIC_MATRIX,
    TableView,
    dynamic_features,
    num_players,
    static_scores,
)
from uno_env.engine.scoring import linear_scores as feature_scores

_DRAW_VALUE = STATIC.index("draw_value")


def linear_playout_policy(weights: np.ndarray) -> PlayoutPolicy:
    """The weight vector ``float[len(FEATURES)]`` as a policy the compiled engine plays
    (:func:`uno_env.engine.playouts.play_policy`): it picks what :func:`feature_scores` picks."""
    w = np.asarray(weights, np.float64)
    return PlayoutPolicy(LINEAR, static=static_scores(w), weights=w[len(STATIC):].copy(),
                         answer_relief=w[_DRAW_VALUE] * STATIC_MATRIX[:, _DRAW_VALUE])


__all__ = ["DYNAMIC", "FEATURES", "STATIC", "TableView", "dynamic_features", "feature_scores",
           "linear_playout_policy", "num_players", "static_scores"]
