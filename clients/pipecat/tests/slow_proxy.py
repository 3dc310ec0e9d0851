"""The outside world between the bot and the service: an HTTP proxy to the real service that can hold each
request for a while before passing it on, or answer 503 itself, and counts what it saw by path."""

from __future__ import annotations

import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx


class SlowProxy:
    def __init__(
        self, upstream_url: str, *, delay: float = 0.0, refuse: bool = False, lose_first_answer_to: str | None = None
    ) -> None:
        self.delay = delay
        self.refuse = refuse
        self.lose_first_answer_to = lose_first_answer_to
        """A path whose first request reaches the service, but whose answer is lost: the connection just closes."""
        self.requests: Counter[str] = Counter()
        self.received_at: dict[str, float] = {}
        """When each path's first request reached the proxy (time.monotonic())."""
        self.forwarded_at: dict[str, float] = {}
        """When each path's latest request was passed on to the service (time.monotonic())."""
        upstream = httpx.Client(base_url=upstream_url, timeout=30)
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                self._relay()

            def do_GET(self) -> None:
                self._relay()

            def _relay(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                proxy.requests[self.path] += 1
                proxy.received_at.setdefault(self.path, time.monotonic())
                if proxy.refuse:
                    self._answer(503, {"Retry-After": "1"}, b'{"error":"Service Unavailable","message":"Overloaded"}')
                    return
                time.sleep(proxy.delay)
                proxy.forwarded_at[self.path] = time.monotonic()
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
                answer = upstream.request(self.command, self.path, headers=headers, content=body)
                if self.path == proxy.lose_first_answer_to:
                    proxy.lose_first_answer_to = None
                    self.close_connection = True
                    return
                self._answer(answer.status_code, dict(answer.headers), answer.content)

            def _answer(self, status: int, headers: dict[str, str], body: bytes) -> None:
                self.send_response(status)
                skip = ("content-length", "transfer-encoding", "connection", "content-encoding", "content-type")
                for name, value in headers.items():
                    if name.lower() not in skip:
                        self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self._upstream = upstream

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._upstream.close()
