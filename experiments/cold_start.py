"""Cold start: the CPU seconds a new install spends compiling before ``make run`` plays.

Runs, each in a fresh process on a fresh, empty kernel cache (a temporary
``NUMBA_CACHE_DIR``, removed at the end):

1. the warm-up of ``make run`` (``python -m uno_env.engine.compiled GROUP ...``);
2. the tournament of ``make run`` (fewer games), which compiles what the warm-up left;
3. the same tournament again on the now full cache (no compiling).

It prints the CPU seconds (user + system) and wall seconds of each, and the compile
a new user waits for: the warm-up plus what the first tournament spent beyond the
second. ``--groups`` with every group (``play seated search playouts threads``)
measures the full warm-up of ``make test``. CPU seconds hardly depend on other work
on the machine; wall seconds do.

Usage: ``python experiments/cold_start.py [--games N] [--groups GROUP ...]``
(``make cold-start``).
"""

from __future__ import annotations

from uno_env.launch import guard

guard("cold_start", __name__)

import argparse
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time

from uno_env.cli import run_command
from uno_env.evaluation.report import print_table
from uno_env.tooling.machine import backend_version, cpu_model, load_average

#: What ``make run`` plays (the Makefile's RUN_AGENTS) and warms up.
RUN_AGENTS = "tuned,defender,greedy,random_play,ismcts:budget=16"
RUN_GROUPS = ("play", "seated", "search")


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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40,
                        help="games of the tournament (make run plays 600)")
    parser.add_argument("--groups", nargs="+", default=list(RUN_GROUPS),
                        help="kernel groups the warm-up compiles (default: those of make run)")
    args = parser.parse_args(argv)
    print_table("machine", ("item", "value"), [
        ("cpu", cpu_model()), ("cores", str(os.cpu_count())),
        ("python", platform.python_version()), ("engine", backend_version()),
        ("load average (1 min)", load_average())])
    tournament = [sys.executable, "-m", "uno_env.cli", "tournament", "--preset", "official",
                  "--players", "4", "--agents", RUN_AGENTS, "--games", str(args.games),
                  "--no-progress"]
    with tempfile.TemporaryDirectory(prefix="uno-cold-start-") as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        steps = [("warm-up: " + " ".join(args.groups),
                  timed([sys.executable, "-m", "uno_env.engine.compiled", *args.groups], env)),
                 ("tournament, first", timed(tournament, env)),
                 ("tournament, cache full", timed(tournament, env))]
    compile_cpu = steps[0][1][0] + max(steps[1][1][0] - steps[2][1][0], 0.0)
    compile_wall = steps[0][1][1] + max(steps[1][1][1] - steps[2][1][1], 0.0)
    rows = [(name, f"{cpu:.1f}", f"{wall:.1f}") for name, (cpu, wall) in steps]
    rows.append(("compile before make run plays", f"{compile_cpu:.1f}", f"{compile_wall:.1f}"))
    print_table(f"cold start, fresh kernel cache ({args.games} games of make run's tournament)",
                ("step", "CPU s", "wall s"), rows)


if __name__ == "__main__":
    sys.exit(run_command(main, "cold_start"))
