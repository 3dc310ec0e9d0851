"""Fakes of the network between the client and the service (never of the service itself)."""

from __future__ import annotations

import contextlib
import socket
import threading
from urllib.parse import urlsplit


class LossyProxy:
    """A TCP proxy to the real service that loses the answer of its first `drops` connections.

    The request is forwarded whole and the service acts on it; its answer is read, thrown away, and the client's
    connection closed: to the client it is a connection lost after sending, as when a network drops mid-call.
    """

    def __init__(self, upstream_url: str, drops: int = 1) -> None:
        parts = urlsplit(upstream_url)
        self._upstream = (parts.hostname or "127.0.0.1", parts.port or 80)
        self._drops_left = drops
        self._lock = threading.Lock()
        self.connections = 0
        self.answers_lost = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            with self._lock:
                self.connections += 1
                drop = self._drops_left > 0
                self._drops_left -= 1 if drop else 0
            threading.Thread(target=self._serve, args=(client, drop), daemon=True).start()

    def _serve(self, client: socket.socket, drop: bool) -> None:
        upstream = socket.create_connection(self._upstream)
        threading.Thread(target=_pipe, args=(client, upstream), daemon=True).start()
        if drop:
            # Wait for the service's answer, so the request has certainly been acted on, then lose it.
            if upstream.recv(65536):
                with self._lock:
                    self.answers_lost += 1
            _close(client)
            _close(upstream)
            return
        _pipe(upstream, client)

    def close(self) -> None:
        self._listener.close()


class SilentServer:
    """Accepts connections and reads requests, but never answers: a service or network stuck mid-call."""

    def __init__(self) -> None:
        self.connections = 0
        self._held: list[socket.socket] = []
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            self.connections += 1
            self._held.append(client)

    def close(self) -> None:
        self._listener.close()
        for held in self._held:
            _close(held)


def closed_port_url() -> str:
    """An address nothing listens on: a connection to it is refused before anything is sent."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def _pipe(source: socket.socket, target: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            target.sendall(data)
    except OSError:
        pass
    finally:
        _close(target)


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    sock.close()
