"""Smoke tests of the benchmark helpers in experiments/ (tiny runs, no timing claims)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from test_result_provenance import has_provenance

EXPERIMENTS = Path(__file__).resolve().parent.parent / "experiments"
sys.path.insert(0, str(EXPERIMENTS))

import bench  # noqa: E402


def test_time_aec_plays_the_wrapped_env() -> None:
    import uno_env

    r = bench.time_aec(lambda: uno_env.env(preset="official", num_players=3),
                       seconds=0.05, warmup=0.01)
    assert r.decisions > 0 and r.seconds > 0 and r.decisions_per_second > 0


def test_rlcard_aec_passes_pettingzoo_checkers() -> None:
    pytest.importorskip("rlcard")
    from pettingzoo.test import api_test, seed_test

    from uno_env.tooling import rlcard_reference as rlcard_aec

    api_test(rlcard_aec.env(), num_cycles=200)
    seed_test(rlcard_aec.env, num_cycles=50)
    r = bench.time_aec(rlcard_aec.env, seconds=0.05, warmup=0.01)
    assert r.decisions > 0


def test_vec_env_helpers() -> None:
    pytest.importorskip("stable_baselines3")
    assert bench.time_vec_env(8, seconds=0.05, warmup=0.01) > 0


def test_backend_version_names_the_default_backend() -> None:
    from uno_env.engine.core import BACKENDS

    assert bench.backend_version().split()[0] in BACKENDS


def test_measure_throughput_counts_decisions() -> None:
    from uno_env import Rules

    t = bench.measure_throughput(Rules(), 8, seconds=0.2, warmup=0.05)
    assert t.num_games == 8 and t.decisions > 0 and t.seconds >= 0.2
    assert t.decisions_per_second > 0


def test_bench_vec_env_runs() -> None:
    assert bench.bench_vec_env(num_envs=64, steps=10) > 0


def test_tournament_bench_prints_decisions_per_second(capsys, tmp_path) -> None:
    import bench_tournament

    bench_tournament.main(["--games", "16", "--repeat", "1", "--batches", "8",
                           "--line-ups", "greedy x4", "--record", str(tmp_path / "b.json")])
    out = capsys.readouterr().out
    assert "greedy x4" in out and "decisions/s" in out


def test_strategy_benchmark_writes_its_report(tmp_path) -> None:
    import strategies

    strategies.main(["--agents", "greedy", "random", "--baselines", "random", "--presets",
                     "official", "teams", "--headline-games", "8", "--games", "4",
                     "--out", str(tmp_path)])
    text = (tmp_path / "strategies.md").read_text()
    for expected in ("## Headline: `official`", "| greedy | 100.0%", "## Head to head",
                     "### Against `random`, 4 players", "| teams |", "--headline-games 8",
                     "## Reference heuristic of every preset", "| no_mercy | 2 |"):
        assert expected in text, expected
    assert {p.name for p in tmp_path.glob("*.png")} == {
        "strategies_h2h.png", "strategies_headline.png", "strategies_presets.png"}
    record = json.loads((tmp_path / "results" / "strategies.json").read_text())
    assert has_provenance(record)
    assert record["command"].startswith("python experiments/strategies.py --agents greedy")
    # the most deals of any cell: the matrix's 8 games per pair, over 2 seatings
    assert record["deals"] == {"namespace": "evaluation", "first": 1_000_000 + 2**24,
                               "last": 1_000_000 + 2**24 + 3, "count": 4}


def test_strategy_benchmark_numbers_do_not_depend_on_its_jobs(tmp_path) -> None:
    import strategies

    common = ["--agents", "greedy", "random_play", "--baselines", "random", "--presets",
              "official", "--headline-games", "8", "--games", "6"]
    runs = []
    for jobs in ("1", "2"):
        out = tmp_path / jobs
        strategies.main(common + ["--jobs", jobs, "--out", str(out)])
        data = json.loads((out / "results" / "strategies.json").read_text())
        runs.append([{k: v for k, v in r.items() if k != "seconds"} for r in data["cells"]])
    assert runs[0] == runs[1] and len(runs[0]) == 6


SMALL = ["--agents", "greedy", "random_play", "--baselines", "random", "--presets", "official",
         "--headline-games", "8", "--games", "6"]


def test_strategy_benchmark_keeps_every_cell_as_it_is_played(tmp_path, monkeypatch) -> None:
    """With one job, a run stopped after two cells leaves them to ``--resume``."""
    import strategies

    played = []
    real = strategies.play_cell

    def stops_at_the_third(*args: object) -> dict:
        if len(played) == 2:
            raise KeyboardInterrupt
        played.append(args)
        return real(*args)
    monkeypatch.setattr(strategies, "play_cell", stops_at_the_third)
    with pytest.raises(KeyboardInterrupt):
        strategies.main(SMALL + ["--jobs", "1", "--out", str(tmp_path)])
    kept = json.loads((tmp_path / "results" / "strategies.json").read_text())["cells"]
    assert len(kept) == 2
    monkeypatch.setattr(strategies, "play_cell", lambda *args: played.append(args) or real(*args))
    strategies.main(SMALL + ["--jobs", "1", "--out", str(tmp_path), "--resume"])
    assert len(played) == 2 + 4 + 0        # the 4 cells left (and no duels: no search agent)
    assert len(json.loads((tmp_path / "results" / "strategies.json").read_text())["cells"]) == 6


@pytest.mark.parametrize("resume", [[], ["--resume"]])
@pytest.mark.parametrize("damage", ['{"cells": [{"key": "gre', "", "[1, 2]", '{"cells": 3}'])
def test_a_damaged_results_file_is_replaced_not_trusted(tmp_path, damage, resume) -> None:
    import strategies

    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "strategies.json").write_text(damage)
    strategies.main(SMALL + ["--out", str(tmp_path), *resume])
    assert len(json.loads((tmp_path / "results" / "strategies.json").read_text())["cells"]) == 6
    assert sorted(p.name for p in tmp_path.glob(".*")) == []    # no temporary file left


def test_a_quick_strategy_run_leaves_the_published_results_alone(tmp_path, monkeypatch) -> None:
    import strategies

    def published_files() -> dict:
        return {p: p.stat().st_mtime_ns for p in [*strategies.DOCS.glob("strategies*"),
                                                   *strategies.DOCS.glob("results/strat*")]}
    published = published_files()
    monkeypatch.chdir(tmp_path)
    strategies.main(["--quick", *SMALL[:6]])
    assert published_files() == published
    assert (tmp_path / "runs" / "strategies-quick" / "strategies.md").exists()


def test_search_bench_prints_both_playout_modes(capsys, monkeypatch) -> None:
    monkeypatch.setattr(bench, "SEARCHES", ("ismcts:budget=8", "ismcts:budget=8,horizon=0"))
    bench.bench_search(calls=2)
    out = capsys.readouterr().out
    assert "compiled playouts" in out and "Python playouts" in out and "budget=8,horizon=0" in out


@pytest.mark.parametrize("observation", ["float32", "packed"])
def test_step_parts_row_adds_up_and_names_the_observation_size(observation) -> None:
    from uno_env import Rules
    from uno_env.engine.observe import OBS_SIZE
    from uno_env.engine.packed import packed_size

    row = bench.bench_step_parts(1000, observation, steps=5, warmup=1)
    games, name, *micros, total, fill, megabytes = row
    assert (games, name) == ("1000", observation)
    mask, observe, choice, step, resets = (float(x.replace(",", "")) for x in micros)
    assert observe > 0 and choice > 0 and step > 0 and float(fill.replace(",", "")) > 0
    parts = (mask, observe, choice, step, resets)
    assert abs(sum(parts) - float(total.replace(",", ""))) <= 3   # rounding of each part
    row_bytes = (packed_size(Rules(num_players=4)) * 2 if observation == "packed"
                 else OBS_SIZE * 4)
    assert megabytes == f"{1000 * row_bytes / 1e6:.1f}"


def test_the_strategy_benchmark_reads_a_recorded_duel_in_either_format(tmp_path) -> None:
    """A tournament record with its provenance, and one written before records had it
    (the bare list of entries), give the same duel row; the command shown is the record's
    own where it holds one."""
    import strategies

    from uno_env.cli import main as cli_main

    path = tmp_path / "duel.json"
    assert cli_main(["tournament", "--agents", "greedy,random", "--games", "6", "--seed", "3",
                     "--json", str(path), "--no-progress"]) == 0
    row, command, fresh = strategies.recorded_duel(path, "random")
    assert row["agent"] == "greedy" and row["games"] == 6 and fresh
    assert command == json.loads(path.read_text())["command"]
    legacy = tmp_path / "legacy.json"
    legacy.write_text(json.dumps(json.loads(path.read_text())["tournaments"]))
    legacy_row, legacy_command, _ = strategies.recorded_duel(legacy, "random")
    assert legacy_row == row and "--seed 3" in legacy_command
    assert legacy_command.endswith("--json docs/results/legacy.json")
    assert strategies.recorded_duel(path, "tuned") is None
