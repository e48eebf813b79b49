"""The training scripts run end to end on a tiny budget and leave outputs that parse."""

from __future__ import annotations

import inspect
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from inline import run_inline
from test_result_provenance import has_provenance

pytest.importorskip("sb3_contrib")

pytestmark = pytest.mark.train

REPO = Path(__file__).resolve().parents[1]


def run_script(script: str, *args: str) -> str:
    """Run ``experiments/<script>`` as its own command would (:mod:`inline`); returns its
    output."""
    done = run_inline(script, *args)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_train_sb3_self_play_on_a_preset_mixture(tmp_path: Path) -> None:
    out = tmp_path / "run"
    stdout = run_script("train_sb3.py", "--preset", "official,teams", "--opponents", "self-play",
                        "--timesteps", "256", "--num-envs", "16", "--n-steps", "8",
                        "--batch-size", "64", "--n-epochs", "1", "--net", "16",
                        "--snapshot-every", "128", "--checkpoint-every", "128",
                        "--eval-deals", "2", "--eval-opponents", "greedy", "--no-progress",
                        "--out", str(out))
    record = json.loads((out / "config.json").read_text())
    assert record["timesteps"] >= 256 and record["steps_per_second"] > 0
    assert 0 < record["env_share"] < 1
    assert record["command"].startswith("python experiments/train_sb3.py --preset official,teams")
    results = json.loads((out / "eval.json").read_text())
    assert {(r["preset"], r["players"]) for r in results} == {("official", 2), ("teams", 4)}
    assert all(0 <= r["win_rate"] <= 1 and r["games"] == 2 * r["players"] for r in results)
    assert list((out / "checkpoints").glob("step_*.pt"))
    assert list((out / "tb").rglob("events.out.tfevents.*"))
    assert "steps/s" in stdout
    from uno_agents import make_agent

    policy = out / "policy.safetensors"   # the policy as tensors and JSON, no pickle
    assert make_agent(f"ppo:{policy}").name == f"ppo:{policy}"


CROSS = ("--presets", "official,last_standing", "--num-envs", "16", "--n-steps", "8",
         "--batch-size", "64", "--net", "16", "--no-progress")


def test_cross_preset_runs_the_study_and_resumes_without_replaying(tmp_path: Path) -> None:
    out = tmp_path / "cross"
    # 100 decisions asked, 128 trained: whole rollouts of 16 games x 8 decisions
    flags = (*CROSS, "--budget", "100", "--seeds", "2", "--deals", "4", "--out", str(out))
    stdout = run_script("cross_preset.py", *flags, "--jobs", "2")
    record = json.loads((out / "matrix.json").read_text())
    assert record["deals"]["namespace"] == "evaluation" and record["deals"]["count"] == 4
    assert record["commit"] and record["machine"]["cores"] >= 1 and record["date"]
    rows = {"official", "last_standing", "mixture", "mixture-2x", "mixture-no-rules",
            "reference"}
    assert set(record["matrix"]) == {"reference"} and set(record["matrix"]["reference"]) == rows
    assert record["budgets"] == {"official": 128, "last_standing": 128, "mixture": 128,
                                 "mixture-2x": 256, "mixture-no-rules": 256, "reference": 0}
    # each preset's reference heuristic, chosen on selection deals
    assert record["reference_specs"] == {"official": "tuned", "last_standing": "tuned"}
    cells = json.loads((out / "cells.json").read_text())
    assert cells["reference|official|0|last_standing"]["opponent_spec"] == "tuned"
    assert record["cells_played_this_run"] == 5 * 2 * 2 + 2
    assert len(record["trained_this_run"]) == 10
    for name, row in record["matrix"]["reference"].items():
        assert set(row) == {"official", "last_standing"}
        for cell in row.values():
            assert len(cell["by_seed"]) == (1 if name == "reference" else 2) and cell["deals"] == 4
            assert cell["seed_min"] <= cell["win_rate"] <= cell["seed_max"]
    assert record["matrix"]["reference"]["reference"]["official"]["win_rate"] == 0.5
    diffs = record["differences"]["reference"]
    assert {(d["a"], d["b"]) for d in diffs["specialist_minus_mixture"]} == {
        (p, m) for p in ("official", "last_standing") for m in ("mixture", "mixture-2x")}
    assert {d["b"] for d in diffs["rules_minus_no_rules"]} == {"mixture-no-rules"}
    assert len(diffs["minus_reference"]) == 5 * 2
    for d in (d for part in diffs.values() for d in part):
        assert d["low"] <= d["mean"] <= d["high"]
    text = (out / "matrix.md").read_text()
    assert "| mixture-no-rules |" in text and "### Verdicts" in text and "| reference |" in stdout
    assert "`tuned` on official, last_standing" in text
    assert (out / "heatmap.png").stat().st_size > 1000
    from uno_agents import make_agent

    mixed = make_agent(f"ppo:{out / 'mixture-no-rules' / 'seed-1' / 'policy.safetensors'}")
    assert "rules" not in dict(mixed.module.policy.features_extractor.views)
    # a rerun with --resume trains nothing and plays nothing, and gives the same matrix
    models = {p: p.stat().st_mtime_ns for p in out.rglob("policy.safetensors")}
    assert len(models) == 10
    run_script("cross_preset.py", *flags, "--jobs", "1", "--resume")
    again = json.loads((out / "matrix.json").read_text())
    assert again["cells_played_this_run"] == 0 and again["trained_this_run"] == []
    assert again["matrix"] == record["matrix"] and again["differences"] == record["differences"]
    assert {p: p.stat().st_mtime_ns for p in out.rglob("policy.safetensors")} == models
    # a cell lost (a kill while it played) is the only one played again
    cells = json.loads((out / "cells.json").read_text())
    del cells["reference|mixture|1|official"]
    (out / "cells.json").write_text(json.dumps(cells))
    run_script("cross_preset.py", *flags, "--resume")
    assert json.loads((out / "matrix.json").read_text())["cells_played_this_run"] == 1


@pytest.mark.slow
def test_cross_preset_reuses_a_model_only_for_the_same_settings(tmp_path: Path) -> None:
    out = tmp_path / "cross"
    flags = (*CROSS[:-3], "--budget", "64", "--seeds", "1", "--deals", "1", "--no-progress",
             "--out", str(out))

    def recorded(row: str) -> dict:
        return json.loads((out / row / "seed-0" / "config.json").read_text())["config"]
    first = run_script("cross_preset.py", *flags, "--net", "16")
    assert "reusing" not in first and recorded("official")["net"] == "16"
    again = run_script("cross_preset.py", *flags, "--net", "16")
    assert again.count("reusing the model") == 5
    other = run_script("cross_preset.py", *flags, "--net", "8", "--players", "3", "--retrain",
                       "--heuristic", "tuned")
    assert "reusing" not in other and other.count("replacing the run") == 5
    for row in ("official", "mixture", "mixture-no-rules"):
        assert (recorded(row)["net"], recorded(row)["players"]) == ("8", 3)


def test_cross_preset_checks_its_settings_before_writing_anything(tmp_path: Path) -> None:
    out = tmp_path / "cross"
    for flags, why in ((["--budget", "-5"], "--budget: '-5' is not an integer at least 1"),
                       (["--presets", "official,nowhere"], "nowhere"),
                       (["--presets", "official"], "at least two presets"),
                       (["--heuristic", "nobody"], "nobody"),
                       (["--players", "3"], "name none for 'official' at 3 players"),
                       (["--reference", "nowhere.json"], "'nowhere.json' cannot be read"),
                       (["--train-opponent", "nobody"], "nobody")):
        done = run_failing("cross_preset.py", "--presets", "official,teams", *flags,
                           "--out", str(out))
        assert why in done.stderr and not out.exists()
    out.write_text("")
    done = run_failing("cross_preset.py", "--presets", "official,teams", "--out", str(out))
    assert "is a file" in done.stderr


def test_no_rule_vector_drops_exactly_the_rules_view_from_the_policy_input(
        tmp_path: Path) -> None:
    import numpy as np

    from uno_agents.policy import CURRENT_VIEWS, PolicyAgent, export_policy
    from uno_agents.training.sb3 import Config, build_model, make_env
    from uno_env import Engine, Rules
    from uno_env.engine.observe import OBS_SIZE, VIEW_SLICES

    cfg = Config(preset="official,last_standing", rule_vector=False, num_envs=4, n_steps=8,
                 batch_size=32, net="16", opponents="tuned")
    env = make_env(cfg, [])
    model = build_model(cfg, env, tmp_path)
    rules = VIEW_SLICES["rules"]
    assert model.policy.features_extractor.views == tuple(
        v for v in CURRENT_VIEWS if v[0] != "rules")
    assert env.reset().shape == (4, OBS_SIZE - (rules.stop - rules.start))
    agent = PolicyAgent(export_policy(model.policy, tmp_path / "p.safetensors"))
    kept = np.ones(OBS_SIZE, bool)
    kept[rules] = False
    np.testing.assert_array_equal(agent.columns, np.flatnonzero(kept))
    obs = Engine(Rules.preset("official", num_players=2), 8, 3).observe()
    other = Engine(Rules.preset("last_standing", num_players=2), 8, 3).observe()
    assert (obs[:, rules] != other[:, rules]).any()
    swapped = obs.copy()
    swapped[:, rules] = other[:, rules]
    np.testing.assert_array_equal(agent.logits(obs), agent.logits(swapped))
    done = run_inline("train_sb3.py", "--no-rule-vector", "--prior", "tuned", "--out",
                      str(tmp_path / "x"))
    assert done.returncode != 0 and "--no-rule-vector" in done.stderr


def test_evaluate_writes_head_to_head_results(tmp_path: Path) -> None:
    out = tmp_path / "eval.json"
    stdout = run_script("evaluate.py", "--agents", "greedy,random_play", "--opponents", "greedy",
                        "--players", "3", "--deals", "3", "--out", str(out))
    record = json.loads(out.read_text())
    assert [(r["agent"], r["opponent"]) for r in record["results"]] == [
        ("greedy", "greedy"), ("random_play", "greedy")]
    assert all(r["games"] == 9 and 0 <= r["win_rate"] <= 1 for r in record["results"])
    assert "random_play vs greedy" in stdout


def test_evaluate_compares_each_agent_with_a_baseline_on_the_same_deals(tmp_path: Path) -> None:
    out = tmp_path / "eval.json"
    run_script("evaluate.py", "--agents", "greedy,tuned", "--opponents", "random_play",
               "--baseline", "greedy", "--deals", "20", "--out", str(out))
    same, other = json.loads(out.read_text())["results"]
    # the baseline against itself: the same deals, the same games, no difference
    assert same["baseline_win_rate"] == same["win_rate"]
    assert same["difference"]["mean"] == 0
    d = other["difference"]
    assert d["mean"] == pytest.approx(other["win_rate"] - other["baseline_win_rate"])
    assert d["low"] <= d["mean"] <= d["high"]


def run_failing(script: str, *args: str) -> subprocess.CompletedProcess:
    """Run ``experiments/<script>`` expecting it to fail; returns the finished process."""
    done = run_inline(script, *args)
    assert done.returncode != 0, done.stdout
    return done


def test_evaluate_plays_a_search_agent(tmp_path: Path) -> None:
    out = tmp_path / "eval.json"
    run_script("evaluate.py", "--agents", "ismcts:budget=4", "--opponents", "random_play",
               "--deals", "2", "--out", str(out))
    (row,) = json.loads(out.read_text())["results"]
    assert row["agent"] == "ismcts:budget=4" and row["games"] == 4


def test_evaluate_intervals_stay_within_0_and_1(tmp_path: Path) -> None:
    out = tmp_path / "eval.json"
    stdout = run_script("evaluate.py", "--agents", "tuned", "--opponents", "random_play",
                        "--deals", "3", "--seed", "0", "--out", str(out))
    (row,) = json.loads(out.read_text())["results"]
    # 5 wins in 6 games: the normal interval over 3 deals reaches past 100%, cut there
    assert row["win_rate"] == pytest.approx(5 / 6)
    assert 0 <= row["low"] < row["win_rate"] < row["high"] == 1
    assert "100.0%]" in stdout


@pytest.mark.parametrize(("flags", "message"), [
    (["--agents", "greedy,nobody"], "unknown agent 'nobody'"),
    (["--agents", "greedy", "--opponents", "greedy:challenge_threshold=2.7"],
     "parameter 'challenge_threshold'"),
    (["--agents", "greedy", "--baseline", "ismcts:budget=true"], "parameter 'budget'"),
    (["--agents", "greedy", "--out", "{tmp}/missing/eval.json"], "--out .* does not exist"),
    (["--agents", "greedy", "--out", "{tmp}"], "--out .* is a folder"),
    (["--agents", "greedy", "--deals", "0"], "--deals"),
    (["--agents", "greedy", "--players", "1"], "--players"),
])
def test_evaluate_checks_every_input_before_the_first_game(tmp_path: Path, flags: list[str],
                                                           message: str) -> None:
    import re

    flags = [f.replace("{tmp}", str(tmp_path)) for f in flags]
    done = run_failing("evaluate.py", "--opponents", "random_play", "--deals", "3", *flags)
    assert done.stdout == ""                          # no evaluation was played
    assert re.search(message, done.stderr) and "Traceback" not in done.stderr, done.stderr


def test_ctrl_c_ends_an_experiment_with_one_line() -> None:
    import signal
    import time

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, str(REPO / "experiments" / "evaluate.py"),
                             "--agents", "random", "--opponents", "random",
                             "--deals", "5000000"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    time.sleep(12)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and err.strip().endswith("evaluate: interrupted")


@pytest.mark.rllib
def test_train_rllib_runs_one_iteration(tmp_path: Path) -> None:
    pytest.importorskip("ray.rllib")
    out = tmp_path / "rllib"
    run_script("train_rllib.py", "--players", "2", "--iterations", "1", "--envs-per-runner", "4",
               "--rollout-length", "16", "--train-batch", "128", "--minibatch", "64",
               "--epochs", "1", "--hidden", "16", "--out", str(out))
    record = json.loads((out / "result.json").read_text())
    (row,) = record["iterations"]
    assert row["iteration"] == 1 and row["env_steps"] >= 128
    assert 0 < row["sampling_seconds"] < row["seconds"]
    assert row["sampled_env_steps_per_s"] >= row["env_steps_per_s"] > 0
    assert record["seconds_to_first_iteration"] > row["seconds"]
    assert record["command"].startswith("python experiments/train_rllib.py --players 2")
    assert record["commit"] and record["date"] and record["machine"]["cores"] >= 1


def test_train_sb3_without_memory_trains_a_policy_blind_to_it(tmp_path: Path) -> None:
    import numpy as np

    from uno_agents import make_agent
    from uno_agents.policy import NO_MEMORY_VIEWS
    from uno_env import Engine, Rules
    from uno_env.engine.observe import SEAT_VIEWS, VIEW_SLICES

    out = tmp_path / "blind"
    run_script("train_sb3.py", "--no-memory", "--opponents", "tuned", "--timesteps", "128",
               "--num-envs", "16", "--n-steps", "8", "--batch-size", "64", "--n-epochs", "1",
               "--net", "16", "--eval-deals", "2", "--eval-opponents", "tuned",
               "--no-progress", "--out", str(out))
    agent = make_agent(f"ppo:{out / 'policy.safetensors'}")
    assert agent.module.policy.features_extractor.views == NO_MEMORY_VIEWS
    eng = Engine(Rules.preset("official", num_players=2), 64, 3)
    obs, masks = eng.observe(), eng.legal_action_mask()
    remembered = obs.copy()
    for name in SEAT_VIEWS:   # whatever the table remembers, the policy plays the same
        remembered[:, VIEW_SLICES[name]] = 1.0
    np.testing.assert_array_equal(agent.logits(obs), agent.logits(remembered))
    assert masks[np.arange(64), agent.act(obs, masks, np.random.default_rng(0))].all()
    done = run_inline("train_sb3.py", "--no-memory", "--prior", "tuned", "--out",
                      str(tmp_path / "x"))
    assert done.returncode != 0 and "--prior reads the whole observation" in done.stderr


def interrupt(script: str, *args: str, started: str, grace: float = 0.0,
              ready: Callable[[], bool] | None = None) -> tuple[int, str, str]:
    """Run ``experiments/<script>``, send it SIGINT once ``started`` shows in its output
    and ``ready()`` holds (then ``grace`` seconds more), and return its exit status,
    stdout and stderr."""
    import signal
    import threading
    import time

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, str(REPO / "experiments" / script), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    seen = {"out": b"", "err": b""}

    def pump(name: str, stream) -> None:
        while chunk := os.read(stream.fileno(), 4096):
            seen[name] += chunk

    readers = [threading.Thread(target=pump, args=(n, s), daemon=True)
               for n, s in (("out", proc.stdout), ("err", proc.stderr))]
    for reader in readers:
        reader.start()
    deadline = time.monotonic() + 300
    while started.encode() not in seen["out"] + seen["err"] or (ready and not ready()):
        assert proc.poll() is None and time.monotonic() < deadline, seen
        time.sleep(0.2)
    time.sleep(grace)
    proc.send_signal(signal.SIGINT)
    code = proc.wait(timeout=300)
    for reader in readers:
        reader.join(timeout=10)
    return code, seen["out"].decode(), seen["err"].decode()


def test_ctrl_c_stops_a_soak_with_its_summary() -> None:
    code, out, err = interrupt("soak.py", "--presets", "official", "--players", "2",
                               "--backends", "numpy", "--decisions", "1000000000",
                               started="decision", grace=2)
    assert code == 130, err
    assert "Traceback" not in err and "decisions:" in out and "violations: 0" in out
    assert "soak: interrupted after" in err and "nothing is saved" in err


def test_ctrl_c_stops_a_seeds_report_writing_nothing(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    shutil.copyfile(REPO / "agents" / "models" / "official-2p.safetensors",
                    run / "model.safetensors")
    ship, report = tmp_path / "ship.safetensors", tmp_path / "report.json"
    code, out, err = interrupt("seeds_report.py", "--runs", str(run), "--opponents",
                               "random", "--deals", "10000000", "--ship", str(ship),
                               "--out", str(report), started="measuring", grace=2)
    assert code == 130, err
    assert "Traceback" not in err and "seeds_report: interrupted; nothing was written" in err
    assert not ship.exists() and not report.exists()


def test_ctrl_c_stops_a_ppo_ablation_and_its_runs(tmp_path: Path) -> None:
    out = tmp_path / "ablation"
    # SIGINT once the run is learning (its TensorBoard file exists), not while a fresh
    # install still compiles kernels in it
    code, _, err = interrupt("ppo_ablation.py", "--variants", "baseline", "--seeds", "0",
                             "--timesteps", "100000000", "--out", str(out),
                             started="training baseline", grace=3,
                             ready=lambda: any(out.rglob("events.*")))
    assert code == 130, err
    assert "Traceback" not in err
    assert "ppo_ablation: interrupted; 0 of 1 runs finished" in err
    assert not (out / "ablation.json").exists()


def test_ppo_ablation_tables_finished_runs_with_the_provenance_of_its_record(
        tmp_path: Path) -> None:
    """Finished runs (their ``eval.json``) are reused, not trained again: the record
    alone is written, with its command, commit, date, machine and the evaluation's deals."""
    from uno_env.evaluation import head_to_head

    out = tmp_path / "ablation"
    for seed in (0, 1):
        run = out / f"baseline-seed{seed}"
        run.mkdir(parents=True)
        (run / "eval.json").write_text(json.dumps(
            [{"win_rate": 0.4, "low": 0.3, "high": 0.5, "games": 8}]))
        (run / "config.json").write_text(json.dumps(
            {"seconds": 1.0, "command": f"python experiments/train_sb3.py --seed {seed}"}))
    run_script("ppo_ablation.py", "--variants", "baseline", "--seeds", "0,1", "--deals", "4",
               "--out", str(out))
    record = json.loads((out / "ablation.json").read_text())
    assert has_provenance(record)
    assert record["command"] == ("python experiments/ppo_ablation.py --variants baseline "
                                 f"--seeds 0,1 --deals 4 --out {out}")
    # train_sb3 measures every run on head_to_head's deals, from its default seed
    first = inspect.signature(head_to_head).parameters["seed"].default
    assert record["deals"] == {"namespace": "unnamed", "first": first, "last": first + 3,
                               "count": 4}
    assert [(r["variant"], r["seed"]) for r in record["runs"]] == [("baseline", 0),
                                                                   ("baseline", 1)]
    assert "| baseline |" in (out / "ablation.md").read_text()
