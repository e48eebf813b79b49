"""Playing in the terminal: the human agent reads choices from a text stream."""

from __future__ import annotations

import io

import numpy as np
import pytest

from uno_agents.human import HumanAgent
from uno_env import Engine, Rules
from uno_env.cli import main


def test_human_agent_takes_numbers_or_names_and_asks_again_on_a_wrong_entry() -> None:
    eng = Engine.from_setup(Rules(num_players=2), hands=[["R9", "G1", "B2"], ["G3", "B5"]],
                            top="R5", current=0)
    out = io.StringIO()
    agent = HumanAgent(io.StringIO("seven\n0\n9\nplay G1\nplay R9\n"), out)
    chosen = agent.act(eng.observe(), eng.legal_action_mask(), np.random.default_rng(0))
    assert chosen.tolist() == [0 * 16 + 9]                  # play R9
    text = out.getvalue()
    assert "1) play R9" in text and "2) draw" in text
    assert text.count("is not one of the legal actions") == 4
    agent = HumanAgent(io.StringIO("2\n"), io.StringIO())
    assert agent.act(eng.observe(), eng.legal_action_mask(),
                     np.random.default_rng(0)).tolist() == [100]   # draw
    with pytest.raises(EOFError):
        HumanAgent(io.StringIO(""), io.StringIO()).act(
            eng.observe(), eng.legal_action_mask(), np.random.default_rng(0))


@pytest.mark.parametrize("entry", ["\u00b2", "\u0663", "1" * 5000, "-1", "1.0", "+1", " "])
def test_an_entry_that_is_no_choice_is_asked_again(entry: str) -> None:
    eng = Engine.from_setup(Rules(num_players=2), hands=[["R9", "G1", "B2"], ["G3", "B5"]],
                            top="R5", current=0)
    out = io.StringIO()
    agent = HumanAgent(io.StringIO(f"{entry}\n2\n"), out)
    chosen = agent.act(eng.observe(), eng.legal_action_mask(), np.random.default_rng(0))
    assert chosen.tolist() == [100]                          # draw, the second choice
    assert out.getvalue().count("is not one of the legal actions") == 1


def test_the_play_command_goes_on_after_a_bad_line(monkeypatch, capsys) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("\u00b2\n" + "9" * 5000 + "\n" + "1\n" * 2000))
    assert main(["play", "--players", "2", "--opponents", "random_play", "--seed", "3",
                 "--no-color"]) == 0
    out = capsys.readouterr().out
    assert out.count("is not one of the legal actions") == 2 and "game over:" in out


def test_play_command_deals_a_game_and_shows_the_table(monkeypatch, capsys) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("oops\n" + "1\n" * 2000))
    assert main(["play", "--players", "3", "--opponents", "greedy,random_play",
                 "--seed", "2", "--no-color"]) == 0
    out = capsys.readouterr().out
    assert "hand of player_0" in out and "Your move:" in out and "player_1: " in out
    assert "'oops' is not one of the legal actions" in out
    assert "game over:" in out


def test_play_command_stops_cleanly_at_end_of_input(monkeypatch, capsys) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", "--players", "2", "--opponents", "ismcts:budget=4", "--seat", "1",
                 "--seed", "5"]) == 0
    assert "input ended: game abandoned" in capsys.readouterr().out


@pytest.mark.parametrize(("args", "message"), [
    (["--players", "4", "--opponents", "greedy,greedy"], "4 players need 3 opponents, got 2"),
    (["--opponents", "nobody"], "unknown agent 'nobody'"),
    (["--players", "2", "--seat", "2"], "seat 2 is not a seat 0-1"),
])
def test_play_command_names_bad_input(args: list[str], message: str) -> None:
    with pytest.raises(SystemExit, match=message):
        main(["play", *args])
