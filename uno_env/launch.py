"""A command's first line: one Ctrl-C ends it quietly from the moment it starts.

A command (the ``uno-env`` console script, every ``experiments/*.py`` script) spends its
first seconds importing numpy, numba, torch and the engine's kernels before
:func:`uno_env.cli.run_command` takes over Ctrl-C. Under Python's own handler a Ctrl-C
there raises ``KeyboardInterrupt`` in the middle of an import, and the command ends
with a traceback (or, inside a callback from C code, the interrupt is dropped and the
command runs on). :func:`guard`, called before those imports, makes a Ctrl-C end the
process at once with one line on stderr and exit status 130.

This module imports only the standard library, and so does ``uno_env``'s
``__init__`` (its names load on first use): importing it is the cheap first step of a
command.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any


def guard(name: str, module: str = "__main__") -> None:
    """Until the command's own handling replaces it (:func:`uno_env.cli.run_command`, which
    puts this one back when it returns), a Ctrl-C ends this process with
    ``"<name>: interrupted"`` on stderr and exit status 130.

    ``module`` is the caller's ``__name__``: the guard is set only for a script run as
    the program (``"__main__"``), never when it is imported, and only from the main
    thread (where Python runs signal handlers)."""
    if module == "__main__" and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _exit_quietly(name))


def _exit_quietly(name: str) -> Callable[[int, Any], None]:
    """A SIGINT handler that ends the process without raising: an exception raised here
    could surface anywhere (a traceback from inside an import) or be dropped by a
    callback from C code. No process of the command's own is running yet (its steps
    start under :func:`uno_env.cli.run_command`), so there is nothing to stop first."""
    def handler(signum: int, frame: Any) -> None:
        for stream in (sys.stdout, sys.stderr):   # what was printed so far, if it can
            with contextlib.suppress(Exception):   # a write cut short, a closed pipe
                stream.flush()
        os.write(2, f"\n{name}: interrupted\n".encode())
        os._exit(130)
    return handler


def main() -> int:
    """The ``uno-env`` console script: the guard, then the command (:func:`uno_env.cli.main`)."""
    guard("uno-env")
    from .cli import main as command

    return command()
