"""``uno-env serve``: the page and its API on a local address, by uvicorn."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path

HOST = "127.0.0.1"


def bind(port: int, host: str = HOST) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: a free one), made before the server
    starts so that its address can be printed and handed on."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as err:
        sock.close()
        raise OSError(f"cannot listen on {host}:{port} ({err.strerror}); choose another "
                      "--port") from None
    sock.listen(128)
    return sock


def serve(records: str | Path, port: int = 8765,
          say: Callable[[str], None] = print) -> None:
    """Serve the page until interrupted, on 127.0.0.1 only (the page plays and reads
    records; it is not meant for a network)."""
    try:
        import uvicorn

        from .app import create_app
    except ImportError as err:
        raise ImportError(f"uno-env serve needs the web extra: pip install 'uno-env[web]' "
                          f"({err})") from None
    app = create_app(records)
    sock = bind(port)
    address = f"http://{HOST}:{sock.getsockname()[1]}"
    say(f"uno-env serve: open {address} (records in {Path(records).resolve()}); "
        "Ctrl-C stops it")
    # log_config=None: uvicorn leaves the process's logging as it is (no handlers bound
    # to the streams of the moment, which a caller such as a test may close later)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", log_config=None))
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
