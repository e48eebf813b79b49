"""What a measurement ran on: the CPU, the engine's backend and the load at the time.

Benchmarks and result pages record these beside every number, because the same code
measures differently on another machine or under other work.
"""

from __future__ import annotations

import os
import platform

from .engine.core import default_backend


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
