"""The ``uno-env`` command and the random-play simulation behind it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from uno_env import Engine, Rules
from uno_env.cli import main
from uno_env.compact import compact
from uno_env.random_actions import random_legal_actions
from uno_env.simulate import simulate


def test_simulate_command_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--preset", "official", "--players", "3", "--games", "12",
                 "--batch", "5", "--seed", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    for text in ("games/s", "decisions/s", "p95", "first-player win rate", "truncated",
                 "seat", "95% interval", "mean round points", "12"):
        assert text in out, text


def test_simulate_command_with_progress_bar(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--games", "4", "--batch", "4"]) == 0
    assert "decisions/s" in capsys.readouterr().out


def test_simulate_command_rejects_an_impossible_preset() -> None:
    with pytest.raises(SystemExit, match="num_players"):
        main(["simulate", "--preset", "teams", "--players", "3", "--games", "2"])


def test_presets_and_rules_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["presets"]) == 0
    out = capsys.readouterr().out
    assert "official_jp" in out and "no_mercy" in out
    assert main(["rules", "--preset", "official_jp"]) == 0
    out = capsys.readouterr().out
    assert out.strip() == Rules.preset("official_jp").describe().strip()


@pytest.mark.parametrize("preset,players", [("official", 4), ("official_jp", 2),
                                            ("official", 7)])
def test_simulation_statistics_are_sane(preset: str, players: int) -> None:
    rules = Rules.preset(preset, num_players=players, max_turns=150)
    res = simulate(rules, 40, batch=16, seed=5)
    assert res.games == 40 and res.batch == 16
    assert res.decisions.shape == (40,) and (res.decisions >= 1).all()
    assert (res.decisions <= rules.max_turns).all()
    assert res.p95_decisions >= res.mean_decisions * 0.5
    assert ((res.winner >= -1) & (res.winner < players)).all()
    assert ((res.winner == -1) == res.truncated).all()
    assert ((res.first_player >= 0) & (res.first_player < players)).all()
    assert res.seat_wins().sum() == res.terminated
    if res.terminated:
        assert math.isclose(res.seat_win_rates().sum(), 1.0)
        for rate, (lo, hi) in zip(res.seat_win_rates(), res.seat_win_intervals(), strict=True):
            assert 0 <= lo <= rate <= hi <= 1
        assert 0 <= res.first_player_win_rate() <= 1
        assert res.mean_round_points().shape == (players,)
        if rules.scoring == "zero_sum":
            assert (res.round_points.sum(axis=1) == 0).all()
        else:
            assert (res.mean_round_points() >= 0).all()
    assert 0 <= res.truncated_share <= 1
    assert res.games_per_second > 0 and res.decisions_per_second > 0


def test_simulation_round_points_follow_the_scoring() -> None:
    res = simulate(Rules(num_players=3, max_turns=300), 30, batch=8, seed=2)
    won = ~res.truncated
    pts = res.round_points[won]
    winners = res.winner[won]
    # winner_takes_sum: only the winner scores, and never a negative amount
    others = pts.copy()
    others[np.arange(winners.size), winners] = 0
    assert (others == 0).all()
    assert (pts[np.arange(winners.size), winners] >= 0).all()


def test_simulation_is_deterministic_and_plays_exactly_the_games_asked() -> None:
    a = simulate(Rules(max_turns=200), 25, batch=7, seed=11)
    b = simulate(Rules(max_turns=200), 25, batch=7, seed=11)
    assert a.games == 25
    assert np.array_equal(a.decisions, b.decisions)
    assert np.array_equal(a.winner, b.winner)


def test_simulation_rejects_bad_sizes() -> None:
    with pytest.raises(ValueError, match="games"):
        simulate(Rules(), 0)
    with pytest.raises(ValueError, match="batch"):
        simulate(Rules(), 5, batch=0)


def test_module_runs_as_a_command() -> None:
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "uno_env.cli", "rules", "--players", "3"],
                         capture_output=True, text=True, check=True).stdout
    assert "3 players" in out


def test_compacted_engine_plays_its_games_exactly_like_the_original() -> None:
    eng = Engine(Rules(), 64, seed=9)
    rng = np.random.default_rng(9)
    for _ in range(30):
        eng.step(random_legal_actions(eng.legal_action_mask(), rng))
    keep = np.arange(3, 64, 5)
    small = compact(eng, keep)
    assert small is not None and small.num_games == keep.size
    for _ in range(200):
        mask = eng.legal_action_mask()
        assert np.array_equal(small.legal_action_mask(), mask[keep])
        assert np.array_equal(small.observe(), eng.observe()[keep])
        actions = random_legal_actions(mask, rng)
        r_big = eng.step(actions)
        r_small = small.step(actions[keep])
        for big, part in zip(r_big, r_small, strict=True):
            assert np.array_equal(big[keep], part)
    assert np.array_equal(small.census(), eng.census()[keep])
    assert np.array_equal(small.winner, eng.winner[keep])


def test_simulation_with_compaction_plays_every_game() -> None:
    res = simulate(Rules(max_turns=120), 300, batch=128, seed=4)
    assert res.games == 300
    assert res.seat_wins().sum() == res.terminated
    assert ((res.decisions >= 1) & (res.decisions <= 120)).all()


def test_ctrl_c_ends_a_command_with_one_line_and_status_130(monkeypatch, capsys) -> None:
    def interrupted(args: object) -> int:
        raise KeyboardInterrupt
    monkeypatch.setattr("uno_env.cli.cmd_presets", interrupted)
    assert main(["presets"]) == 130
    err = capsys.readouterr().err
    assert err.strip() == "uno-env: interrupted"


def test_ctrl_c_in_a_running_command_prints_no_traceback() -> None:
    import signal
    import subprocess
    import sys
    import time

    proc = subprocess.Popen([sys.executable, "-m", "uno_env.cli", "simulate", "--games",
                             "100000000", "--batch", "64", "--no-progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(8)
    try:
        # Ctrl-C again if the first one is lost, as a user would: once, on a loaded
        # machine, a run kept going after it (Python drops a KeyboardInterrupt raised
        # where exceptions are ignored, such as inside a finalizer)
        for _ in range(4):
            proc.send_signal(signal.SIGINT)
            try:
                out, err = proc.communicate(timeout=20)
                break
            except subprocess.TimeoutExpired:
                continue
    finally:
        if proc.poll() is None:
            proc.kill()
            out, err = proc.communicate()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and err.strip().endswith("uno-env: interrupted")


@pytest.mark.parametrize(("error", "message"), [
    (ValueError("bad\nvalue"), "uno-env: bad value"),
    (KeyError("weights"), "uno-env: KeyError: 'weights'"),
    (IsADirectoryError(21, "Is a directory", "m.zip"),
     "uno-env: IsADirectoryError: [Errno 21] Is a directory: 'm.zip'"),
    (OverflowError("too big"), "uno-env: OverflowError: too big"),
    (RecursionError("deep"), "uno-env: RecursionError: deep"),
    (MemoryError("Unable to allocate"), "uno-env: MemoryError: Unable to allocate"),
])
def test_user_errors_are_one_line(error: Exception, message: str) -> None:
    from uno_env.cli import user_errors

    with pytest.raises(SystemExit) as exc, user_errors():
        raise error
    assert str(exc.value) == message


def test_an_agent_that_fails_to_load_is_one_line_without_traceback(monkeypatch,
                                                                   capsys) -> None:
    import uno_agents

    def broken(spec: str) -> None:
        raise EOFError("model file ended early")
    monkeypatch.setattr(uno_agents, "make_agent", broken)
    with pytest.raises(SystemExit) as exc:
        main(["play", "--players", "2", "--opponents", "greedy"])
    assert str(exc.value) == "uno-env play: EOFError: model file ended early"


def test_a_batch_beyond_the_memory_is_one_line(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["simulate", "--games", "10" + "0" * 11, "--batch", "10" + "0" * 11,
              "--no-progress"])
    assert str(exc.value).startswith("uno-env: MemoryError: Unable to allocate")


def test_output_into_a_reader_that_stops_early_ends_quietly() -> None:
    """``uno-env ... | head``: the command ends with status 141 and no traceback."""
    import subprocess
    import sys

    script = ("import sys; from uno_env.cli import run_command; "
              "sys.exit(run_command(lambda: [print('x' * 10_000) for _ in range(1000)], 'demo'))")
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    assert child.stdout is not None and child.stderr is not None
    child.stdout.read(10)
    child.stdout.close()                     # 10 MB of output can never fit in the pipe
    assert child.wait(timeout=60) == 141
    assert child.stderr.read() == b""
