"""Command-line flags from a dataclass of settings: one flag per field.

The experiment scripts keep every setting of a run in a dataclass, so a run's record
is ``dataclasses.asdict(config)``. :func:`parse_dataclass` makes the flags
(``num_envs`` -> ``--num-envs``; booleans as ``--x/--no-x``), with each field's
default and its description, read from the comment after the field in the class
source (:func:`field_help`), so ``--help`` explains every flag.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any


def field_help(cls: type) -> dict[str, str]:
    """Each field's whole description: its trailing comment in the class source, continued
    by the comment-only lines below it whose text is pushed right (``#`` and two or more
    spaces, aligned under the comment); a plain ``# title`` line ends it."""
    helps: dict[str, str] = {}
    for base in reversed(cls.__mro__[1:]):   # the fields a settings class inherits
        if dataclasses.is_dataclass(base):
            helps.update(field_help(base))
    last = None
    for line in inspect.getsource(cls).splitlines():
        field = re.match(r"    (\w+): [^=]+=[^#]*(?:#\s*(.*))?$", line)
        more = re.match(r"\s*#\s{2,}(\S.*)$", line)
        if field:
            last = field.group(1)
            helps[last] = (field.group(2) or "").strip()
        elif more and last:
            helps[last] += " " + more.group(1).strip()
        else:
            last = None
    return helps


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Defaults shown after each help; a boolean flag's default named as the flag that
    holds by default (``--progress``, ``--no-resume``), never a bare True or False, and
    none for a switch (``--no-progress`` alone: it is off unless given)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.nargs == 0 and isinstance(action.const, bool):   # store_true/false
            return action.help
        if isinstance(action, argparse.BooleanOptionalAction):
            name = action.option_strings[0][2:]
            text = (action.help or "").removesuffix(" (default: %(default)s)")  # Python 3.10
            return f"{text} (default: --{'' if action.default else 'no-'}{name})"
        if action.default == "":
            return f"{action.help} (default: empty)"
        return super()._get_help_string(action)


def parse_dataclass(cls: type, description: str, argv: list[str] | None = None) -> Any:
    """An instance of the dataclass ``cls`` from command-line flags, one per field
    (``num_envs`` -> ``--num-envs``), defaults from the dataclass, each flag's help from
    its field's comment (:func:`field_help`)."""
    parser = argparse.ArgumentParser(description=description,
                                     formatter_class=HelpFormatter)
    helps = field_help(cls)
    for f in dataclasses.fields(cls):
        flag = "--" + f.name.replace("_", "-")
        text = helps.get(f.name) or f.name.replace("_", " ")
        if f.type == "bool":
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=f.default,
                                help=text)
        else:
            kinds: dict[str, Callable[[str], Any]] = {"int": int, "float": finite_float,
                                                      "str": str}
            kind = kinds[str(f.type)]
            parser.add_argument(flag, type=kind, default=f.default, help=text)
    return cls(**vars(parser.parse_args(argv)))


def finite_float(text: str) -> float:
    """An argparse ``type`` for finite numbers: ``inf`` and ``nan`` are usage errors (no
    setting of a run means anything at them)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


finite_float.__name__ = "number"


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def check_folder(text: str, name: str = "out") -> Path:
    """``text`` as the path of an output folder, if it is one or can be made one:
    ``SystemExit`` naming the flag when it, or a folder above it, is a file."""
    path = Path(text)
    for place in [path, *path.parents]:
        if place.exists() and not place.is_dir():
            where = "is a file" if place == path else f"lies under {str(place)!r}, a file"
            raise SystemExit(f"{_flag(name)} {text!r} {where}: it must be a folder")
    return path


def check_file(text: str, name: str) -> Path:
    """``text`` as the path of an input file: ``SystemExit`` naming the flag when it does
    not exist or is a folder."""
    path = Path(text)
    if not path.is_file():
        where = "is a folder" if path.is_dir() else "does not exist"
        raise SystemExit(f"{_flag(name)} {text!r} {where}: it must be a file")
    return path


def check_bounds(cfg: Any, at_least_one: tuple[str, ...] = (), non_negative: tuple[str, ...] = (),
                 positive: tuple[str, ...] = (), fractions: tuple[str, ...] = ()) -> None:
    """Raise ``SystemExit`` naming the first of ``cfg``'s fields outside its range, as the
    flag a user typed: counts of at least 1, numbers >= 0 or > 0, fractions in [0, 1]."""
    tests = [(at_least_one, lambda v: v >= 1, "at least 1"),
             (non_negative, lambda v: v >= 0, ">= 0"), (positive, lambda v: v > 0, "> 0"),
             (fractions, lambda v: 0 <= v <= 1, "in [0, 1]")]
    for names, ok, what in tests:
        for name in names:
            value = getattr(cfg, name)
            if not math.isfinite(value):
                raise SystemExit(f"{_flag(name)} must be a finite number {what}, got {value}")
            if not ok(value):
                raise SystemExit(f"{_flag(name)} must be {what}, got {value}")


def widths(text: str, name: str) -> tuple[int, ...]:
    """Layer widths from ``"512,512,256"``; ``SystemExit`` naming the flag otherwise."""
    try:
        values = tuple(int(h) for h in text.split(","))
    except ValueError:
        raise SystemExit(f"{_flag(name)} must be comma-separated widths, got {text!r}") from None
    if min(values) < 1:
        raise SystemExit(f"{_flag(name)} must be positive widths, got {text!r}")
    return values

