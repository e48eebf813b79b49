"""One compiled version of each kernel, whatever constants its callers pass.

numba compiles a function once per distinct tuple of argument types, and a constant
in the caller's code is typed by its value (``Literal[bool](True)``,
``Literal[int](0)``) while a variable is typed by its kind, and a small integer read
from the state (``int16``) differs from an ``int64``. So ``new_round(rules, s, g,
True)`` and ``new_round(rules, s, g, first)`` compiled the whole round twice (and
every function they call with such a constant again). :func:`plain_arguments` makes
a kernel called from compiled code compile for plain types instead: literals as their
type, signed integers as ``int64`` (numba computes in ``int64`` anyway); the callers
convert their arguments, so every caller shares one version.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from numba.core import types
from numba.core.dispatcher import Dispatcher


def plain(arg: types.Type) -> types.Type:
    """``arg`` without its literal value, a signed integer as ``int64``."""
    arg = types.unliteral(arg)  # type: ignore[attr-defined]  # numba's stubs lack it
    if isinstance(arg, types.Integer) and arg.signed:  # type: ignore[attr-defined]
        return types.int64
    return arg


def plain_arguments(dispatcher: Any) -> None:
    """Make calls to ``dispatcher`` from compiled code resolve to (and compile) its version
    for :func:`plain` argument types."""
    template = dispatcher.get_call_template

    def plain_call_template(args: tuple, kws: dict) -> Any:
        return template(tuple(plain(a) for a in args), {k: plain(v) for k, v in kws.items()})

    dispatcher.get_call_template = plain_call_template


def plain_module(module: ModuleType) -> None:
    """:func:`plain_arguments` for every numba function defined in ``module``."""
    for value in vars(module).values():
        if isinstance(value, Dispatcher) and value.py_func.__module__ == module.__name__:
            plain_arguments(value)
