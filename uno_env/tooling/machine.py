"""What a measurement ran on: the CPU, the engine's backend and the load at the time.

Benchmarks and result pages record these beside every number, because the same code
measures differently on another machine or under other work.
"""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

from ..engine.core import default_backend


def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo (Linux), else what platform reports."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def backend_version() -> str:
    """The engine's default backend, with numba's version when that is the one."""
    backend = default_backend()
    if backend == "numba":
        import numba

        return f"numba {numba.__version__}"
    return backend


def load_average() -> str:
    """The 1-minute load average: other work on the machine lowers every number."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except OSError:
        return "n/a"


def cores() -> int:
    """CPU cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)


def revision() -> str | None:
    """The git commit the code ran at, with ``+changes`` when any Python file of the
    checkout (the library, the agents, the experiments) differs from it (None outside a
    git checkout)."""
    root = Path(__file__).resolve().parents[2]
    try:
        done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=10, cwd=root)
        changed = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", "*.py"],
                                 capture_output=True, timeout=10, cwd=root).returncode
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0 or not done.stdout.strip():
        return None
    return done.stdout.strip() + ("+changes" if changed == 1 else "")


def machine() -> dict[str, Any]:
    """The CPU, its cores, the engine's backend and the load now."""
    return {"cpu": cpu_model(), "cores": cores(), "backend": backend_version(),
            "load": load_average()}


def provenance(command: str, deals: dict[str, Any] | None = None) -> dict[str, Any]:
    """What every result record carries beside its numbers: the exact ``command``, the
    code's commit, the date, the machine and (``deals``, from
    :func:`uno_env.deals.describe`) the deal namespace the numbers were measured on."""
    out: dict[str, Any] = {"command": command, "commit": revision(),
                           "date": datetime.date.today().isoformat(), "machine": machine()}
    if deals is not None:
        out["deals"] = deals
    return out
