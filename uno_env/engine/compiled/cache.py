"""Where the compiled kernels are cached, and keeping that cache sound.

numba caches each compiled function on disk and trusts what it finds there: it
checks a function against its own source file only (not the modules it calls or
the tables it reads), and a damaged file makes loading fail, for a corrupted
object file by an abort of the whole process that no ``except`` can catch. So the
kernels' cache follows three rules of its own:

* **One directory per version of the engine's sources** (their digest is in its
  name), in the first writable of ``$NUMBA_CACHE_DIR``, the package's
  ``__pycache__`` and numba's user-wide cache directory: whichever location numba
  would use, a changed source finds an empty cache there.
* **Files are checked before numba reads them**: a manifest lists the checksum of
  every cache file, rewritten when a process that added files exits; at import,
  a file missing from it or differing from it is deleted, and the kernels it held
  compile again. (A process that ends without exit handlers, ``os._exit`` as in
  multiprocessing children, lists nothing: files only it compiled are compiled
  again by the next process. ``python -m uno_env.engine.compiled`` lists all.)
* **No writable location** (a read-only install): the kernels compile into a
  temporary directory removed at exit, so every process compiles them.

Every case that makes the next engine compile says so once, before compiling,
as a :class:`KernelCacheWarning`.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import shutil
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from numba.core import config
from numba.misc.appdirs import AppDirs

#: Name of a cache directory: this prefix and the first digits of the sources' digest.
PREFIX = "uno_env-kernels-"
MANIFEST = "manifest.json"
#: What a full compile costs on a 2-core machine (``python -m uno_env.engine.compiled``).
COMPILE_TIME = "about 1-2 minutes"
_SUFFIXES = (".nbi", ".nbc")


class KernelCacheWarning(UserWarning):
    """The engine kernels are about to be compiled (and why)."""


def source_digest(sources: list[Path]) -> str:
    """The sha256 of the given files' contents, in the order given."""
    digest = hashlib.sha256()
    for source in sources:
        digest.update(source.read_bytes())
    return digest.hexdigest()


def default_roots(package_cache: Path) -> list[Path]:
    """Where numba would cache, in its order: ``$NUMBA_CACHE_DIR`` (if set), the
    package's ``__pycache__``, the user-wide cache."""
    user_wide = Path(AppDirs(appname="numba", appauthor=False).user_cache_dir)
    return [*([Path(config.CACHE_DIR)] if config.CACHE_DIR else []), package_cache, user_wide]


def _writable(directory: Path) -> bool:
    try:
        directory.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=directory).close()
    except OSError:
        return False
    return True


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class KernelCache:
    """One cache directory of numba files and its manifest of checksums."""

    def __init__(self, directory: Path, temporary: bool = False) -> None:
        self.directory = directory
        self.temporary = temporary
        # what the manifest says, as (size, mtime_ns, sha256) of each verified file
        self._known: dict[str, tuple[int, int, str]] = {}

    def _files(self) -> dict[str, Path]:
        return {path.relative_to(self.directory).as_posix(): path
                for path in self.directory.rglob("*") if path.suffix in _SUFFIXES}

    def _manifest(self) -> dict[str, str]:
        try:
            listed = json.loads((self.directory / MANIFEST).read_text())
        except (OSError, ValueError):
            return {}
        if not isinstance(listed, dict):
            return {}
        return {name: sha for name, sha in listed.items() if isinstance(sha, str)}

    def validate(self) -> tuple[int, int]:
        """Delete every cache file the manifest does not vouch for.

        Returns ``(kept, dropped)`` file counts.
        """
        listed = self._manifest()
        dropped = 0
        for name, path in self._files().items():
            try:
                stat = path.stat()
                sha = _sha256(path)
                if listed.get(name) == sha:
                    self._known[name] = (stat.st_size, stat.st_mtime_ns, sha)
                    continue
                path.unlink()
            except FileNotFoundError:
                continue
            dropped += 1
        return len(self._known), dropped

    def record(self) -> None:
        """Rewrite the manifest if files were added or replaced since it was read.

        Only files numba wrote whole (it replaces them atomically) are on disk,
        so what is there now is what the manifest vouches for.
        """
        if self.temporary:
            return
        current: dict[str, tuple[int, int, str]] = {}
        try:
            for name, path in self._files().items():
                stat = path.stat()
                known = self._known.get(name)
                if known is not None and known[:2] == (stat.st_size, stat.st_mtime_ns):
                    current[name] = known
                else:
                    current[name] = (stat.st_size, stat.st_mtime_ns, _sha256(path))
            if current == self._known:
                return
            scratch = self.directory / f"{MANIFEST}.{os.getpid()}"
            scratch.write_text(json.dumps({name: v[2] for name, v in sorted(current.items())},
                                          indent=0))
            scratch.replace(self.directory / MANIFEST)
        except OSError:  # a file went away meanwhile, or the disk is full: record later
            return
        self._known = current

    @contextmanager
    def in_use(self) -> Iterator[None]:
        """numba's functions decorated inside this block cache here.

        numba picks a function's cache location when it is decorated, with
        ``NUMBA_CACHE_DIR`` first: that setting is pointed here for the block only,
        so the user's own numba code keeps its location.
        """
        before = config.CACHE_DIR
        config.CACHE_DIR = str(self.directory)
        try:
            yield
        finally:
            config.CACHE_DIR = before


def _prune(root: Path, keep: Path) -> None:
    """Remove the caches of other source versions from the package's own ``__pycache__``,
    and the loose files of the former layout."""
    for old in root.glob(f"{PREFIX}*"):
        if old != keep:
            shutil.rmtree(old, ignore_errors=True)
    for loose in (*root.glob("*.nbi"), *root.glob("*.nbc"), root / "sources.sha256"):
        loose.unlink(missing_ok=True)


def open_cache(digest: str, roots: list[Path], package_cache: Path) -> KernelCache:
    """The cache of the sources ``digest`` in the first writable of ``roots``, validated.

    Warns once (:class:`KernelCacheWarning`) when the kernels will compile: no
    cache yet, damaged files dropped, or no writable location at all.
    """
    name = PREFIX + digest[:16]
    chosen = next((root / name for root in roots if _writable(root / name)), None)
    if chosen is None:
        cache = KernelCache(Path(tempfile.mkdtemp(prefix=PREFIX)), temporary=True)
        atexit.register(shutil.rmtree, cache.directory, True)
        tried = ", ".join(str(root) for root in roots)
        _warn(f"no writable cache location ({tried}): compiling the engine kernels without "
              f"a cache, in every process ({COMPILE_TIME}); set NUMBA_CACHE_DIR to a writable "
              "directory to keep them")
        return cache
    if chosen.parent == package_cache:
        _prune(package_cache, chosen)
    cache = KernelCache(chosen)
    kept, dropped = cache.validate()
    if dropped:
        _warn(f"dropped {dropped} damaged or unverified files of the compiled-kernel cache "
              f"in {chosen}; compiling them again ({COMPILE_TIME} at most)")
    elif not kept:
        _warn(f"compiling the engine kernels with numba into {chosen}, once per install "
              f"and engine version ({COMPILE_TIME}); `python -m uno_env.engine.compiled` "
              "does it ahead of time")
    atexit.register(cache.record)
    return cache


def _warn(message: str) -> None:
    warnings.warn(f"uno_env: {message}", KernelCacheWarning, stacklevel=3)
