"""Stages of an experiment are reused only under the settings that made them; other
settings are refused in one line and nothing saved is changed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from uno_env.tooling.stages import STAGE_FILE, claim_stage, stage_settings

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ,
       "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}


def command(tmp_path: Path, *flags: str) -> list[str]:
    return [sys.executable, "experiments/train_ppo.py", "--out", str(tmp_path / "x"),
            "--no-progress", *flags]


def test_a_new_stage_records_its_settings_and_the_same_ones_reuse_it(tmp_path: Path) -> None:
    start = tmp_path / "start.bin"
    start.write_bytes(b"network")
    settings = stage_settings(command(tmp_path, "--init-net", str(start), "--timesteps", "32"),
                              [start])
    assert settings == {"script": "train_ppo.py",
                        "flags": ["--init-net", settings["flags"][1], "--timesteps", "32"]}
    assert str(start) not in settings["flags"][1] and "sha256" in settings["flags"][1]
    folder = tmp_path / "stage"
    claim_stage(folder, settings, "probe")
    assert json.loads((folder / STAGE_FILE).read_text()) == settings
    (folder / "model.safetensors").write_text("work")
    claim_stage(folder, settings, "probe")   # the same settings: reused
    again = stage_settings(command(tmp_path, "--init-net", str(start), "--timesteps", "32",
                                   "--resume"), [start])
    claim_stage(folder, again, "probe")      # resuming changes nothing made


@pytest.mark.parametrize(("flags", "difference"), [
    (["--timesteps", "64"], "--timesteps 32 there, 64 now"),
    (["--timesteps", "32", "--seed", "1"], "flags"),
])
def test_other_settings_are_refused_in_one_line_and_nothing_changes(
        tmp_path: Path, flags: list[str], difference: str) -> None:
    folder = tmp_path / "stage"
    claim_stage(folder, stage_settings(command(tmp_path, "--timesteps", "32")), "probe")
    (folder / "model.safetensors").write_text("work")
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    with pytest.raises(SystemExit) as exc:
        claim_stage(folder, stage_settings(command(tmp_path, *flags)), "probe")
    assert "other settings" in str(exc.value) and difference in str(exc.value)
    assert "\n" not in str(exc.value)
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


def test_another_start_network_is_other_settings(tmp_path: Path) -> None:
    start = tmp_path / "start.bin"
    start.write_bytes(b"network a")
    folder = tmp_path / "stage"
    claim_stage(folder, stage_settings(command(tmp_path, "--init-net", str(start)), [start]),
                "probe")
    start.write_bytes(b"network b")   # the same path, another network
    with pytest.raises(SystemExit, match="other settings"):
        claim_stage(folder, stage_settings(command(tmp_path, "--init-net", str(start)),
                                           [start]), "probe")


def test_work_without_a_record_of_its_settings_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "stage"
    folder.mkdir()
    (folder / "model.safetensors").write_text("work")
    with pytest.raises(SystemExit, match="without a record of its settings"):
        claim_stage(folder, {"script": "x.py", "flags": []}, "probe")
    assert not (folder / STAGE_FILE).exists()
    (folder / STAGE_FILE).write_text("{not json")
    with pytest.raises(SystemExit, match="is damaged"):
        claim_stage(folder, {"script": "x.py", "flags": []}, "probe")


@pytest.mark.train
@pytest.mark.slow
def test_exploit_refuses_an_exploiter_trained_under_other_settings(tmp_path: Path) -> None:
    pytest.importorskip("safetensors")
    net = str(REPO / "agents" / "models" / "official-2p.safetensors")
    out = tmp_path / "probe"

    def exploit(timesteps: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(REPO / "experiments" / "exploit.py"), "--targets", "greedy",
             "--init-net", net, "--timesteps", timesteps, "--deals", "2", "--num-envs", "8",
             "--n-steps", "8", "--batch-size", "32", "--out", str(out)],
            capture_output=True, text=True, env=ENV, timeout=600)

    first = exploit("32")
    assert first.returncode == 0, first.stderr[-3000:]
    saved = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert exploit("32").returncode == 0   # the same settings reuse the exploiter
    second = exploit("64")
    assert second.returncode == 1 and "Traceback" not in second.stderr
    assert "--timesteps 32 there, 64 now" in second.stderr.strip().splitlines()[-1]
    assert json.loads((out / "exploit.json").read_bytes())["timesteps"] == 32
    assert {p: p.read_bytes() for p in saved} == saved
