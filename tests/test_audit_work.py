"""Nothing saved is deleted without an explicit flag: cross_preset keeps an interrupted
run's checkpoints and models of other settings unless told --retrain."""

from __future__ import annotations

import importlib.util
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sb3_contrib")
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def cross(monkeypatch) -> Any:
    """experiments/cross_preset.py as a module, its training recorded instead of run."""
    spec = importlib.util.spec_from_file_location("cross_probe",
                                                  REPO / "experiments" / "cross_preset.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)   # type: ignore[union-attr]
    module.trained = []
    monkeypatch.setattr(module, "train_row", lambda cfg: module.trained.append(cfg))
    return module


def rows(cross: Any, out: Path, *flags: str) -> tuple[Any, dict]:
    args = cross.parse_args(["--presets", "official,last_standing", "--seeds", "1",
                             "--budget", "64", "--no-progress", "--out", str(out), *flags])
    return args, cross.row_configs(args, ["official", "last_standing"], out)


def interrupted(cross: Any, cfg: Any) -> dict[Path, bytes]:
    """``cfg.out`` as a run of ``cfg`` stopped after three checkpoints; its files."""
    folder = Path(cfg.out)
    (folder / "checkpoints").mkdir(parents=True)
    (folder / "settings.json").write_text(json.dumps(cross.model_settings(asdict(cfg))))
    for step in (100, 200, 300):
        (folder / "checkpoints" / f"step_{step}.pt").write_bytes(b"checkpoint")
    return {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_a_rerun_without_resume_keeps_an_interrupted_run(tmp_path: Path, cross: Any) -> None:
    args, configs = rows(cross, tmp_path)
    cfg = configs[("official", 0)]
    saved = interrupted(cross, cfg)
    with pytest.raises(SystemExit, match="an interrupted run of these settings: --resume "
                                         "continues it, --retrain replaces it; it is kept"):
        cross.train_policies(args, configs)
    assert {p: p.read_bytes() for p in saved} == saved and cross.trained == []
    args, configs = rows(cross, tmp_path, "--resume")
    cross.train_policies(args, configs)
    assert [c.resume for c in cross.trained if c.out == cfg.out] == [True]
    assert {p: p.read_bytes() for p in saved} == saved


def test_resume_starts_again_a_run_stopped_before_its_first_checkpoint(
        tmp_path: Path, cross: Any) -> None:
    """A ``--jobs`` run writes every model's settings before training any: after
    Ctrl-C, the models it never reached hold their settings alone, which ``--resume``
    trains from the start (nothing saved is lost) and a plain rerun keeps."""
    args, configs = rows(cross, tmp_path)
    cfg = configs[("official", 0)]
    Path(cfg.out).mkdir(parents=True)
    (Path(cfg.out) / "settings.json").write_text(json.dumps(cross.model_settings(asdict(cfg))))
    with pytest.raises(SystemExit, match="without a checkpoint: --resume starts it again"):
        cross.train_policies(args, configs)
    assert cross.trained == []
    args, configs = rows(cross, tmp_path, "--resume")
    cross.train_policies(args, configs)
    assert [c.resume for c in cross.trained if c.out == cfg.out] == [False]


def test_a_model_of_other_settings_is_kept_without_retrain(tmp_path: Path, cross: Any
                                                           ) -> None:
    args, configs = rows(cross, tmp_path)
    cfg = configs[("official", 0)]
    folder = Path(cfg.out)
    folder.mkdir(parents=True)
    (folder / "policy.safetensors").write_bytes(b"a model")
    (folder / "config.json").write_text(json.dumps({"config": {**asdict(cfg), "net": "8"}}))
    for flags in ([], ["--resume"]):
        args, configs = rows(cross, tmp_path, *flags)
        with pytest.raises(SystemExit, match="other settings: --retrain replaces it"):
            cross.train_policies(args, configs)
        assert (folder / "policy.safetensors").read_bytes() == b"a model"
    assert cross.trained == []
    args, configs = rows(cross, tmp_path, "--retrain")   # the explicit flag replaces it
    cross.train_policies(args, configs)
    assert not (folder / "policy.safetensors").exists()
    assert cfg.out in [c.out for c in cross.trained]


def test_the_reference_heuristic_is_each_presets_own(cross: Any, tmp_path: Path) -> None:
    presets = ["official", "no_mercy", "teams"]
    args = cross.parse_args(["--presets", ",".join(presets), "--out", str(tmp_path)])
    assert cross.agent_specs("reference", presets, args) == {
        "official": "tuned", "no_mercy": "tuned:preset=no_mercy", "teams": "tuned"}
    assert cross.agent_specs("greedy", presets[:1], args) == {"official": "greedy"}
