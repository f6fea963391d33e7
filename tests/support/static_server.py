"""``python -m http.server`` in a thread: a real web server (not a model API) on 127.0.0.1.

Pointing ``--base-url`` at a web server is an easy mistake; this is the standard library's own
file server, which answers every POST with its HTML error page
(``501 Unsupported method ('POST')``, ``<title>Error response</title>``).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


@contextmanager
def static_server(root: Path) -> Iterator[str]:
    """Serve ``root``; yields the base URL (``http://127.0.0.1:PORT/v1``)."""
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *args: None  # type: ignore[attr-defined]
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
