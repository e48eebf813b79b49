"""A regular install of the project lives beside another distribution's ``agents``.

The folder ``agents/`` installs as the import package ``uno_agents``
(``[tool.setuptools.package-dir]`` in pyproject.toml): the top-level name ``agents`` is
taken by other distributions, and two packages of one name cannot share an environment.
The test installs the project (not editable) and a throwaway distribution providing a
top-level ``agents`` into one fresh virtual environment, offline: no dependencies are
downloaded, the ones of the running interpreter are reached through a ``.pth`` file.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: The name the other distribution's package takes, and the one of the project's agents.
TAKEN, OURS = "agents", "uno_agents"

CHECK = f"""
import json, importlib.metadata, pathlib
import {OURS}, uno_env
from {OURS}.files import MODELS_DIR
other = __import__("{TAKEN}")
files = importlib.metadata.distribution("uno-env").files
print(json.dumps({{
    "agent": {OURS}.make_agent("greedy").name,
    "ours": {OURS}.__file__, "env": uno_env.__file__, "other": other.WHO,
    "models": sorted(p.name for p in pathlib.Path(MODELS_DIR).iterdir()),
    "top_level": sorted({{f.parts[0] for f in files}}),
}}))
"""


def _pip(python: Path, *args: str | Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q",
                    "--no-deps", "--no-build-isolation", "--no-index",
                    "--disable-pip-version-check", *map(str, args)],
                   check=True, capture_output=True, text=True)


def test_a_fresh_install_lives_beside_another_agents_package(tmp_path: Path) -> None:
    source = tmp_path / "uno-env"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")
    for folder in ("uno_env", "agents"):
        shutil.copytree(ROOT / folder, source / folder, ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copyfile(ROOT / name, source / name)
    other = tmp_path / "other"
    (other / TAKEN).mkdir(parents=True)
    (other / TAKEN / "__init__.py").write_text('WHO = "other"\n')
    (other / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
        f'[project]\nname = "other-agents"\nversion = "1.0"\n'
        f'[tool.setuptools]\npackages = ["{TAKEN}"]\n')

    env = tmp_path / "venv"
    venv.create(env, with_pip=False)
    python = env / "bin" / "python"
    purelib = Path(subprocess.run([python, "-c", "import sysconfig; "
                                   "print(sysconfig.get_paths()['purelib'])"],
                                  check=True, capture_output=True, text=True).stdout.strip())
    # The dependencies (and setuptools, to build) come from the running interpreter's
    # site-packages, after the fresh environment's own.
    (purelib / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    _pip(python, source, other)

    clean = {k: v for k, v in os.environ.items()
             if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    run = subprocess.run([python, "-c", CHECK], cwd=tmp_path, check=False,
                         capture_output=True, text=True, env=clean)
    assert run.returncode == 0, run.stderr
    found = json.loads(run.stdout)
    assert found["agent"] == "greedy"
    assert found["other"] == "other"
    for name in ("ours", "env"):
        assert Path(found[name]).is_relative_to(purelib), found
    shipped = {p.name for p in (ROOT / "agents" / "models").iterdir()}
    assert set(found["models"]) >= shipped
    assert TAKEN not in found["top_level"] and OURS in found["top_level"], found
    command = subprocess.run([env / "bin" / "uno-env", "rules"], cwd=tmp_path, check=False,
                             capture_output=True, text=True, env=clean)   # its entry point
    assert command.returncode == 0 and "official" in command.stdout, command.stderr


def test_every_package_folder_is_installed() -> None:
    """pyproject.toml lists the packages by name (the agents' is mapped to its folder):
    every folder with an ``__init__.py`` has to be among them."""
    tomllib = pytest.importorskip("tomllib")   # Python 3.11+
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = {"uno_env": "uno_env", OURS: "agents"}
    assert config["package-dir"] == {OURS: folders[OURS]}
    found = {".".join([name, *init.parent.relative_to(ROOT / folder).parts])
             for name, folder in folders.items()
             for init in (ROOT / folder).rglob("__init__.py")}
    assert found == set(config["packages"])
