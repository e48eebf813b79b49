"""Rendering: the ansi text table and the rgb_array picture, directly and through the env."""

from __future__ import annotations

import re

import numpy as np
import pytest

from uno_env import Engine, Rules
from uno_env.envs.pettingzoo_env import env, raw_env
from uno_env.envs.render import HEIGHT, WIDTH, ansi_card, render_ansi, render_rgb

pytest.importorskip("PIL")

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def plain(text: str) -> str:
    return ANSI.sub("", text)


@pytest.fixture
def engine() -> Engine:
    return Engine(Rules.preset("official", num_players=4), 1, seed=7)


def test_ansi_shows_the_table(engine):
    text = render_ansi(engine)
    assert engine.top_card(0) in text
    assert "\x1b[" in text
    seen = plain(text)
    acting = int(engine.current_player[0])
    for seat in range(4):
        assert f"player_{seat}" in seen
        assert re.search(rf"player_{seat}\s+{int(engine.hand_sizes[0, seat])} cards", seen)
    assert f"hand of player_{acting}" in seen
    for card in engine.hand(0, acting):
        assert card in seen
    assert "clockwise" in seen
    assert "pending draw 0" in seen
    assert f"phase {engine.phase_name(0)}" in seen


def test_ansi_viewer_and_plain_text(engine):
    text = render_ansi(engine, viewer=2, color=False)
    assert "\x1b[" not in text
    assert "hand of player_2" in text
    assert " ".join(f"[{c}]" for c in engine.hand(0, 2)) in text
    with pytest.raises(ValueError, match="viewer"):
        render_ansi(engine, viewer=4)
    with pytest.raises(ValueError, match="game"):
        render_ansi(engine, game=1)


def test_ansi_cards_are_colored():
    assert ansi_card("R5").startswith("\x1b[1;97;41m")
    assert ansi_card("Y5").startswith("\x1b[1;30;43m")
    assert ansi_card("WD4").startswith("\x1b[1;97;100m")
    assert ansi_card("GS", color=False) == "[GS]"


def test_ansi_shows_the_end_of_the_game():
    eng = Engine.from_setup(Rules.preset("official", num_players=2), hands=[["R5"], ["G1", "G2"]],
                            top="R3", current=0)
    eng.step_names("play R5")
    assert bool(eng.done[0])
    text = plain(render_ansi(eng))
    assert "player_0 wins" in text
    assert "winner" in text


def test_rgb_frame(engine):
    frame = render_rgb(engine)
    assert frame.shape == (HEIGHT, WIDTH, 3)
    assert frame.dtype == np.uint8
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 20  # a picture, not a blank
    other = render_rgb(engine, viewer=(int(engine.current_player[0]) + 1) % 4)
    assert other.shape == frame.shape
    assert not np.array_equal(frame, other)


def test_rgb_draws_big_hands_and_ten_players():
    hand = [f"{c}{n}" for c in "RYGB" for n in range(1, 10)] * 2 + ["W"] * 4 + ["WD4"] * 4
    rules = Rules.preset("official", num_players=10)
    hands = [hand] + [[f"{c}0"] for c in "RYGB"] + [[]] * 5
    hands[5:] = [["RS"], ["YS"], ["GS"], ["BS"], ["RR"]]
    eng = Engine.from_setup(rules, hands=hands, top="RD2", current=0)
    frame = render_rgb(eng, viewer=0)
    assert frame.shape == (HEIGHT, WIDTH, 3) and frame.dtype == np.uint8
    assert len(eng.hand(0, 0)) == 80
    assert "80 cards" in plain(render_ansi(eng, viewer=0))


@pytest.mark.parametrize("mode", ["ansi", "rgb_array", "human"])
def test_env_render_modes(mode, capsys):
    aec = env("official", 3, render_mode=mode)
    aec.reset(seed=1)
    out = aec.render()
    top = aec.unwrapped.engine.top_card(0)
    if mode == "ansi":
        assert isinstance(out, str) and top in out
    elif mode == "rgb_array":
        assert out.shape == (HEIGHT, WIDTH, 3) and out.dtype == np.uint8
    else:
        assert out is None
        assert top in capsys.readouterr().out


def test_human_mode_prints_after_each_step(capsys):
    aec = raw_env("official", 3, render_mode="human")
    aec.reset(seed=1)
    obs = aec.observe(aec.agent_selection)
    aec.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert "hand of player_" in capsys.readouterr().out


def test_render_without_a_mode_warns():
    aec = raw_env("official", 3)
    aec.reset(seed=1)
    with pytest.warns(UserWarning, match="render_mode"):
        assert aec.render() is None
