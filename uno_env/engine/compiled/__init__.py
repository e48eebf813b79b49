"""The compiled backend: the engine's rules, one game at a time, compiled with numba.

Each module is the per-game twin of the numpy module of the same name in
``uno_env.engine``: the same functions, in the same order, drawing the same random
numbers, so both backends play identical games from the same seed (the test
suite checks this state by state for every preset). The numpy engine stays the
reference and needs nothing but numpy; this backend is used when numba is
installed (the ``fast`` extra), and makes a decision cost microseconds instead of
the fixed overhead of ~150 small numpy operations.

The compiled code is cached on disk by the rules of :mod:`.cache`: one directory
per version of the sources, files checked before numba reads them, one process
compiling a kernel while the others wait. Importing this package imports every
kernel module, so that each is decorated while that cache is in use (and its
functions compile under the cache's lock, each once for plain argument types:
:mod:`.signatures`). Nothing compiles at import: each kernel compiles (or loads
from the cache) on its first call, with the functions it calls, so a command
compiles only the kernels it uses.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

from .cache import default_roots, open_cache, source_digest
from .signatures import plain_module

_HERE = Path(__file__).parent
_PACKAGE = _HERE.parent.parent
#: The modules outside the engine whose tables the kernels read.
_TABLES = ("cards", "actions", "rules")
#: The engine's modules the kernels never read (the Engine class calls them).
_NOT_READ = ("core.py", "__main__.py", "cache.py")
#: The modules of this package that hold no kernels.
_NOT_KERNELS = ("__main__", "backend", "cache", "signatures")


def _sources() -> list[Path]:
    """Every source the compiled code depends on, in a fixed order."""
    return sorted([*(path for path in _HERE.parent.rglob("*.py") if path.name not in _NOT_READ),
                   *(_PACKAGE / f"{name}.py" for name in _TABLES)])


CACHE = open_cache(source_digest(_sources()), default_roots(_HERE / "__pycache__"),
                   _HERE / "__pycache__")

with CACHE.in_use():
    for _module in pkgutil.iter_modules([str(_HERE)]):
        if _module.name not in _NOT_KERNELS:
            _kernels = importlib.import_module(f"{__name__}.{_module.name}")
            CACHE.guard_module(_kernels)
            plain_module(_kernels)

from .backend import NumbaBackend  # noqa: E402

__all__ = ["CACHE", "NumbaBackend"]
