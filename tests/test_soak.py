"""A short soak (experiments/soak.py): random play at 7 and 10 players over every preset on
each backend, every invariant checked after every step; and the soak's own checks."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import AVAILABLE_BACKENDS

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "experiments"))

import soak  # noqa: E402

from uno_env import Engine, Rules  # noqa: E402


def test_short_soak_at_seven_and_ten_players_finds_nothing():
    config = soak.SoakConfig(decisions=32_000, players=(7, 10),
                             backends=tuple(AVAILABLE_BACKENDS), games=8, progress=False)
    report = soak.soak(config)
    assert report.ok, soak.summary(report)
    assert report.combinations == 2 * 8 * len(AVAILABLE_BACKENDS)   # teams needs 4 players
    assert report.decisions >= config.decisions
    assert report.games > 8 * report.combinations    # games finished and restarted


def test_check_reports_lost_cards_an_empty_mask_and_a_changed_finished_game():
    eng = Engine(Rules(num_players=3), 3, seed=0, backend="numpy")
    done = np.array([False, False, True])
    s = eng.state
    s.done[2] = True
    frozen = eng.state.take(np.flatnonzero(done))
    s.hands[0, 0, :] = 0          # cards lost (and hand size wrong)
    s.scores[2, 0] = 7            # a finished game changed
    eng.state = s
    found = soak.check(eng, done, frozen)
    assert any("cards not conserved in game 0" in f for f in found)
    assert any("hand sizes" in f for f in found)
    assert any("finished game changed (scores)" in f for f in found)


def test_exceptions_are_reported_with_a_reproduction(monkeypatch):
    def failing_step(self, actions, games=None):
        raise RuntimeError("boom")

    monkeypatch.setattr(Engine, "step", failing_step)
    config = soak.SoakConfig(decisions=10, presets=("official",), players=(4,),
                             backends=("numpy",), games=2, seed=9, progress=False)
    report = soak.soak(config, steps=1)
    assert not report.ok and report.exceptions
    problem = report.exceptions[0]
    assert (problem.preset, problem.players, problem.backend, problem.seed, problem.step) == (
        "official", 4, "numpy", 9, 0)
    assert "RuntimeError: boom" in str(problem)
    assert "--presets official --players 4 --backends numpy --seed 9" in problem.command()


@pytest.mark.parametrize("argv", [["--decisions", "0"], ["--seed", "-1"], ["--players", "x"]])
def test_bad_arguments_are_usage_errors(argv):
    with pytest.raises(SystemExit) as exit_:
        soak.parse_args(argv)
    assert exit_.value.code == 2
