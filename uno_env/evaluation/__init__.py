"""Evaluation: who beats whom, on the same cards, with 95% intervals.

One module for every number the project reports about strength:

* :mod:`.play`: the schedule of seatings and duplicate deals and the batch player
  every evaluation runs on (any agent, search agents included);
* :mod:`.duplicate`: one agent against another (per-deal wins, win rates, paired
  differences), what the training scripts and ``experiments/evaluate.py`` report;
* :mod:`.intervals`: the one interval method (normal over deals; bootstrap for
  ratings);
* :mod:`.ratings`: Bradley-Terry heads-up, openskill at 3+ players;
* :mod:`.ray`: the same games as Ray tasks.

And what is built on them (imported by name, not here: they need more than numpy):

* :mod:`.tournament`: round-robin tournaments, win rates, head-to-head tables, ratings;
* :mod:`.report`: tournament results as tables, JSON, CSV and figures;
* :mod:`.leaderboard`: the canonical leaderboard on its published deals;
* :mod:`.simulate`: random-play statistics (the ``uno-env simulate`` command).
"""

from .duplicate import (
    CURVE_SEED,
    FRESH_SEED,
    deal_wins,
    head_to_head,
    play_rotated,
    versus_base,
)
from .intervals import (
    bootstrap_interval,
    count_interval,
    mean_interval,
    rate_interval,
    win_rate,
)
from .play import Clock, Records, Schedule, TournamentError, play_chunks, seatings
from .ratings import Ratings, bradley_terry

__all__ = ["CURVE_SEED", "FRESH_SEED", "Clock", "Ratings", "Records", "Schedule",
           "TournamentError", "bootstrap_interval", "bradley_terry", "count_interval",
           "deal_wins", "head_to_head", "mean_interval", "play_chunks", "play_rotated",
           "rate_interval", "seatings", "versus_base", "win_rate"]
