"""Installs: a script run without the extra it needs says which one, and how to install
it, in one line (``--help`` too), never in a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

from uno_env import extras

ROOT = Path(__file__).resolve().parent.parent

#: Runs every experiment script's --help with the train and rllib extras hidden.
PROBE = """
import contextlib, io, json, runpy, sys
from pathlib import Path
for name in ("torch", "stable_baselines3", "sb3_contrib", "safetensors", "ray"):
    sys.modules[name] = None
out = {}
for path in sorted(Path("experiments").glob("*.py")):
    sys.argv = [str(path), "--help"]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            runpy.run_path(str(path), run_name="__main__")
            out[path.name] = [0, ""]
        except SystemExit as e:
            out[path.name] = [0 if e.code in (0, None) else 1, str(e.code or "")]
        except BaseException as e:
            out[path.name] = [2, f"{type(e).__name__}: {e}"]
print(json.dumps(out))
"""


def test_every_script_without_its_extra_says_which_in_one_line() -> None:
    import json

    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout.splitlines()[-1])
    assert len(results) == len(list((ROOT / "experiments").glob("*.py")))
    tracebacks = {name: text for name, (code, text) in results.items() if code == 2}
    assert tracebacks == {}
    refused = {name: text for name, (code, text) in results.items() if code == 1}
    for name in ("train_ppo.py", "train_sb3.py", "cross_preset.py", "distill.py"):
        assert refused[name].startswith(f"{name} needs the train extra (no module 'torch'): ")
    assert "needs the rllib extra" in refused["train_rllib.py"]
    for text in refused.values():
        assert "\n" not in text and 'constraints.txt -e ".[' in text
        assert "--extra-index-url https://download.pytorch.org/whl/cpu" in text


def test_require_names_the_first_missing_extra(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "openskill", None)
    assert extras.missing("eval") == ["openskill"] and extras.missing("render") == []
    with pytest.raises(SystemExit, match=r"^x.py needs the eval extra \(no module 'openskill'\)"):
        extras.require("x.py", "render", "eval")
    with pytest.raises(ValueError, match="unknown extra 'gpu'"):
        extras.missing("gpu")


def test_the_extras_named_exist_and_jupyter_comes_with_the_notebooks() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    assert set(extras.EXTRAS) <= set(declared)
    notebooks = declared["notebooks"]
    assert any(r.startswith("jupyterlab") for r in notebooks)
    assert "uno-env[train,eval,render]" in notebooks
    assert '".[notebooks]"' in (ROOT / "notebooks" / "README.md").read_text()
