"""A short soak (experiments/soak.py): random play at 7 and 10 players over every preset on
each backend, every invariant checked after every step; and the soak's own checks."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import AVAILABLE_BACKENDS

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "experiments"))

import soak

from uno_env import Engine, Rules


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


def test_short_soak_over_random_rule_combinations_finds_nothing():
    config = soak.SoakConfig(decisions=12_000, presets=(), random_rules=4,
                             backends=tuple(AVAILABLE_BACKENDS), games=8, progress=False)
    report = soak.soak(config)
    assert report.ok, soak.summary(report)
    assert report.combinations == 4 * len(AVAILABLE_BACKENDS)
    assert report.decisions >= config.decisions


def test_random_rules_are_valid_combinations_of_every_option_at_two_to_ten_players():
    rng = np.random.default_rng(3)
    drawn = [soak.random_rules(rng) for _ in range(60)]
    assert all(isinstance(r, Rules) for r in drawn)
    assert {r.num_players for r in drawn} == set(range(2, 11))
    for option in ("multi_play", "end", "scoring", "reward", "draw_rule"):
        assert len({getattr(r, option) for r in drawn}) > 1, option


def test_check_reports_unset_places_and_rewards_that_do_not_sum_to_zero():
    rules = Rules(num_players=3, end="last_standing", scoring="rank", reward="rank")
    eng = Engine(rules, 1, seed=0, backend="numpy")
    s = eng.state
    s.done[0] = True                 # ended with a result but no places given
    s.rounds_played[0] = 1
    eng.state = s
    found = soak.check(eng, np.array([False]), None, np.ones((1, 3), np.float32),
                       np.zeros(1, np.int32))
    assert any("places [-1, -1, -1] of game 0 are not a permutation" in f for f in found)
    assert any("do not sum to zero under reward='rank'" in f for f in found)


def test_check_accepts_shared_places_and_reports_points_that_are_not_the_rounds():
    rules = Rules(num_players=4, end="last_standing", scoring="zero_sum", reward="points")
    eng = Engine(rules, 1, seed=0, backend="numpy")
    s = eng.state
    s.done[0] = True
    s.rounds_played[0] = 1
    s.num_out[0] = 4
    s.place[0] = [3, 0, 1, 1]        # seats 2 and 3 share places 1 and 2
    s.round_winner[0] = 1
    s.round_points[0] = [-5, 9, -2, -2]
    eng.state = s
    rewards = np.array([[-5, 9, -2, -1]], np.float32)
    found = soak.check(eng, np.array([False]), None, rewards, np.zeros(1, np.int32))
    assert found == ["rewards [-5.0, 9.0, -2.0, -1.0] of game 0 are not its round's points "
                     "[-5, 9, -2, -2]"]


def test_a_problem_under_random_rules_replays_from_its_command():
    rules = Rules(num_players=5, dobon=True, end="last_standing")
    problem = soak.Problem("custom", 5, "numpy", 4, 8, 12, "boom", soak.options_json(rules))
    command = problem.command()
    assert "--presets --rules" in command and "--steps 13" in command
    argv = command.split(" ", 2)[2]
    rules_json = argv.split("'")[1]
    config, steps = soak.parse_args(["--presets", "--rules", rules_json, "--backends", "numpy",
                                     "--seed", "4", "--games", "8", "--steps", "13"])
    assert steps == 13
    assert [r for _, r, _ in soak.combinations(config)] == [rules]
