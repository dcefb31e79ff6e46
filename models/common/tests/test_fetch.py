"""The guarded fetcher, against real HTTP servers on loopback, friendly and hostile."""

from __future__ import annotations

import hashlib
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable, Iterator

import pytest

from prognoz_model.fetch import FetchError, FetchLimits, address_verdict, fetch_to_file

BODY = b"prognoz" * 5000
#: The cases the TypeScript guard is tested against too (test/unit/addresses.test.ts).
CASES = json.loads((Path(__file__).resolve().parents[3] / "test" / "fixtures" / "address-cases.json").read_text())
#: Set when the module's servers stop, so hostile handlers stop stalling.
STOP = threading.Event()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        route = ROUTES.get(self.path)
        try:
            if route is not None:
                route(self)
            else:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the fetcher hung up, as it should

    def head(self, status: int, **headers: str) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.wfile.flush()


def _file(h: Handler) -> None:
    h.head(200, Content_Length=str(len(BODY)))
    h.wfile.write(BODY)


def _drip(h: Handler) -> None:
    """One byte every half second, of a body it says is 100 bytes."""
    h.head(200, Content_Length="100")
    while not STOP.wait(0.5):
        h.wfile.write(b"x")
        h.wfile.flush()


def _short(h: Handler) -> None:
    """Says 1,000,000 bytes, sends 10, then goes silent."""
    h.head(200, Content_Length="1000000")
    h.wfile.write(b"0123456789")
    h.wfile.flush()
    STOP.wait(30)


def _short_then_close(h: Handler) -> None:
    """Says 1,000 bytes, sends 10, then hangs up."""
    h.head(200, Content_Length="1000")
    h.wfile.write(b"0123456789")


def _endless(h: Handler, block: bytes = b"y" * 64 * 1024, pause: float = 0.0) -> None:
    """A body without a length that never ends."""
    h.head(200)
    while not STOP.is_set():
        h.wfile.write(block)
        if pause:
            STOP.wait(pause)


ROUTES: dict[str, Callable[[Handler], None]] = {
    "/file": _file,
    "/redirect": lambda h: h.head(302, Location="/file"),
    "/loop": lambda h: h.head(302, Location="/loop"),
    "/drip": _drip,
    "/short": _short,
    "/short-then-close": _short_then_close,
    "/endless": _endless,
    "/endless-slow": lambda h: _endless(h, b"z" * 1024, 0.05),
}


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    STOP.clear()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    STOP.set()
    server.shutdown()
    server.server_close()


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


def test_refuses_a_body_shorter_than_its_content_length(base: str, tmp_path: Path) -> None:
    with pytest.raises(FetchError, match="ended after 10 of its 1000 bytes"):
        fetch_to_file(f"{base}/short-then-close", str(tmp_path / "f"), LOCAL)


# Deadline guarantees against hostile servers: the fetcher gives up within its limit + 1 s, and
# within 1 s of a cancel, whatever the server does.
DEADLINE = FetchLimits(allow_private=True, timeout_seconds=1.0)


def _fails_in_time(url: str, dest: Path, limits: FetchLimits, match: str) -> None:
    started = time.monotonic()
    with pytest.raises(FetchError, match=match):
        fetch_to_file(url, str(dest), limits)
    assert time.monotonic() - started <= limits.timeout_seconds + 1.0


def test_a_drip_is_cut_at_the_deadline(base: str, tmp_path: Path) -> None:
    _fails_in_time(f"{base}/drip", tmp_path / "f", DEADLINE, "took longer than 1 s")


def test_a_stall_after_a_short_body_is_cut_at_the_deadline(base: str, tmp_path: Path) -> None:
    _fails_in_time(f"{base}/short", tmp_path / "f", DEADLINE, "took longer than 1 s")


def test_an_endless_stream_is_cut_at_the_size_cap(base: str, tmp_path: Path) -> None:
    limits = FetchLimits(allow_private=True, timeout_seconds=10, max_bytes=1024 * 1024)
    _fails_in_time(f"{base}/endless", tmp_path / "f", limits, "over the 1048576-byte limit")


def test_an_endless_slow_stream_is_cut_at_the_deadline(base: str, tmp_path: Path) -> None:
    _fails_in_time(f"{base}/endless-slow", tmp_path / "f", DEADLINE, "took longer than 1 s")


class _TimedEvent(threading.Event):
    """An Event that remembers when it was set."""

    set_at = 0.0

    def set(self) -> None:
        self.set_at = time.monotonic()
        super().set()


def _cancel_after(url: str, dest: Path, delay: float = 0.5) -> None:
    canceled = _TimedEvent()
    timer = threading.Timer(delay, canceled.set)
    timer.start()
    try:
        with pytest.raises(FetchError, match="canceled while fetching"):
            fetch_to_file(url, str(dest), LOCAL, canceled)
        ended = time.monotonic()
    finally:
        timer.cancel()
    assert canceled.is_set()
    assert ended - canceled.set_at <= 1.0


def test_a_cancel_stops_a_drip(base: str, tmp_path: Path) -> None:
    _cancel_after(f"{base}/drip", tmp_path / "f")


@pytest.fixture
def silent_listener() -> Iterator[socket.socket]:
    """Accepts TCP connections and never says a word (a TLS handshake that never ends)."""
    listener = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    yield listener
    listener.close()
    for connection in accepted:
        connection.close()


def test_a_cancel_stops_a_tls_handshake(silent_listener: socket.socket, tmp_path: Path) -> None:
    _cancel_after(f"https://127.0.0.1:{silent_listener.getsockname()[1]}/f", tmp_path / "f")


def test_a_silent_tls_handshake_is_cut_at_the_deadline(silent_listener: socket.socket, tmp_path: Path) -> None:
    url = f"https://127.0.0.1:{silent_listener.getsockname()[1]}/f"
    _fails_in_time(url, tmp_path / "f", DEADLINE, "took longer than 1 s")


@pytest.fixture
def full_listener() -> Iterator[socket.socket]:
    """A listener that never accepts, with its backlog full: a connect to it hangs in SYN-SENT."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    queued: list[socket.socket] = []
    try:
        for _ in range(8):
            probe = socket.socket()
            probe.settimeout(0.3)
            try:
                probe.connect(listener.getsockname())
            except TimeoutError:
                probe.close()
                break
            queued.append(probe)
        else:
            pytest.skip("this system accepts connections beyond the backlog; no connect hangs")
        yield listener
    finally:
        for probe in queued:
            probe.close()
        listener.close()


def test_a_cancel_stops_a_connect(full_listener: socket.socket, tmp_path: Path) -> None:
    _cancel_after(f"http://127.0.0.1:{full_listener.getsockname()[1]}/f", tmp_path / "f")


def test_a_hanging_connect_is_cut_at_the_deadline(full_listener: socket.socket, tmp_path: Path) -> None:
    _fails_in_time(f"http://127.0.0.1:{full_listener.getsockname()[1]}/f", tmp_path / "f", DEADLINE, "took longer")


@pytest.mark.parametrize(
    ("address", "verdict"),
    [(case["address"], case["verdict"]) for case in CASES["cases"]],
)
def test_address_verdicts_shared_with_the_typescript_guard(address: str, verdict: str) -> None:
    assert address_verdict(address) == verdict


def test_the_shared_cases_cover_every_verdict() -> None:
    assert {case["verdict"] for case in CASES["cases"]} == {"public", "loopback", "private"}
