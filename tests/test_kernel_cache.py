"""The compiled kernels' disk cache: damaged files, read-only installs, stale sources.

The rules are in ``uno_env/engine/compiled/cache.py``. The unit tests work on fake
cache files; the end-to-end ones run fresh Python processes that compile one small
kernel (``mix64``) into a temporary cache, as a user's processes would.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

pytest.importorskip("numba")

from uno_env.engine.compiled.cache import (
    MANIFEST,
    PREFIX,
    KernelCache,
    KernelCacheWarning,
    open_cache,
)

REPO = Path(__file__).resolve().parents[1]


def fill(directory: Path, names: list[str]) -> dict[str, Path]:
    files = {}
    for name in names:
        path = directory / "sub" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(name.encode() * 100)
        files[name] = path
    return files


def recorded(directory: Path, names: list[str]) -> dict[str, Path]:
    """Cache files the manifest vouches for."""
    files = fill(directory, names)
    KernelCache(directory).record()
    return files


def open_quietly(digest: str, roots: list[Path], package: Path) -> tuple[KernelCache, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cache = open_cache(digest, roots, package)
    return cache, [str(w.message) for w in caught if w.category is KernelCacheWarning]


# --- validation --------------------------------------------------------------------------


def test_files_the_manifest_vouches_for_are_kept(tmp_path):
    files = recorded(tmp_path, ["a.nbi", "a.1.nbc"])
    assert KernelCache(tmp_path).validate() == (2, 0)
    assert all(path.exists() for path in files.values())


@pytest.mark.parametrize("damage", ["truncate", "garbage", "flip", "empty"])
@pytest.mark.parametrize("victim", ["a.nbi", "a.1.nbc"])
def test_a_damaged_file_is_deleted_before_numba_reads_it(tmp_path, damage, victim):
    files = recorded(tmp_path, ["a.nbi", "a.1.nbc", "b.nbi"])
    data = files[victim].read_bytes()
    files[victim].write_bytes({"truncate": data[: len(data) // 2], "garbage": b"\x80junk",
                               "flip": data[:50] + bytes([data[50] ^ 1]) + data[51:],
                               "empty": b""}[damage])
    assert KernelCache(tmp_path).validate() == (2, 1)
    assert not files[victim].exists()
    assert all(path.exists() for name, path in files.items() if name != victim)


@pytest.mark.parametrize("manifest", [None, "{not json", "[1, 2]", '{"sub/a.nbi": 3}'])
def test_without_a_sound_manifest_no_file_is_trusted(tmp_path, manifest):
    files = fill(tmp_path, ["a.nbi", "a.1.nbc"])
    if manifest is not None:
        (tmp_path / MANIFEST).write_text(manifest)
    assert KernelCache(tmp_path).validate() == (0, 2)
    assert not any(path.exists() for path in files.values())


def test_the_manifest_follows_new_and_replaced_files(tmp_path):
    files = recorded(tmp_path, ["a.nbi"])
    cache = KernelCache(tmp_path)
    cache.validate()
    files["a.nbi"].write_bytes(b"recompiled")
    fill(tmp_path, ["b.nbi"])
    cache.record()
    listed = json.loads((tmp_path / MANIFEST).read_text())
    assert set(listed) == {"sub/a.nbi", "sub/b.nbi"}
    assert KernelCache(tmp_path).validate() == (2, 0)


# --- locations ---------------------------------------------------------------------------


def blocked(tmp_path: Path, name: str) -> Path:
    """A location nobody can write, not even root: a path under a file."""
    (tmp_path / name).write_text("a file in the way")
    return tmp_path / name / "cache"


def test_each_source_version_gets_its_own_directory_in_every_location(tmp_path):
    env_dir, package, user_wide = tmp_path / "env", tmp_path / "package", tmp_path / "user"
    for roots in ([env_dir, package, user_wide], [package, user_wide], [user_wide]):
        old, _ = open_quietly("a" * 64, roots, package)
        new, _ = open_quietly("b" * 64, roots, package)
        assert old.directory.parent == new.directory.parent == roots[0]
        assert old.directory.name == PREFIX + "a" * 16
        assert new.directory.name == PREFIX + "b" * 16


def test_unwritable_locations_are_skipped(tmp_path):
    user_wide = tmp_path / "user"
    cache, _ = open_quietly("c" * 64, [blocked(tmp_path, "env"), blocked(tmp_path, "pkg"),
                                       user_wide], tmp_path / "pkg")
    assert cache.directory.parent == user_wide and not cache.temporary


def test_the_package_cache_keeps_only_the_current_sources(tmp_path):
    package = tmp_path / "__pycache__"
    old, _ = open_quietly("a" * 64, [package], package)
    fill(old.directory, ["x.nbi"])
    (package / "kernels.f-1.py311.nbi").write_text("former layout")
    new, _ = open_quietly("b" * 64, [package], package)
    assert sorted(p.name for p in package.iterdir()) == [new.directory.name]


def test_one_warning_before_a_compile_and_none_after(tmp_path):
    root = tmp_path / "cache"
    cache, messages = open_quietly("d" * 64, [root], root)
    assert len(messages) == 1 and "compiling the engine kernels" in messages[0]
    assert "minutes" in messages[0]
    fill(cache.directory, ["a.nbi"])
    cache.record()
    assert open_quietly("d" * 64, [root], root)[1] == []
    (cache.directory / "sub" / "a.nbi").write_bytes(b"damaged")
    _, messages = open_quietly("d" * 64, [root], root)
    assert len(messages) == 1 and "dropped 1 damaged" in messages[0]


def test_no_writable_location_compiles_into_a_temporary_directory(tmp_path):
    roots = [blocked(tmp_path, "env"), blocked(tmp_path, "pkg")]
    cache, messages = open_quietly("e" * 64, roots, roots[1])
    assert cache.temporary and cache.directory.is_dir()
    assert len(messages) == 1 and "no writable cache location" in messages[0]
    cache.record()  # nothing to vouch for: every process compiles anyway
    assert not (cache.directory / MANIFEST).exists()
    shutil.rmtree(cache.directory)


# --- real processes ----------------------------------------------------------------------

MIX64 = ("import numpy as np\n"
         "from uno_env.engine.compiled.deal import mix64\n"
         "from uno_env.engine import rng\n"
         "x = np.uint64(12345)\n"
         "assert mix64(x) == rng.mix64(np.array([x]))[0], 'compiled and numpy differ'\n"
         "print(int(mix64(x)))\n")


def run(code: str, env: dict[str, str], path: Path = REPO) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    full.update(PYTHONPATH=str(path), PYTHONDONTWRITEBYTECODE="1", **env)
    return subprocess.run([sys.executable, "-c", code], env=full, cwd=path,
                          capture_output=True, text=True, timeout=600)


def cache_warnings(result: subprocess.CompletedProcess) -> list[str]:
    return [line for line in result.stderr.splitlines() if "KernelCacheWarning" in line]


def test_a_damaged_cache_is_dropped_and_compiled_again(tmp_path):
    env = {"NUMBA_CACHE_DIR": str(tmp_path)}
    first = run(MIX64, env)
    assert first.returncode == 0, first.stderr
    files = sorted(tmp_path.rglob("*.nb[ic]"))
    assert {f.suffix for f in files} == {".nbi", ".nbc"}
    for path in files:  # a truncated index, object code with a flipped byte in its middle
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 3] if path.suffix == ".nbi" else
                         data[: len(data) // 2] + bytes([data[len(data) // 2] ^ 0xFF])
                         + data[len(data) // 2 + 1:])
    second = run(MIX64, env)
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout
    messages = cache_warnings(second)
    assert len(messages) == 1 and "dropped" in messages[0], second.stderr


def copy_package(tmp_path: Path) -> Path:
    root = tmp_path / "install"
    shutil.copytree(REPO / "uno_env", root / "uno_env",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return root


def test_a_read_only_install_compiles_without_a_cache(tmp_path):
    root = copy_package(tmp_path)
    (root / "uno_env" / "engine" / "compiled" / "__pycache__").write_text("read-only")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {"NUMBA_CACHE_DIR": str(blocked(tmp_path, "env")),
           "XDG_CACHE_HOME": str(blocked(tmp_path, "home")), "TMPDIR": str(scratch)}
    result = run(MIX64, env, root)
    assert result.returncode == 0, result.stderr
    messages = cache_warnings(result)
    assert len(messages) == 1 and "no writable cache location" in messages[0], result.stderr
    assert list(scratch.iterdir()) == []  # the temporary cache is gone


def test_a_changed_engine_constant_is_picked_up_with_numba_cache_dir(tmp_path):
    """``mix64`` lives in ``compiled/deal.py`` but reads its constants from ``rng.py``:
    numba alone would load the old code from its cache."""
    root = copy_package(tmp_path)
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    before = run(MIX64, env, root)
    assert before.returncode == 0, before.stderr
    rng = root / "uno_env" / "engine" / "rng.py"
    source = rng.read_text()
    assert "0xBF58476D1CE4E5B9" in source
    rng.write_text(source.replace("0xBF58476D1CE4E5B9", "0xBF58476D1CE4E5B7"))
    after = run(MIX64, env, root)  # asserts compiled == numpy under the new constant
    assert after.returncode == 0, after.stderr
    assert after.stdout != before.stdout
    assert len(cache_warnings(after)) == 1  # a new source version: the compile is announced


# --- several processes -------------------------------------------------------------------

#: ``MIX64``, then how many of its signatures this process compiled (0: loaded from cache).
MIX64_MISSES = MIX64 + "print('misses', sum(mix64.stats.cache_misses.values()))\n"


def start(code: str, env: dict[str, str], wait_for: str) -> subprocess.Popen:
    """Start ``code`` in a fresh Python process and wait until it prints ``wait_for``."""
    full = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    full.update(PYTHONPATH=str(REPO), PYTHONDONTWRITEBYTECODE="1", **env)
    proc = subprocess.Popen([sys.executable, "-c", code], env=full, cwd=REPO, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    for line in proc.stdout:
        if line.strip() == wait_for:
            return proc
    proc.wait()
    raise AssertionError(f"the process ended before {wait_for!r}: {proc.stderr.read()}")


def test_a_process_started_while_another_runs_keeps_its_fresh_files(tmp_path):
    """The first process compiled and is still running: the second one must neither drop
    its files as unverified nor compile them again."""
    env = {"NUMBA_CACHE_DIR": str(tmp_path)}
    first = start(MIX64 + "print('compiled', flush=True)\nimport time\ntime.sleep(60)\n", env,
                  "compiled")
    try:
        second = run(MIX64_MISSES, env)
    finally:
        first.kill()
        first.wait()
    assert second.returncode == 0, second.stderr
    assert cache_warnings(second) == [], second.stderr
    assert second.stdout.split()[-2:] == ["misses", "0"]


def test_one_process_compiles_while_the_others_wait(tmp_path):
    """While one process holds the cache (compiling), another waits, says so, and then
    loads what the first compiled instead of compiling it too."""
    env = {"NUMBA_CACHE_DIR": str(tmp_path)}
    holder = ("import time\nfrom uno_env.engine.compiled import CACHE\n"
              "with CACHE.locked():\n    print('holding', flush=True)\n    time.sleep(7)\n"
              + "".join(f"    {line}\n" for line in MIX64.splitlines()))
    first = start(holder, env, "holding")
    second = run(MIX64_MISSES, env)
    first.wait(timeout=600)
    assert first.returncode == 0, first.stderr.read()
    assert second.returncode == 0, second.stderr
    messages = cache_warnings(second)
    assert len(messages) == 1 and "waiting for another process" in messages[0], second.stderr
    assert second.stdout.split()[-2:] == ["misses", "0"]


def test_a_cache_directory_removed_meanwhile_is_made_again(tmp_path):
    """Another version's process may prune the directory of a running one."""
    root = tmp_path / "cache"
    cache, _ = open_quietly("f" * 64, [root], root)
    shutil.rmtree(cache.directory)
    with cache.locked():
        fill(cache.directory, ["a.nbi"])
    cache.record()
    assert KernelCache(cache.directory).validate() == (1, 0)


def test_pruning_spares_a_cache_another_process_is_compiling_into(tmp_path):
    from filelock import FileLock

    package = tmp_path / "__pycache__"
    busy, idle = package / (PREFIX + "a" * 16), package / (PREFIX + "b" * 16)
    for directory in (busy, idle):
        fill(directory, ["x.nbi"])
    with FileLock(busy / "compile.lock"):      # another open file: as another process
        new, _ = open_quietly("c" * 64, [package], package)
    assert sorted(p.name for p in package.iterdir()) == sorted([busy.name, new.directory.name])
    assert not idle.exists()


def _lock_in_child(cache: KernelCache, out: str) -> None:
    with cache.locked():
        Path(out).write_text("locked")


def test_a_forked_worker_takes_the_lock_with_a_lock_of_its_own(tmp_path):
    """A pool forked from a process that already used the cache (a script's --jobs) may
    compile in its workers: each takes the lock through its own lock object."""
    import multiprocessing

    root = tmp_path / "cache"
    cache, _ = open_quietly("e" * 64, [root], root)
    with cache.locked():
        pass
    child = multiprocessing.get_context("fork").Process(
        target=_lock_in_child, args=(cache, str(tmp_path / "out")))
    child.start()
    child.join(60)
    assert child.exitcode == 0 and (tmp_path / "out").read_text() == "locked"
