"""Agents from outside this package, named by a spec like the shipped ones.

* ``module:Class`` — a class (or a function returning an agent) of an importable module;
* ``path/to/file.py:Class`` — the same from a Python file (read once per process);
* ``name`` — an agent an installed package registers under the entry-point group
  :data:`ENTRY_POINT_GROUP` (``uno_env.agents``) in its ``pyproject.toml``::

      [project.entry-points."uno_env.agents"]
      hoarder = "my_agents:Hoarder"

Each takes ``key=value`` parameters after one more colon, read as the type its
constructor annotates (:mod:`uno_agents.spec`): ``my_agents.py:Hoarder:depth=2``. An
object that already is an agent (:func:`uno_agents.single.per_game` makes one from a
function) is used as it is and takes no parameters.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Any

from .spec import SpecError, build, parse_params

#: The entry-point group installed packages register their agents under.
ENTRY_POINT_GROUP = "uno_env.agents"

_FILES: dict[Path, Any] = {}   # resolved path -> its module, loaded once per process


def split_outside(spec: str) -> tuple[str, str, str] | None:
    """``(module or file, attribute, parameters text)`` when ``spec`` names an object
    outside the package (``target:Name`` or ``target:Name:key=value,...``, ``Name`` a
    dotted Python name); None for any other spec."""
    target, sep, rest = spec.strip().partition(":")
    attribute, _, params = rest.partition(":")
    if not sep or not target or not all(p.isidentifier() for p in attribute.split(".")):
        return None
    return target.strip(), attribute, params


def entry_points() -> dict[str, Any]:
    """The agents installed packages register (:data:`ENTRY_POINT_GROUP`), by name."""
    return {ep.name: ep for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}


def _module_of_file(path: Path, spec: str) -> Any:
    """The module of the Python file ``path``, executed once per process."""
    if not path.is_file():
        raise SpecError(f"agent {spec!r}: no file {str(path)!r}")
    key = path.resolve()
    if key not in _FILES:
        digest = hashlib.sha1(str(key).encode()).hexdigest()[:8]
        name = f"uno_outside_{key.stem}_{digest}"
        loader = importlib.util.spec_from_file_location(name, key)
        if loader is None or loader.loader is None:
            raise SpecError(f"agent {spec!r}: {str(path)!r} is not a Python file")
        module = importlib.util.module_from_spec(loader)
        sys.modules[name] = module        # what pickling and dataclasses look up
        try:
            loader.loader.exec_module(module)
        except Exception as err:
            del sys.modules[name]
            raise SpecError(f"agent {spec!r}: {str(path)!r} failed to load "
                            f"({type(err).__name__}: {' '.join(str(err).split())})") from err
        _FILES[key] = module
    return _FILES[key]


def _module(target: str, spec: str) -> Any:
    """The module ``target`` names: a file when it ends in ``.py`` or has a path
    separator, else an importable module."""
    if target.endswith(".py") or "/" in target or "\\" in target:
        return _module_of_file(Path(target), spec)
    if not target or target.startswith("."):
        raise SpecError(f"agent {spec!r}: {target!r} is not a module name (a relative "
                        "name has no package to start from; a file is named with its .py "
                        "suffix)")
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as err:
        if err.name and target.startswith(err.name):
            raise SpecError(f"agent {spec!r}: no module named {target!r} (a file is named "
                            f"with its suffix: {target}.py:Name)") from None
        raise SpecError(f"agent {spec!r}: importing {target!r} failed ({err})") from err


def _attribute(module: Any, target: str, attribute: str, spec: str) -> Any:
    """``module``'s (dotted) ``attribute``; a ``SpecError`` listing what it defines."""
    obj = module
    for part in attribute.split("."):
        if not hasattr(obj, part):
            found = sorted(n for n, v in vars(module).items() if not n.startswith("_") and (
                _is_agent(v) or inspect.isclass(v) and v.__module__ == module.__name__))
            raise SpecError(f"agent {spec!r}: {target} defines no {attribute!r} (its "
                            f"classes and agents: {', '.join(found) or 'none'})")
        obj = getattr(obj, part)
    return obj


def _is_agent(obj: Any) -> bool:
    return not inspect.isclass(obj) and callable(getattr(obj, "act", None))


def from_object(label: str, obj: Any, texts: dict[str, str], params: dict[str, Any]) -> Any:
    """The agent ``obj`` gives: ``obj`` itself when it is one (no parameters then), else
    ``obj(**parameters)`` with each parameter checked (:func:`uno_agents.spec.build`); a
    result without an ``act`` method is a ``TypeError``."""
    if _is_agent(obj):
        if texts or params:
            raise SpecError(f"agent {label!r} is an agent object: it takes no parameters")
        return obj
    if not callable(obj):
        raise SpecError(f"agent {label!r} is neither an agent nor a class (got "
                        f"{type(obj).__name__})")
    agent = build(label, obj, texts, params)
    if not callable(getattr(agent, "act", None)):
        raise TypeError(f"agent {label!r} made {type(agent).__name__}, which has no "
                        f"act(observations, masks, rng) method")
    return agent


def make_outside(spec: str, params: dict[str, Any]) -> Any | None:
    """The agent of an outside ``spec`` (module doc; ``params``: keyword arguments given
    in Python, added to the spec's), or None when ``spec`` names none."""
    parts = split_outside(spec)
    if parts is None:
        return None
    target, attribute, text = parts
    obj = _attribute(_module(target, spec), target, attribute, spec)
    return from_object(spec, obj, parse_params(spec, text), params)


__all__ = ["ENTRY_POINT_GROUP", "entry_points", "from_object", "make_outside",
           "split_outside"]
