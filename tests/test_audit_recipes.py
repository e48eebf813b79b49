"""The training recipes refuse bad flags in one line before any work (no traceback),
and the same command makes the same network."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("safetensors")
pytestmark = pytest.mark.train

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ,
       "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
NET = str(REPO / "agents" / "models" / "official-2p.safetensors")
TINY = ["--num-games", "8", "--hidden", "8", "--curve-deals", "0", "--eval-deals", "0",
        "--no-progress"]
#: A tiny run of each recipe, every flag but --out.
RECIPES = {
    "distill.py": ["--teacher", "tuned", "--opponents", "random_play", "--states", "50",
                   "--rounds", "1", "--epochs", "1", "--batch-size", "64", *TINY],
    "train_dmc.py": ["--decisions", "64", "--n-steps", "8", "--batch-size", "32", *TINY],
    "train_ppo.py": ["--timesteps", "64", "--n-steps", "8", "--batch-size", "32", *TINY],
}


def script(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(REPO / "experiments" / name), *args],
                          capture_output=True, text=True, env=ENV, timeout=600)


def refused(done: subprocess.CompletedProcess[str], *words: str) -> str:
    """The last line of a run that must have stopped on a bad flag, without a traceback."""
    assert done.returncode not in (0, None), done.stdout[-2000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    line = done.stderr.strip().splitlines()[-1]
    for word in words:
        assert word in line, line
    return line


@pytest.mark.parametrize("recipe", ["distill.py", "train_dmc.py", "train_ppo.py"])
def test_out_onto_a_file_or_through_a_file_is_one_line(tmp_path: Path, recipe: str) -> None:
    file = tmp_path / "taken"
    file.write_text("keep me")
    refused(script(recipe, *RECIPES[recipe], "--out", str(file)), "--out", "is a file")
    refused(script(recipe, *RECIPES[recipe], "--out", str(file / "run")), "--out",
            "lies under", "a file")
    assert file.read_text() == "keep me"


# each script once (a process start each), each non-finite value once
@pytest.mark.parametrize(("recipe", "rate"), [("distill.py", "inf"), ("train_dmc.py", "nan"),
                                              ("train_ppo.py", "-inf")])
def test_a_learning_rate_that_is_not_finite_is_refused(tmp_path: Path, recipe: str,
                                                       rate: str) -> None:
    refused(script(recipe, *RECIPES[recipe], f"--learning-rate={rate}", "--out",
                   str(tmp_path / "run")), "--learning-rate", "not a finite number")
    assert not (tmp_path / "run").exists()


def test_expert_iteration_refuses_an_infinite_learning_rate(tmp_path: Path) -> None:
    refused(script("expert_iteration.py", "--start", NET, "--learning-rate", "inf",
                   "--out", str(tmp_path / "x")), "--learning-rate", "not a finite number")


def test_exploit_refuses_an_infinite_learning_rate_and_a_damaged_network(tmp_path: Path
                                                                         ) -> None:
    refused(script("exploit.py", "--init-net", NET, "--learning-rate", "inf",
                   "--out", str(tmp_path / "x")), "--learning-rate", "not a finite number")
    damaged = tmp_path / "damaged.safetensors"
    damaged.write_bytes(Path(NET).read_bytes()[:5000])
    line = refused(script("exploit.py", "--init-net", str(damaged), "--out",
                          str(tmp_path / "x")), "--init-net", "damaged.safetensors")
    assert "not a safetensors file" in line
    assert not (tmp_path / "x").exists()


def test_clone_finetune_refuses_out_onto_a_file(tmp_path: Path) -> None:
    file = tmp_path / "taken"
    file.write_text("keep me")
    refused(script("clone_finetune.py", "--teacher", "greedy", "--out", str(file)), "--out",
            "is a file")


def test_ppo_with_no_curve_deals_and_an_evaluation_interval_trains_without_a_curve(
        tmp_path: Path) -> None:
    done = script("train_ppo.py", *RECIPES["train_ppo.py"], "--eval-every", "16",
                  "--out", str(tmp_path / "run"))
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads((tmp_path / "run" / "record.json").read_text())["curve"] == []


def test_sb3_with_no_curve_deals_and_an_evaluation_interval_trains_without_a_curve(
        tmp_path: Path) -> None:
    done = script("train_sb3.py", "--timesteps", "64", "--num-envs", "8", "--n-steps", "8",
                  "--batch-size", "32", "--net", "8", "--curve-deals", "0", "--eval-deals", "0",
                  "--eval-every", "16", "--no-progress", "--out", str(tmp_path / "run"))
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "run" / "model.zip").is_file()


def test_no_duplicate_deals_is_refused_by_name() -> None:
    from uno_agents import make_agent
    from uno_env import Rules
    from uno_env.evaluation import head_to_head

    with pytest.raises(ValueError, match="deals must be an integer at least 1, got 0"):
        head_to_head(make_agent("greedy"), make_agent("random"),
                     Rules.preset("official", num_players=2), 0)


@pytest.mark.slow
def test_the_same_distill_command_makes_the_same_network(tmp_path: Path) -> None:
    from safetensors.torch import load_file

    nets = []
    for run in ("a", "b"):
        done = script("distill.py", *RECIPES["distill.py"], "--rounds", "2", "--seed", "3",
                      "--out", str(tmp_path / run))
        assert done.returncode == 0, done.stderr[-3000:]
        nets.append(load_file(str(tmp_path / run / "model.safetensors")))
    assert nets[0].keys() == nets[1].keys()
    assert all((nets[0][k] == nets[1][k]).all() for k in nets[0])


def test_distill_with_fewer_states_than_a_batch_still_learns(tmp_path: Path) -> None:
    """50 states, batches of 1024: the run starts from a network saved here, so the test
    knows its weights whatever the run's seeding, and the one it ships must differ."""
    import torch

    from uno_agents.net import load_net, save_net
    from uno_agents.training.encoder import PackedLayout
    from uno_agents.training.nets import build_net
    from uno_env import Rules

    start = tmp_path / "start.safetensors"
    save_net(start, build_net("packed", (8,),
                              PackedLayout.of(Rules.preset("official", num_players=2))))
    done = script("distill.py", *RECIPES["distill.py"], "--batch-size", "1024",
                  "--init-net", str(start), "--out", str(tmp_path / "run"))
    assert done.returncode == 0, done.stderr[-3000:]
    before = load_net(start)[0].state_dict()
    trained = load_net(tmp_path / "run" / "model.safetensors")[0].state_dict()
    assert before.keys() == trained.keys()
    assert any(not torch.equal(v, trained[k]) for k, v in before.items())


def test_clone_finetune_with_no_curve_deals_runs_without_a_curve(tmp_path: Path) -> None:
    done = script("clone_finetune.py", "--teacher", "greedy", "--clone-states", "50",
                  "--clone-rounds", "1", "--clone-epochs", "1", "--clone-games", "8",
                  "--timesteps", "64", "--num-envs", "8", "--n-steps", "8", "--batch-size",
                  "32", "--curve-every", "16", "--curve-deals", "0", "--seeds", "1",
                  "--deals", "2", "--hidden", "8", "--no-progress", "--out",
                  str(tmp_path / "cf"))
    assert done.returncode == 0, done.stderr[-3000:]
    record = json.loads((tmp_path / "cf" / "seed-0" / "finetune" / "record.json").read_text())
    assert record["curve"] == []
