"""The guarded fetcher for file inputs.

http(s) only; every address a host resolves to is checked against the table of blocked ranges that
the TypeScript webhook guard reads too (shared/domain/blocked-addresses.json), and the connection
goes to the very address that was checked (no second DNS lookup to rebind); redirects are followed
by hand and checked again; size and time are capped; a cancel stops the download.

The time limit and the cancel hold against a server that drips, stalls or never ends: a watchdog
thread shuts the socket down when either comes, so a blocked connect, TLS handshake or read
returns at once instead of at the next chunk.
"""

from __future__ import annotations

import hashlib
import http.client
import ipaddress
import json
import os
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import urljoin, urlsplit

MAX_REDIRECTS = 5
CHUNK = 64 * 1024
#: How often the watchdog looks at the deadline and the cancel.
WATCH_SECONDS = 0.05
#: The table of blocked ranges: beside the TypeScript guard in the repository, elsewhere in an image.
BLOCKED_ADDRESSES = Path(
    os.environ.get("PROGNOZ_BLOCKED_ADDRESSES")
    or Path(__file__).resolve().parents[3] / "shared" / "domain" / "blocked-addresses.json"
)

Verdict = Literal["public", "loopback", "private"]
_Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class FetchError(Exception):
    """A file input could not be fetched; the message is shown to the caller."""


@dataclass(frozen=True)
class FetchLimits:
    max_bytes: int = 512 * 1024 * 1024
    timeout_seconds: float = 120.0
    #: Loopback and private addresses are allowed in the local runtime only.
    allow_private: bool = False

    @staticmethod
    def from_env() -> "FetchLimits":
        return FetchLimits(
            max_bytes=int(os.environ.get("PROGNOZ_FETCH_MAX_BYTES", 512 * 1024 * 1024)),
            timeout_seconds=float(os.environ.get("PROGNOZ_FETCH_TIMEOUT_SECONDS", 120)),
            allow_private=os.environ.get("PROGNOZ_ALLOW_PRIVATE_FETCH") == "true",
        )


@dataclass(frozen=True)
class FetchResult:
    url: str
    path: str
    size: int
    sha256: str
    content_type: str


def _load_ranges(path: Path) -> list[tuple[_Network, Verdict | int]]:
    """(network, verdict or the bit where an embedded IPv4 address starts), longest prefix first."""
    if not path.is_file():
        raise FileNotFoundError(f"the table of blocked addresses is not at {path}; set PROGNOZ_BLOCKED_ADDRESSES")
    table = json.loads(path.read_text(encoding="utf-8"))
    ranges: list[tuple[_Network, Verdict | int]] = []
    for key, version in (("ipv4", 4), ("ipv6", 6), ("ipv6Embedding", 6)):
        for entry in table[key]:
            network = ipaddress.ip_network(entry["range"])  # strict: no bits set past the prefix
            embeds = key == "ipv6Embedding"
            rule = entry.get("ipv4AtBit") if embeds else entry.get("verdict")
            valid = isinstance(rule, int) and network.prefixlen <= rule <= 96 if embeds else rule in ("loopback", "private")
            if network.version != version or not valid:
                raise ValueError(f"{path}: {entry['range']} in {key} is not a valid entry")
            ranges.append((network, rule))
    return sorted(ranges, key=lambda item: -item[0].prefixlen)


_RANGES = _load_ranges(BLOCKED_ADDRESSES)


def _judge(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> Verdict:
    for network, rule in _RANGES:
        if ip.version == network.version and ip in network:
            if isinstance(rule, int):
                return _judge(ipaddress.IPv4Address((int(ip) >> (128 - rule - 32)) & 0xFFFFFFFF))
            return rule
    return "public"


def address_verdict(address: str) -> Verdict:
    """public, loopback, or private (everything else that is blocked, and whatever is not an IP address).

    The longest matching range of the table decides; an IPv6 form that embeds an IPv4 address
    (::ffff:a.b.c.d, NAT64, 6to4, ...) is judged by that IPv4 address. An IPv6 zone is ignored.
    """
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return "private"
    if isinstance(ip, ipaddress.IPv6Address) and ip.scope_id is not None:
        ip = ipaddress.IPv6Address(int(ip))
    return _judge(ip)


class _Watchdog:
    """Ends a fetch at its deadline or on cancel, even inside a blocked connect, handshake or read.

    It holds a duplicate of the connection's socket and shuts that down (the socket, not just the
    duplicate), so the call blocked in the fetching thread returns at once; the fetching thread
    then calls check(), which says why.
    """

    def __init__(self, deadline: float, timeout_seconds: float, cancel: threading.Event | None) -> None:
        self._deadline = deadline
        self._timeout_seconds = timeout_seconds
        self._cancel = cancel
        self._lock = threading.Lock()
        self._socket: socket.socket | None = None
        self._fired: str | None = None
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="prognoz-fetch-watchdog", daemon=True)

    def __enter__(self) -> "_Watchdog":
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._done.set()
        self._thread.join()
        self.watch(None)

    def _due(self) -> str | None:
        if self._cancel is not None and self._cancel.is_set():
            return "canceled"
        if time.monotonic() >= self._deadline:
            return "deadline"
        return None

    def _watch(self) -> None:
        # Once fired, it shuts the socket down again at every tick: a socket still connecting when
        # first shut down, or one made after, is cut short at the next tick.
        while not self._done.wait(WATCH_SECONDS):
            reason = self._fired or self._due()
            if reason is not None:
                with self._lock:
                    self._fired = reason
                    self._shutdown()

    def _shutdown(self) -> None:
        if self._socket is not None:
            try:
                self._socket.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # not connecting or connected yet, or closed: tried again at the next tick

    def watch(self, sock: socket.socket | None) -> None:
        """Watches sock, the socket of the current connection (None when there is none now)."""
        duplicate = sock.dup() if sock is not None else None
        with self._lock:
            if self._socket is not None:
                self._socket.close()
            self._socket = duplicate
            if self._fired is not None:
                self._shutdown()

    def seconds_left(self) -> float:
        return self._deadline - time.monotonic()

    def check(self, url: str) -> None:
        """Raises FetchError when the deadline has passed or the fetch was canceled."""
        reason = self._fired or self._due()
        if reason == "canceled":
            raise FetchError("canceled while fetching")
        if reason == "deadline":
            raise FetchError(f"fetching {url} took longer than {self._timeout_seconds:g} s")


def _resolve(host: str, port: int, limits: FetchLimits, watchdog: _Watchdog, url: str) -> str:
    """The address to connect to; the lookup runs aside, so a slow resolver cannot outlast the deadline."""
    outcome: list[list[str] | Exception] = []

    def lookup() -> None:
        try:
            outcome.append([str(info[4][0]) for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)])
        except Exception as error:  # gaierror, or UnicodeError for a name IDNA cannot encode
            outcome.append(error)

    thread = threading.Thread(target=lookup, name="prognoz-fetch-resolve", daemon=True)
    thread.start()
    while thread.is_alive():
        thread.join(WATCH_SECONDS)
        watchdog.check(url)
    addresses = outcome[0]
    if isinstance(addresses, Exception):
        raise FetchError(f"cannot resolve {host}: {getattr(addresses, 'strerror', None) or addresses}")
    if not limits.allow_private:
        refused = [a for a in addresses if address_verdict(a) != "public"]
        if refused:
            raise FetchError(f"{host} resolves to a private, loopback or link-local address ({refused[0]}); refused")
    return addresses[0]


def _connect(address: str, port: int, timeout: float, watchdog: _Watchdog) -> socket.socket:
    """A socket connected to address, watched from before connect() so a cancel cuts the connect short."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        watchdog.watch(sock)
        sock.settimeout(timeout)
        sock.connect((address, port))
    except BaseException:
        sock.close()
        raise
    return sock


class _PinnedHTTPConnection(http.client.HTTPConnection):
    def __init__(self, host: str, port: int, address: str, timeout: float, watchdog: _Watchdog) -> None:
        super().__init__(host, port, timeout=timeout)
        self._address = address
        self._watchdog = watchdog

    def connect(self) -> None:
        self.sock = _connect(self._address, self.port, self.timeout, self._watchdog)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, host: str, port: int, address: str, timeout: float, watchdog: _Watchdog) -> None:
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self._address = address
        self._watchdog = watchdog

    def connect(self) -> None:
        raw = _connect(self._address, self.port, self.timeout, self._watchdog)
        self.sock = self._context.wrap_socket(raw, server_hostname=self.host)  # type: ignore[attr-defined]


def fetch_to_file(
    url: str,
    dest: str,
    limits: FetchLimits,
    cancel: threading.Event | None = None,
) -> FetchResult:
    """Downloads url into dest and returns its size and sha256, or raises FetchError.

    Raises within about limits.timeout_seconds of the start (the watchdog looks every 50 ms), and
    as soon after cancel is set, whatever the server does: drip, stall, lie about its length.
    """
    deadline = time.monotonic() + limits.timeout_seconds
    with _Watchdog(deadline, limits.timeout_seconds, cancel) as watchdog:
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            watchdog.check(current)
            location = _fetch_once(current, dest, limits, watchdog)
            if isinstance(location, FetchResult):
                return location
            current = location
    raise FetchError(f"{url} redirected more than {MAX_REDIRECTS} times")


def _fetch_once(current: str, dest: str, limits: FetchLimits, watchdog: _Watchdog) -> FetchResult | str:
    """One request: the result, or where it redirects to."""
    parts = urlsplit(current)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise FetchError(f"only http(s) URLs can be fetched, not {current[:100]}")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    address = _resolve(parts.hostname, port, limits, watchdog, current)
    # Socket timeouts are a backstop; the watchdog enforces the deadline and the cancel.
    timeout = min(max(0.1, watchdog.seconds_left()), 30.0)
    cls = _PinnedHTTPSConnection if parts.scheme == "https" else _PinnedHTTPConnection
    connection = cls(parts.hostname, port, address, timeout, watchdog)
    try:
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        connection.request("GET", path, headers={"User-Agent": "prognoz-fetch/1", "Accept": "*/*"})
        response = connection.getresponse()
        if response.status in (301, 302, 303, 307, 308):
            location = response.getheader("Location")
            if not location:
                raise FetchError(f"{current} redirected without a Location")
            return urljoin(current, location)
        if response.status != 200:
            raise FetchError(f"fetching {current} gave HTTP {response.status}")
        declared = response.getheader("Content-Length")
        if declared is not None and declared.isdigit() and int(declared) > limits.max_bytes:
            raise FetchError(f"{current} is {declared} bytes, over the {limits.max_bytes}-byte limit")
        digest = hashlib.sha256()
        size = 0
        with open(dest, "wb") as out:
            while chunk := response.read(CHUNK):
                size += len(chunk)
                if size > limits.max_bytes:
                    raise FetchError(f"{current} is over the {limits.max_bytes}-byte limit")
                digest.update(chunk)
                out.write(chunk)
                watchdog.check(current)
        watchdog.check(current)  # the end of the body may be the watchdog's doing
        chunked = response.getheader("Transfer-Encoding") is not None
        if not chunked and declared is not None and declared.isdigit() and size != int(declared):
            raise FetchError(f"{current} ended after {size} of its {declared} bytes")
        return FetchResult(current, dest, size, digest.hexdigest(), response.getheader("Content-Type") or "")
    except (OSError, http.client.HTTPException) as error:
        watchdog.check(current)
        raise FetchError(f"fetching {current} failed: {error}") from None
    finally:
        connection.close()
        watchdog.watch(None)
