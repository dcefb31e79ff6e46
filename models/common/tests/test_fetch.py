"""The guarded fetcher, against a real HTTP server on loopback."""

from __future__ import annotations

import hashlib
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

import pytest

from prognoz_model.fetch import FetchError, FetchLimits, _public, fetch_to_file

BODY = b"prognoz" * 5000


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        if self.path == "/file":
            self.send_response(200)
            self.send_header("Content-Length", str(len(BODY)))
            self.end_headers()
            self.wfile.write(BODY)
        elif self.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "/file")
            self.end_headers()
        elif self.path == "/loop":
            self.send_response(302)
            self.send_header("Location", "/loop")
            self.end_headers()
        else:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


LOCAL = FetchLimits(allow_private=True, timeout_seconds=10)


def test_fetches_size_and_sha256(base: str, tmp_path: Path) -> None:
    result = fetch_to_file(f"{base}/file", str(tmp_path / "f"), LOCAL)
    assert result.size == len(BODY)
    assert result.sha256 == hashlib.sha256(BODY).hexdigest()
    assert (tmp_path / "f").read_bytes() == BODY


def test_follows_redirects_and_checks_each_hop(base: str, tmp_path: Path) -> None:
    assert fetch_to_file(f"{base}/redirect", str(tmp_path / "f"), LOCAL).size == len(BODY)
    with pytest.raises(FetchError, match="redirected more than"):
        fetch_to_file(f"{base}/loop", str(tmp_path / "f"), LOCAL)


def test_refuses_loopback_outside_the_local_runtime(base: str, tmp_path: Path) -> None:
    with pytest.raises(FetchError, match="private, loopback or link-local"):
        fetch_to_file(f"{base}/file", str(tmp_path / "f"), FetchLimits(allow_private=False))


def test_caps_the_size(base: str, tmp_path: Path) -> None:
    with pytest.raises(FetchError, match="limit"):
        fetch_to_file(f"{base}/file", str(tmp_path / "f"), FetchLimits(allow_private=True, max_bytes=1000))


def test_reports_http_errors_and_bad_schemes(base: str, tmp_path: Path) -> None:
    with pytest.raises(FetchError, match="HTTP 404"):
        fetch_to_file(f"{base}/missing", str(tmp_path / "f"), LOCAL)
    with pytest.raises(FetchError, match="only http"):
        fetch_to_file("ftp://example.com/x", str(tmp_path / "f"), LOCAL)


def test_stops_when_canceled(base: str, tmp_path: Path) -> None:
    canceled = threading.Event()
    canceled.set()
    with pytest.raises(FetchError, match="canceled"):
        fetch_to_file(f"{base}/file", str(tmp_path / "f"), LOCAL, canceled)


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("8.8.8.8", True),
        ("2606:4700:4700::1111", True),
        ("127.0.0.1", False),
        ("10.1.2.3", False),
        ("172.16.0.1", False),
        ("192.168.1.1", False),
        ("169.254.169.254", False),
        ("::1", False),
        ("fe80::1", False),
        ("::ffff:10.0.0.1", False),
        ("0.0.0.0", False),
        ("224.0.0.1", False),
    ],
)
def test_address_classes(address: str, public: bool) -> None:
    assert _public(address) is public
