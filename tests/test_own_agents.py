"""Agents of one's own everywhere: specs naming a class in a module or a file (with
parameters) or an installed package's entry point, in a tournament, evaluate.py,
``uno-env play`` and on the leaderboard; the single-game adapter; an unknown spec lists
every family."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from uno_agents import SingleGameAgent, known_specs, make_agent, outside, per_game
from uno_env import Rules
from uno_env.cli import main
from uno_env.evaluation import leaderboard
from uno_env.evaluation.tournament import tournament

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "docs" / "examples" / "color_hoarder.py"
HOARDER = f"{EXAMPLE}:ColorHoarder"


def test_a_class_in_a_file_is_built_with_its_typed_parameters() -> None:
    agent = make_agent(f"{HOARDER}:keep_wilds=false")
    assert type(agent).__name__ == "ColorHoarder" and agent.keep_wilds is False
    assert type(make_agent(HOARDER)) is type(agent)          # the file is read once
    with pytest.raises(ValueError, match="'keep_wilds' must be true or false, got 'maybe'"):
        make_agent(f"{HOARDER}:keep_wilds=maybe")
    with pytest.raises(ValueError, match="has no parameter 'depth'; parameters: keep_wilds"):
        make_agent(f"{HOARDER}:depth=2")


def test_a_module_class_and_a_function_agent(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "my_agents.py").write_text(
        "import numpy as np\n"
        "from uno_agents import per_game\n"
        "class Lowest:\n"
        "    def __init__(self, offset: int = 0):\n"
        "        self.offset = offset\n"
        "    def act(self, observations, masks, rng):\n"
        "        return np.where(masks, 0, 1).argmin(axis=1)\n"
        "def make(offset: int = 0):\n"
        "    return Lowest(offset)\n"
        "first = per_game(lambda o, m, r: int(np.flatnonzero(m)[0]), name='first')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert make_agent("my_agents:Lowest:offset=3").offset == 3
    assert make_agent("my_agents:make:offset=2").offset == 2      # a factory function
    assert make_agent("my_agents:first").name == "first"
    with pytest.raises(ValueError, match="takes no parameters"):
        make_agent("my_agents:first:x=1")
    with pytest.raises(ValueError, match="defines no 'Nope'.*Lowest, first"):
        make_agent("my_agents:Nope")
    with pytest.raises(ValueError, match="no module named 'no_such_module'"):
        make_agent("no_such_module:Agent")
    with pytest.raises(ValueError, match="no file"):
        make_agent(f"{tmp_path / 'missing.py'}:Agent")


def test_an_unknown_spec_lists_every_family() -> None:
    with pytest.raises(ValueError) as err:
        make_agent("color_hoarder.ColorHoarder")
    text = str(err.value)
    for family in ("tuned", "ismcts", "net:<model>", "ppo:<model>", "improved:<model>",
                   "official-2p", "uno_env.agents", "module:Class", "path/to/file.py:Class"):
        assert family in text, family
    assert known_specs() in text


def test_an_installed_entry_point_is_an_agent(monkeypatch) -> None:
    class Point:
        name = "hoarder"

        def load(self) -> object:
            return outside._module_of_file(EXAMPLE, "hoarder").ColorHoarder

    monkeypatch.setattr(outside.importlib.metadata, "entry_points",
                        lambda group: [Point()] if group == outside.ENTRY_POINT_GROUP else [])
    agent = make_agent("hoarder:keep_wilds=false")
    assert type(agent).__name__ == "ColorHoarder" and not agent.keep_wilds
    with pytest.raises(ValueError, match=r"installed \(uno_env.agents entry points\): hoarder"):
        make_agent("nobody")


def test_the_single_game_adapter_matches_a_batch_agent(rng) -> None:
    masks = rng.random((6, 119)) < 0.1
    masks[2] = False                                       # a finished game: no call
    calls: list[int] = []

    def lowest(observation: np.ndarray, mask: np.ndarray, r: np.random.Generator) -> int:
        calls.append(1)
        return int(np.flatnonzero(mask)[0])

    agent = per_game(lowest)
    actions = agent.act(np.zeros((6, 3), np.float32), masks, rng)
    expected = [int(np.flatnonzero(m)[0]) if m.any() else 0 for m in masks]
    assert actions.tolist() == expected and len(calls) == 5
    assert isinstance(agent, SingleGameAgent) and agent.name == "lowest"
    with pytest.raises(TypeError, match="per_game needs a function"):
        per_game(3)


def test_agents_from_a_file_play_a_tournament() -> None:
    res = tournament([HOARDER, f"{EXAMPLE}:first_legal", "random"],
                     Rules.preset("official", num_players=2), 12)
    stats = {s.label: s for s in res.agent_stats()}
    assert set(stats) == {HOARDER, f"{EXAMPLE}:first_legal", "random"}
    assert all(s.games == 8 for s in stats.values())


def test_the_cli_takes_a_file_spec_with_parameters(tmp_path: Path, capsys) -> None:
    out = tmp_path / "t.json"
    assert main(["tournament", "--agents", f"{HOARDER}:keep_wilds=false,random",
                 "--games", "4", "--no-progress", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["tournaments"][0]["agents"][0].endswith(
        "ColorHoarder:keep_wilds=false")
    with pytest.raises(SystemExit, match="--agents: unknown agent 'nobody'.*module:Class"):
        main(["tournament", "--agents", "nobody,random", "--no-progress"])


def test_evaluate_and_play_take_a_file_spec(capsys) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("evaluate_script",
                                                  ROOT / "experiments" / "evaluate.py")
    evaluate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(evaluate)
    evaluate.main(["--agents", HOARDER, "--opponents", "random", "--deals", "2"])
    assert "ColorHoarder vs random" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="--opponents: agent .*has no parameter 'depth'"):
        main(["play", "--players", "2", "--opponents", f"{HOARDER}:depth=2"])


TINY = replace(leaderboard.TINY, agents_2p=("random", "greedy", "tuned"),
               agents_4p=("random", "greedy", "tuned", "random_play"), rating_rounds=10)


def test_an_added_agent_joins_the_recorded_games_without_replaying_them(
        tmp_path: Path, monkeypatch, capsys) -> None:
    base = tmp_path / "board.json"
    before = leaderboard.run(TINY, tmp_path / "board.md", base, "x", say=lambda _: None)
    played: list[list[int]] = []
    real = leaderboard._play_piece

    def counting(rules, specs, schedule, ids):
        played.append(list(ids))
        return real(rules, specs, schedule, ids)

    monkeypatch.setattr(leaderboard, "_play_piece", counting)
    monkeypatch.chdir(tmp_path)
    assert main(["leaderboard", "--add", HOARDER, "--base", str(base)]) == 0
    record = json.loads((tmp_path / leaderboard.ADD_OUT / "leaderboard.json").read_text())
    # only the new seatings are played, after the recorded ones: 3 pairs x 2 seats
    # heads-up after 6, 4 groups x 4 rotations at 4 players after 4
    assert played == [list(range(6, 12)), list(range(4, 20))]
    for old, new in zip(before["tables"], record["tables"], strict=True):
        assert HOARDER in [r["agent"] for r in new["rows"]]
        assert new["games"] == old["games"] + (6 * 2 if new["players"] == 2 else 16)
    page = (tmp_path / leaderboard.ADD_OUT / "leaderboard.md").read_text()
    assert "not played again" in page and "ColorHoarder" in page
    # the same numbers as a run that plays every game, in the same seatings
    whole = leaderboard.run(replace(TINY, added=(HOARDER,)), tmp_path / "w.md",
                            tmp_path / "w.json", "x", say=lambda _: None)

    def numbers(tables: list[dict]) -> list[list[dict]]:
        return [[{k: v for k, v in r.items() if k != "decisions_per_second"}
                 for r in t["rows"]] for t in tables]

    assert json.dumps(numbers(whole["tables"])) == json.dumps(numbers(record["tables"]))
    with pytest.raises(SystemExit, match="--add plays on the deals.*--deals-2p"):
        main(["leaderboard", "--add", HOARDER, "--base", str(base), "--deals-2p", "3"])
    with pytest.raises(SystemExit, match="no games of the 2-player table"):
        (tmp_path / "board-2p-games.npz").unlink()
        main(["leaderboard", "--add", HOARDER, "--base", str(base)])
