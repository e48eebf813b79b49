"""No training, tuning or selection path plays a final-evaluation (or curve) deal: every
seed such a path hands the engine is recorded and named by :func:`uno_env.deals.purpose_of`."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from uno_agents import make_agent
from uno_env import Engine, Rules
from uno_env.deals import purpose_of
from uno_env.tooling.dataclass_flags import parse_dataclass

pytest.importorskip("torch")

pytestmark = pytest.mark.train

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def seeds_played(monkeypatch: pytest.MonkeyPatch) -> list:
    """Every seed given to an :class:`Engine` (built or reset) while the test runs."""
    seen: list = []
    init, reset = Engine.__init__, Engine.reset

    def spy_init(self, rules=None, num_games=1, seed=None, *args, **kwargs):
        seen.append(seed)
        init(self, rules, num_games, seed, *args, **kwargs)

    def spy_reset(self, seed=None, games=None):
        seen.append(seed)
        reset(self, seed, games)

    monkeypatch.setattr(Engine, "__init__", spy_init)
    monkeypatch.setattr(Engine, "reset", spy_reset)
    return seen


def purposes(seen: list) -> set[str]:
    """The purposes of every seed recorded (a game reset without a seed takes none)."""
    given = [np.atleast_1d(np.asarray(s, np.int64)) for s in seen if s is not None]
    assert given, "no seed was recorded"
    return {purpose_of(int(s)) for s in np.concatenate(given)}


@pytest.mark.parametrize("learner", ["ppo", "dmc"])
def test_the_learners_train_on_training_deals_only(learner: str, tmp_path: Path,
                                                    seeds_played: list) -> None:
    from uno_agents.training import dmc, ppo

    module, budget = {"ppo": (ppo, ["--timesteps", "64", "--n-steps", "4",
                                    "--batch-size", "32"]),
                      "dmc": (dmc, ["--decisions", "64"])}[learner]
    config = module.PPOConfig if learner == "ppo" else module.DMCConfig
    cfg = parse_dataclass(config, "", [*budget, "--num-games", "8", "--hidden", "8",
                                       "--curve-deals", "0", "--eval-deals", "0",
                                       "--no-progress", "--out", str(tmp_path / "run")])
    module.train(cfg)
    assert purposes(seeds_played) == {"training"}


def test_advantage_data_collects_on_training_deals_only(seeds_played: list) -> None:
    from uno_agents.advantage_data import sampled_decisions

    rules = Rules.preset("official", num_players=2)
    stream = sampled_decisions(rules, make_agent("tuned"), make_agent("greedy"), 4, 1.0, 3,
                               np.random.default_rng(0))
    for _ in range(3):
        next(stream)
    assert purposes(seeds_played) == {"training"}


def test_heuristic_tuning_tunes_on_tuning_deals_and_picks_on_selection_deals(
        monkeypatch: pytest.MonkeyPatch, seeds_played: list) -> None:
    monkeypatch.syspath_prepend(str(REPO / "experiments"))
    import tune_heuristic

    monkeypatch.setattr(sys, "argv", ["tune_heuristic.py", "--generations", "1",
                                      "--population", "2", "--elite", "1", "--deals", "2",
                                      "--pick", "2", "--seed", "3"])
    tune_heuristic.main()
    assert purposes(seeds_played) == {"tuning", "selection"}
