"""The modules' former import paths, kept working for code written against them.

The environments, the tournament modules and the script support once sat at the top
of the package (``uno_env.vector``, ``uno_env.tournament``, ``uno_env.machine`` ...);
they now live in :mod:`uno_env.envs`, :mod:`uno_env.evaluation` and
:mod:`uno_env.tooling`. :class:`AliasFinder`, installed on ``sys.meta_path`` by
``uno_env/__init__.py``, answers an import of a former path with the module at its
new one: the same module object, imported only when the old name is, so the aliases
cost nothing at ``import uno_env``. The project itself imports the new paths.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType

#: Former module path -> the module's path now.
MOVED: dict[str, str] = {
    "uno_env.pettingzoo_env": "uno_env.envs.pettingzoo_env",
    "uno_env.gym_env": "uno_env.envs.gym_env",
    "uno_env.vector": "uno_env.envs.vector",
    "uno_env.rllib_env": "uno_env.envs.rllib_env",
    "uno_env.learner": "uno_env.envs.learner",
    "uno_env.render": "uno_env.envs.render",
    "uno_env.tournament": "uno_env.evaluation.tournament",
    "uno_env.tournament_report": "uno_env.evaluation.report",
    "uno_env.leaderboard": "uno_env.evaluation.leaderboard",
    "uno_env.simulate": "uno_env.evaluation.simulate",
    "uno_env.decision_speed": "uno_env.tooling.decision_speed",
    "uno_env.rlcard_reference": "uno_env.tooling.rlcard_reference",
    "uno_env.machine": "uno_env.tooling.machine",
    "uno_env.parallel": "uno_env.tooling.parallel",
    "uno_env.dataclass_flags": "uno_env.tooling.dataclass_flags",
    "uno_env.stages": "uno_env.tooling.stages",
}


class _AliasLoader(importlib.abc.Loader):
    """Loads a former path as the module at its new path (imported there once)."""

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(MOVED[spec.name])
        # The import system sets ``__spec__`` of what this returns to the alias's spec;
        # exec_module puts the module's own back.
        spec.loader_state = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        alias = module.__spec__
        if alias is not None and alias.loader_state is not None:
            module.__spec__ = alias.loader_state


class AliasFinder(importlib.abc.MetaPathFinder):
    """Finds the former paths of :data:`MOVED`, and nothing else."""

    _loader = _AliasLoader()

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self._loader)


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once): a former path names the moved
    module, whatever file another finder would find under that name."""
    if not any(isinstance(finder, AliasFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, AliasFinder())
