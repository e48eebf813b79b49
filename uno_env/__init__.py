"""uno-env: a fast, rule-faithful multi-agent reinforcement-learning environment for UNO.

The package by layers (docs/architecture.md): the game as data (``cards``, ``actions``,
``rules``, ``checks``), the :mod:`~uno_env.engine`, the base over it (``deals``,
``files`` ...), then :mod:`uno_env.envs`, :mod:`uno_env.evaluation`,
:mod:`uno_env.tooling` and the ``uno-env`` command (``cli``).
"""

import importlib
from typing import Any

from . import _aliases
from .actions import ACTION_NAMES, NUM_ACTIONS, action_id, action_name
from .cards import parse_card
from .engine import Engine, IllegalActionError
from .envs.pettingzoo_env import env, raw_env
from .rules import PRESETS, Rules

__version__ = "0.1.0"

__all__ = ["ACTION_NAMES", "NUM_ACTIONS", "PRESETS", "Engine", "IllegalActionError", "Rules",
           "action_id", "action_name", "env", "parse_card", "raw_env"]


def _register_gymnasium() -> None:
    """Register ``uno_env/Uno-v0`` with Gymnasium (lazily: the env module loads on make)."""
    from gymnasium.envs.registration import register, registry

    if "uno_env/Uno-v0" not in registry:
        register(id="uno_env/Uno-v0", entry_point="uno_env.envs.gym_env:UnoEnv")


_register_gymnasium()
_aliases.install()


def __getattr__(name: str) -> Any:
    """A moved module by its former attribute (``uno_env.vector`` ...), imported on first use."""
    if f"{__name__}.{name}" in _aliases.MOVED:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
