"""The training scripts run end to end on a tiny budget and leave outputs that parse."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

pytestmark = pytest.mark.train

REPO = Path(__file__).resolve().parents[1]


def run_script(script: str, *args: str) -> str:
    """Run ``experiments/<script>`` in a fresh interpreter; returns its output."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, str(REPO / "experiments" / script), *args],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_train_ppo_self_play_on_a_preset_mixture(tmp_path: Path) -> None:
    out = tmp_path / "run"
    stdout = run_script("train_ppo.py", "--preset", "official,teams", "--opponents", "self-play",
                        "--timesteps", "256", "--num-envs", "16", "--n-steps", "8",
                        "--batch-size", "64", "--n-epochs", "1", "--net", "16",
                        "--snapshot-every", "128", "--checkpoint-every", "128",
                        "--eval-deals", "2", "--eval-opponents", "greedy", "--no-progress",
                        "--out", str(out))
    record = json.loads((out / "config.json").read_text())
    assert record["timesteps"] >= 256 and record["steps_per_second"] > 0
    assert 0 < record["env_share"] < 1
    assert record["command"].startswith("python experiments/train_ppo.py --preset official,teams")
    results = json.loads((out / "eval.json").read_text())
    assert {(r["preset"], r["players"]) for r in results} == {("official", 2), ("teams", 4)}
    assert all(0 <= r["win_rate"] <= 1 and r["games"] == 2 * r["players"] for r in results)
    assert list((out / "checkpoints").glob("model_*_steps.zip"))
    assert list((out / "tb").rglob("events.out.tfevents.*"))
    assert "steps/s" in stdout
    from agents import make_agent

    assert make_agent(f"ppo:{out / 'model.zip'}").name == "ppo:model"
