"""The environment and the agents type-check: mypy (the ``dev`` extra) finds no error in
``uno_env`` or in ``agents/`` (the ``uno_agents`` package), under the settings of
``[tool.mypy]`` in pyproject.toml."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_finds_no_error() -> None:
    api = pytest.importorskip("mypy.api")
    out, err, status = api.run(["--config-file", str(ROOT / "pyproject.toml"),
                                "--cache-dir", str(ROOT / ".mypy_cache"),
                                str(ROOT / "uno_env"), str(ROOT / "agents")])
    assert status == 0, f"mypy found errors:\n{out}{err}"
