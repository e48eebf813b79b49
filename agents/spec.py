"""Agent specs: ``"name:key=value,key=value"``, each value checked against the agent's
parameter it sets.

A spec's values are text; each is read as the type its parameter is annotated
with (``int``, ``float``, ``bool`` or ``str``): ``budget=12`` is an integer,
``confidence=2.5`` a number, ``playout=greedy`` a name. A value of another kind
(``budget=true``, ``challenge_threshold=2.7``, ``=inf``, ``=abc`` for an integer)
raises ``ValueError`` naming the agent, the parameter and the value; nothing is
rounded or guessed. Keyword arguments given in Python are held to the same types.
"""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Callable
from typing import Any

from uno_env import checks

_INTEGER = re.compile(r"[+-]?[0-9]+")
_BOOLEANS = {"true": True, "false": False}


class SpecError(ValueError):
    """An agent spec that names no agent, or a parameter it lacks or cannot take."""


def split_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"name:key=value,..."`` as ``(name, {key: value text})``; raises ``ValueError``
    naming a part that is not ``key=value``."""
    name, _, params = spec.strip().partition(":")
    return name.strip(), parse_params(spec, params)


def parse_params(spec: str, params: str) -> dict[str, str]:
    """``"key=value,..."`` (the parameters of ``spec``) as ``{key: value text}``; raises
    ``ValueError`` naming a part that is not ``key=value``."""
    texts: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in params.split(","))):
        key, eq, text = item.partition("=")
        if not eq or not key.strip() or not text.strip():
            raise SpecError(f"agent spec {spec!r}: parameter {item!r} is not key=value")
        texts[key.strip()] = text.strip()
    return texts


def parameter_types(cls: Callable[..., Any]) -> dict[str, Any]:
    """The keyword parameters of ``cls``'s constructor (of ``cls`` itself for a function)
    and their annotated types (``Any`` where unannotated or unresolvable)."""
    target = cls.__init__ if inspect.isclass(cls) else cls
    try:
        hints = typing.get_type_hints(target)
    except Exception:
        hints = {}
    signature = inspect.signature(target)
    return {key: hints.get(key, Any) for key, p in signature.parameters.items()
            if key != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def _from_text(text: str, kind: Any) -> Any:
    """``text`` read as ``kind`` (``ValueError`` when it is not one)."""
    if kind is int:
        if not _INTEGER.fullmatch(text) or len(text) > 30:
            raise ValueError
        return int(text)
    if kind is float:
        return float(text)
    if kind is bool:
        return _BOOLEANS.get(text.lower(), text)
    return text


def _is_real(value: Any) -> bool:
    try:
        checks.real(value, "value")
    except (TypeError, ValueError):
        return False
    return True


#: How a value of each supported type is checked, and what it is called in messages.
_CHECKS: dict[Any, tuple[Callable[[Any], bool], str]] = {
    int: (checks.is_integer, "an integer"),
    float: (_is_real, "a finite number"),
    bool: (lambda v: isinstance(v, bool), "true or false"),
    str: (lambda v: isinstance(v, str), "a string"),
}


def checked_value(agent: str, key: str, value: Any, kind: Any, text: bool = False) -> Any:
    """``value`` for parameter ``key`` of ``agent``, if it is of type ``kind`` (with
    ``text``, ``value`` is a spec's text, read as that type first); raises ``SpecError``
    naming all three otherwise. Parameters of other annotated types pass unchecked."""
    if kind not in _CHECKS:
        return value
    check, wanted = _CHECKS[kind]
    typed = value
    if text:
        try:
            typed = _from_text(value, kind)
        except ValueError:
            typed = value
    if not check(typed):
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        raise SpecError(f"agent {agent!r}: parameter {key!r} must be {wanted}, got {shown}")
    return float(typed) if kind is float else int(typed) if kind is int else typed


def build(name: str, cls: Callable[..., Any], texts: dict[str, str], params: dict[str, Any]) -> Any:
    """``cls(**texts, **params)`` with every parameter checked (:func:`checked_value`):
    ``texts`` are a spec's values (text), ``params`` keyword arguments given in Python
    (taking precedence). An error the constructor raises about a value is a
    ``SpecError`` naming the agent."""
    types = parameter_types(cls)
    unknown = [k for k in [*texts, *params] if k not in types]
    if unknown:
        raise SpecError(f"agent {name!r} has no parameter {unknown[0]!r}; parameters: "
                        f"{', '.join(types) or 'none'}")
    kwargs = {k: checked_value(name, k, v, types[k], text=True) for k, v in texts.items()}
    kwargs.update({k: checked_value(name, k, v, types[k]) for k, v in params.items()})
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as err:
        raise SpecError(f"agent {name!r}: {err}") from err


__all__ = ["SpecError", "build", "checked_value", "parameter_types", "parse_params",
           "split_spec"]
