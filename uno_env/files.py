"""Result files written safely: checked before a run, written whole at its end.

A run that takes hours must not lose its results to a bad path at the end, nor leave a
half-written file when it fails or is stopped while writing: :func:`check_output` tests
an output path before anything is played, :func:`write_atomic` writes to a temporary
name and renames it over the file. Reports, records, pages and checkpoints are all
written this way.
"""

from __future__ import annotations

import os
import secrets
import threading
from pathlib import Path


def write_atomic(path: str | os.PathLike, text: str | bytes) -> None:
    """Write ``text`` to ``path`` atomically (a temporary file renamed over it; the
    temporary file is removed if the write or the rename fails). Each write has a
    temporary file of its own (process, thread and a random part in its name, created
    exclusively), so writers of one file never collide: the file ends whole, as one of
    them wrote it."""
    path = Path(path)
    tag = f"{os.getpid()}.{threading.get_ident()}.{secrets.token_hex(4)}"
    tmp = path.with_name(f".{path.name}.{tag}.tmp")
    try:
        data = text if isinstance(text, bytes) else text.encode("utf-8")
        with tmp.open("xb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def check_output(path: str | os.PathLike, option: str) -> None:
    """Raise ``ValueError`` naming ``option`` if a report could not be written to ``path``:
    it is a folder, or its folder is missing or not writable."""
    target = Path(path)
    folder = target.parent
    if target.is_dir():
        raise ValueError(f"{option} {str(path)!r} is a folder, not a file")
    if not folder.is_dir():
        raise ValueError(f"{option} {str(path)!r}: the folder {str(folder)!r} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK) or (target.exists()
                                                   and not os.access(target, os.W_OK)):
        raise ValueError(f"{option} {str(path)!r} is not writable")
