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
  every cache file, rewritten as soon as a kernel has been compiled and saved; at
  import, a file missing from it or differing from it is deleted, and the kernels
  it held compile again.
* **One process compiles, the others wait**: compiling a kernel (and saving and
  listing its files), checking the files at import and rewriting the manifest all
  happen under one file lock per cache directory (``compile.lock``, with
  ``filelock``). A process that needs a kernel another process is compiling waits
  for it, then loads it from the cache instead of compiling it again; a process
  that starts meanwhile checks the files only once they are written and listed,
  so it never deletes another's fresh files. (A process killed between saving a
  kernel and listing it leaves an unlisted file: the next process compiles that
  kernel again.)
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
from types import ModuleType
from typing import Any

from filelock import FileLock, Timeout
from numba.core import config
from numba.core.caching import FunctionCache
from numba.core.dispatcher import Dispatcher
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


#: Name of the lock file in a cache directory.
LOCK = "compile.lock"
#: Seconds a process waits for the lock before saying that it waits.
PATIENCE = 3.0


class KernelCache:
    """One cache directory of numba files, its manifest of checksums and its lock."""

    def __init__(self, directory: Path, temporary: bool = False) -> None:
        self.directory = directory
        self.temporary = temporary
        # what the manifest says, as (size, mtime_ns, sha256) of each verified file
        self._known: dict[str, tuple[int, int, str]] = {}
        self._lock: FileLock | None = None
        self._lock_pid = -1

    @property
    def lock(self) -> FileLock:
        """Held while compiling, checking files or listing them (reentrant in a process).
        A process forked from another (a pool of workers) makes its own: a lock object
        cannot cross a fork."""
        if self._lock is None or self._lock_pid != os.getpid():
            self._lock = FileLock(self.directory / LOCK, thread_local=False,
                                  preserve_lock_file=True)
            self._lock_pid = os.getpid()
        return self._lock

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the cache's lock, saying once (a :class:`KernelCacheWarning`) if another
        process holds it for more than :data:`PATIENCE` seconds. A directory removed
        meanwhile (another version's process pruned it) is made again, as numba does
        before saving."""
        self.directory.mkdir(parents=True, exist_ok=True)
        try:
            self.lock.acquire(timeout=PATIENCE)
        except Timeout:
            _warn(f"waiting for another process that holds the engine kernels' cache in "
                  f"{self.directory} (compiling them, or loading them on a busy machine)",
                  stacklevel=5)
            self.lock.acquire()
        try:
            yield
        finally:
            self.lock.release()

    def guard(self, dispatcher: Any) -> None:
        """Make a numba function compile under the lock and list its new files at once.

        Its ``compile`` (called on the first use of each signature, to load the kernel
        from the cache or else compile and save it) runs holding :meth:`locked`, so a
        kernel another process is compiling is loaded once that process has saved it;
        the manifest is rewritten after every compile that missed the cache."""
        compile_ = dispatcher.compile

        def compile_locked(sig: Any) -> Any:
            misses = sum(dispatcher._cache_misses.values())
            with self.locked():
                entry = compile_(sig)
                if sum(dispatcher._cache_misses.values()) != misses:
                    self.record()
            return entry

        dispatcher.compile = compile_locked

    def guard_module(self, module: ModuleType) -> None:
        """:meth:`guard` every disk-cached numba function defined in ``module`` (those it
        imports are guarded with their own module)."""
        if self.temporary:
            return
        for value in vars(module).values():
            if (isinstance(value, Dispatcher) and value.py_func.__module__ == module.__name__
                    and isinstance(getattr(value, "_cache", None), FunctionCache)):
                self.guard(value)

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
        """Rewrite the manifest (under the lock) if files were added or replaced since it
        was read.

        Only files numba wrote whole (it replaces them atomically) are on disk,
        so what is there now is what the manifest vouches for.
        """
        if self.temporary:
            return
        with self.locked():
            self._record()

    def record_if_free(self) -> None:
        """:meth:`record`, unless another process holds the lock (at exit: every kernel
        this process compiled is listed already, and no exit should wait for another
        process's compile)."""
        if self.temporary:
            return
        try:
            self.lock.acquire(timeout=0)
        except Timeout:
            return
        try:
            self._record()
        finally:
            self.lock.release()

    def _record(self) -> None:
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
    """Remove the caches of other source versions from the package's own ``__pycache__``
    (but not one a process is compiling into: its lock is held), and the loose files of
    the former layout."""
    for old in root.glob(f"{PREFIX}*"):
        if old == keep:
            continue
        lock = FileLock(old / LOCK, thread_local=False, preserve_lock_file=True)
        try:
            lock.acquire(timeout=0)
        except (Timeout, OSError):
            continue
        try:
            shutil.rmtree(old, ignore_errors=True)
        finally:
            lock.release()
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
    with cache.locked():   # no other process is writing or listing files meanwhile
        kept, dropped = cache.validate()
    if dropped:
        _warn(f"dropped {dropped} damaged or unverified files of the compiled-kernel cache "
              f"in {chosen}; compiling them again ({COMPILE_TIME} at most)")
    elif not kept:
        _warn(f"compiling the engine kernels with numba into {chosen}, once per install "
              f"and engine version ({COMPILE_TIME}); `python -m uno_env.engine.compiled` "
              "does it ahead of time")
    atexit.register(cache.record_if_free)
    return cache


def _warn(message: str, stacklevel: int = 3) -> None:
    warnings.warn(f"uno_env: {message}", KernelCacheWarning, stacklevel=stacklevel)
