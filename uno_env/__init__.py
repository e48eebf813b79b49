"""uno-env: a fast, rule-faithful multi-agent reinforcement-learning environment for UNO.

The names below load on first use (their modules import numpy and the engine), so that
importing the package, or a light module of it such as :mod:`uno_env.launch`, costs
next to nothing: a command sets its Ctrl-C handling before anything heavy is loaded.
``uno_env/Uno-v0`` is registered with Gymnasium as soon as both are imported, in
either order.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .actions import ACTION_NAMES, NUM_ACTIONS, action_id, action_name
    from .cards import parse_card
    from .engine import Engine, IllegalActionError
    from .pettingzoo_env import env, raw_env
    from .rules import PRESETS, Rules

__version__ = "0.1.0"

__all__ = ["ACTION_NAMES", "NUM_ACTIONS", "PRESETS", "Engine", "IllegalActionError", "Rules",
           "action_id", "action_name", "env", "parse_card", "raw_env"]

#: The module of each public name.
_HOMES = {"ACTION_NAMES": ".actions", "NUM_ACTIONS": ".actions", "action_id": ".actions",
          "action_name": ".actions", "parse_card": ".cards", "Engine": ".engine",
          "IllegalActionError": ".engine", "env": ".pettingzoo_env",
          "raw_env": ".pettingzoo_env", "PRESETS": ".rules", "Rules": ".rules"}


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use (then kept here)."""
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOMES[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def _register_gymnasium() -> None:
    """Register ``uno_env/Uno-v0`` with Gymnasium (the env module loads on make)."""
    from gymnasium.envs.registration import register, registry

    if "uno_env/Uno-v0" not in registry:
        register(id="uno_env/Uno-v0", entry_point="uno_env.gym_env:UnoEnv")


class _AfterImport:
    """A ``sys.meta_path`` entry that runs ``then`` once the module ``name`` has been
    imported (by whichever finder provides it), and removes itself."""

    def __init__(self, name: str, then: Callable[[], None]) -> None:
        self.name, self.then = name, then

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is not None and spec.loader is not None:
            execute = spec.loader.exec_module

            def exec_module(module: Any) -> None:
                execute(module)
                self.then()
            spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


if "gymnasium" in sys.modules:
    _register_gymnasium()
else:
    sys.meta_path.insert(0, _AfterImport("gymnasium", _register_gymnasium))
