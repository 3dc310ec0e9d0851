"""A TCP proxy in front of the real service that holds each connection for `delay` seconds before passing it on:
a service, or a network to it, slower than the start's budget."""

from __future__ import annotations

import socket
import threading
import time
from urllib.parse import urlsplit

from net_fakes import LossyProxy, _close, _pipe


class DelayingProxy:
    def __init__(self, upstream_url: str, delay: float) -> None:
        parts = urlsplit(upstream_url)
        self._upstream = (parts.hostname or "127.0.0.1", parts.port or 80)
        self._delay = delay
        self.connections = 0
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
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        time.sleep(self._delay)
        try:
            upstream = socket.create_connection(self._upstream)
        except OSError:
            _close(client)
            return
        threading.Thread(target=_pipe, args=(client, upstream), daemon=True).start()
        _pipe(upstream, client)

    def close(self) -> None:
        self._listener.close()


class AnswerLosingProxy(LossyProxy):
    """The Python client tests' LossyProxy, told when to begin losing answers: after the start went through."""

    def __init__(self, upstream_url: str) -> None:
        super().__init__(upstream_url, drops=0)

    def lose_next_answers(self, count: int) -> None:
        with self._lock:
            self._drops_left = count
