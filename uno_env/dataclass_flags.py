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
import re
from typing import Any


def field_help(cls: type) -> dict[str, str]:
    """Each field's description: its trailing comment in the class source, continued by the
    comment lines indented below it."""
    helps: dict[str, str] = {}
    last = None
    for line in inspect.getsource(cls).splitlines():
        field = re.match(r"    (\w+): [^=]+=[^#]*(?:#\s*(.*))?$", line)
        more = re.match(r"\s{5,}#\s*(.*)$", line)
        if field:
            last = field.group(1)
            helps[last] = (field.group(2) or "").strip()
        elif more and last:
            helps[last] += " " + more.group(1).strip()
        else:
            last = None
    return helps


def parse_dataclass(cls: type, description: str, argv: list[str] | None = None) -> Any:
    """An instance of the dataclass ``cls`` from command-line flags, one per field
    (``num_envs`` -> ``--num-envs``), defaults from the dataclass, each flag's help from
    its field's comment (:func:`field_help`)."""
    parser = argparse.ArgumentParser(description=description,
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    helps = field_help(cls)
    for f in dataclasses.fields(cls):
        flag = "--" + f.name.replace("_", "-")
        text = helps.get(f.name) or f.name.replace("_", " ")
        if f.type == "bool":
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=f.default,
                                help=text)
        else:
            kind = {"int": int, "float": float, "str": str}[f.type]
            parser.add_argument(flag, type=kind, default=f.default, help=text)
    return cls(**vars(parser.parse_args(argv)))
