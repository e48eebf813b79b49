"""Cold start: what a new install waits for before ``make run`` plays, and what the
compiled engine costs to compile on its first use.

Runs, each in a fresh process on a fresh, empty kernel cache (a temporary
``NUMBA_CACHE_DIR``, removed at the end):

1. the tournament of ``make run`` as ``make run`` plays it, on the numpy reference
   engine (``UNO_ENV_BACKEND=numpy``): no kernel compiles, so its CPU seconds are all
   a new user waits for after installing;
2. the warm-up of the compiled engine's kernel groups ``--groups`` (default: those a
   tournament of score-table agents uses, ``play seated``), what the first command on
   the compiled engine compiles;
3. the tournament on the compiled engine, on the now full cache (no compiling), for
   its speed.

It prints the CPU seconds (user + system) and wall seconds of each, and writes its
tables with the command, the commit, the date and the machine to ``--record``
(``docs/results/cold-start.json``). ``--groups`` with every group (``play seated search
playouts threads``) measures the full warm-up of ``make test``. CPU seconds hardly
depend on other work on the machine; wall seconds do.

Usage: ``python experiments/cold_start.py [--games N] [--groups GROUP ...]
[--record PATH]`` (``make cold-start``).
"""

from __future__ import annotations

from uno_env.launch import guard

guard("cold_start", __name__)

import argparse
import os
import platform
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from uno_env.cli import run_command
from uno_env.evaluation.report import PrintedTables
from uno_env.tooling.machine import backend_version, cpu_model, load_average

#: What ``make run`` plays (the Makefile's RUN_AGENTS and GAMES).
RUN_AGENTS = "tuned,defender,greedy,random_play"
RUN_GAMES = 600
#: The kernel groups a tournament of score-table agents compiles on the compiled engine.
TOURNAMENT_GROUPS = ("play", "seated")
RECORD = Path(__file__).resolve().parents[1] / "docs" / "results" / "cold-start.json"


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Run ``command`` to its end; its (CPU, wall) seconds. Its output is discarded; a
    failure raises with its error output."""
    cpu, wall = _child_cpu(), time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
    return _child_cpu() - cpu, time.perf_counter() - wall


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=RUN_GAMES,
                        help=f"games of the tournament (make run plays {RUN_GAMES})")
    parser.add_argument("--groups", nargs="+", default=list(TOURNAMENT_GROUPS),
                        help="kernel groups the compiled engine's warm-up compiles (default: "
                             "those of a tournament of score-table agents)")
    parser.add_argument("--record", type=Path, default=RECORD,
                        help="the JSON record of the tables printed, with the command, commit, "
                             "date and machine (default docs/results/cold-start.json)")
    args = parser.parse_args(argv)
    PrintedTables.check(args.record, "cold_start")
    tables = PrintedTables()
    tables.print("machine", ("item", "value"), [
        ("cpu", cpu_model()), ("cores", str(os.cpu_count())),
        ("python", platform.python_version()), ("engine", backend_version()),
        ("load average (1 min)", load_average())])
    tournament = [sys.executable, "-m", "uno_env.cli", "tournament", "--preset", "official",
                  "--players", "4", "--agents", RUN_AGENTS, "--games", str(args.games),
                  "--no-progress"]
    with tempfile.TemporaryDirectory(prefix="uno-cold-start-") as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        steps = [("make run: its tournament on the numpy engine",
                  timed(tournament, {**env, "UNO_ENV_BACKEND": "numpy"})),
                 ("compiled engine, warm-up: " + " ".join(args.groups),
                  timed([sys.executable, "-m", "uno_env.engine.compiled", *args.groups],
                        {**env, "UNO_ENV_BACKEND": "numba"})),
                 ("the tournament on the compiled engine, cache full",
                  timed(tournament, {**env, "UNO_ENV_BACKEND": "numba"}))]
    rows = [(name, f"{cpu:.1f}", f"{wall:.1f}") for name, (cpu, wall) in steps]
    tables.print(f"cold start, fresh kernel cache ({args.games} games of make run's tournament)",
                 ("step", "CPU s", "wall s"), rows)
    tables.write(args.record, shlex.join(["python", "experiments/cold_start.py", *argv]))
    print(f"wrote {args.record}")


if __name__ == "__main__":
    sys.exit(run_command(main, "cold_start"))
