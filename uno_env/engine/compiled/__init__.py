"""The compiled backend: the engine's rules, one game at a time, compiled with numba.

Each module is the per-game twin of the numpy module of the same name in
``uno_env.engine``: the same functions, in the same order, drawing the same random
numbers, so both backends play identical games from the same seed (the test
suite checks this state by state for every preset). The numpy engine stays the
reference and needs nothing but numpy; this backend is used when numba is
installed (the ``fast`` extra), and makes a decision cost microseconds instead of
the fixed overhead of ~150 small numpy operations.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

_HERE = Path(__file__).parent
#: The modules outside the engine whose tables the kernels read.
_TABLES = ("cards", "actions", "rules")
#: The engine's modules the kernels never read (the Engine class calls them).
_NOT_READ = ("core.py", "__main__.py")


def _drop_stale_cache() -> None:
    """Empty numba's cache here when any source of the engine changed.

    numba checks a cached function against its own file only, so a kernel would
    keep the old code of a function it calls from another file, or the old value
    of a table it reads from the cards or the rules.
    """
    digest = hashlib.sha256()
    package = _HERE.parent.parent
    sources = [*(path for path in _HERE.parent.rglob("*.py") if path.name not in _NOT_READ),
               *(package / f"{name}.py" for name in _TABLES)]
    for source in sorted(sources):
        digest.update(source.read_bytes())
    cache = _HERE / "__pycache__"
    stamp = cache / "sources.sha256"
    try:
        if stamp.exists() and stamp.read_text() == digest.hexdigest():
            return
        for cached in (*cache.glob("*.nbi"), *cache.glob("*.nbc")):
            cached.unlink()
        cache.mkdir(exist_ok=True)
        stamp.write_text(digest.hexdigest())
    except OSError:  # a read-only install: numba caches elsewhere
        pass


_drop_stale_cache()

from .kernels import NumbaBackend  # noqa: E402

__all__ = ["NumbaBackend"]
