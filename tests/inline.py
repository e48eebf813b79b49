"""Run the experiment scripts inside the test process, as a fresh interpreter would.

A script started with ``python experiments/<script>.py`` pays for importing torch and
loading the engine's kernels before any work (seconds per process), and the training
recipes start one script from another. The tests run each script here instead: the same
``__main__`` code, the same arguments, its output and exit status captured as
``subprocess.run`` gives them. A recipe's own step (``subprocess.run`` or
``uno_env.cli.run_process`` of another script) runs here too, one at a time; any other
command runs as a real process. Tests of what a real process does (Ctrl-C, a missing
extra) start one themselves.
"""

from __future__ import annotations

import io
import os
import runpy
import signal
import subprocess
import sys
import threading
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
EXPERIMENTS = REPO / "experiments"
_real_run = subprocess.run
_lock = threading.RLock()


def _exit_status(code: object, stderr: Any) -> int:
    """The status a process ends with after ``SystemExit(code)`` (a message goes to
    stderr with status 1, as the interpreter does)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=stderr)
    return 1


def run_inline(script: str | Path, *args: str) -> subprocess.CompletedProcess:
    """Run ``experiments/<script>`` (or the script at that path) with ``args`` in this
    process; returns its exit status and output as a finished process."""
    path = Path(script) if Path(script).is_absolute() else EXPERIMENTS / script
    out, err = io.StringIO(), io.StringIO()
    with _argv([str(path), *args]), _script_runs_inline(), _signals_kept(), \
            redirect_stdout(out), redirect_stderr(err):
        try:
            runpy.run_path(str(path), run_name="__main__")
            code = 0
        except SystemExit as done:
            code = _exit_status(done.code, err)
    return subprocess.CompletedProcess([sys.executable, str(path), *args], code,
                                       out.getvalue(), err.getvalue())


@contextmanager
def _argv(argv: list[str]):
    saved = sys.argv
    sys.argv = argv
    try:
        yield
    finally:
        sys.argv = saved


@contextmanager
def _signals_kept():
    """Undo any signal handler a script installs."""
    if threading.current_thread() is not threading.main_thread():
        yield                    # only the main thread can set a handler
        return
    saved = signal.getsignal(signal.SIGINT)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, saved)


def _inline_run(command: Any, *args: Any, **kwargs: Any) -> subprocess.CompletedProcess:
    """``subprocess.run`` for a recipe: a command ``[python, experiments/x.py, ...]`` runs
    inline (its output printed, or captured when asked), anything else for real."""
    parts = [str(c) for c in command] if isinstance(command, (list, tuple)) else None
    if not (parts and len(parts) >= 2 and parts[0] == sys.executable
            and Path(parts[1]).parent == EXPERIMENTS):
        return _real_run(command, *args, **kwargs)
    with _lock:      # a recipe's threads run their steps one at a time
        done = run_inline(Path(parts[1]), *parts[2:])
    capture = kwargs.get("capture_output") or kwargs.get("stdout") == subprocess.PIPE
    if not capture:
        if kwargs.get("stdout") != subprocess.DEVNULL:
            sys.stdout.write(done.stdout)
        sys.stderr.write(done.stderr)
        done = subprocess.CompletedProcess(done.args, done.returncode)
    if kwargs.get("check") and done.returncode:
        raise subprocess.CalledProcessError(done.returncode, done.args, done.stdout,
                                            done.stderr)
    return done


def _inline_process(command: Any, *, stdout: Any = None) -> None:
    """:func:`uno_env.cli.run_process` for a recipe's step: inline, as :func:`_inline_run`."""
    _inline_run(command, check=True, stdout=stdout)


@contextmanager
def _script_runs_inline():
    """Recipes' steps (``subprocess.run`` and ``uno_env.cli.run_process``) run inline."""
    import uno_env.cli as cli

    saved = subprocess.run, cli.run_process
    subprocess.run, cli.run_process = _inline_run, _inline_process
    try:
        yield
    finally:
        subprocess.run, cli.run_process = saved


def environment() -> dict[str, str]:
    """The environment of a real script process: this checkout first on the path."""
    return {**os.environ, "PYTHONPATH": str(REPO)}
