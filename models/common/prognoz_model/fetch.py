"""The guarded fetcher for file inputs.

http(s) only; every address a host resolves to is checked, and the connection goes to the very
address that was checked (no second DNS lookup to rebind); redirects are followed by hand and
checked again; size and time are capped; a cancel stops the download.
"""

from __future__ import annotations

import hashlib
import http.client
import ipaddress
import os
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

MAX_REDIRECTS = 5
CHUNK = 64 * 1024


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


def _public(address: str) -> bool:
    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def _resolve(host: str, port: int, limits: FetchLimits) -> str:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise FetchError(f"cannot resolve {host}: {error.strerror}") from None
    addresses = [str(info[4][0]) for info in infos]
    if not limits.allow_private:
        refused = [a for a in addresses if not _public(a)]
        if refused:
            raise FetchError(f"{host} resolves to a private, loopback or link-local address ({refused[0]}); refused")
    return addresses[0]


class _PinnedHTTPConnection(http.client.HTTPConnection):
    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self._address = address

    def connect(self) -> None:
        raw = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(raw, server_hostname=self.host)  # type: ignore[attr-defined]


def fetch_to_file(
    url: str,
    dest: str,
    limits: FetchLimits,
    cancel: threading.Event | None = None,
) -> FetchResult:
    """Downloads url into dest and returns its size and sha256, or raises FetchError."""
    deadline = time.monotonic() + limits.timeout_seconds
    current = url
    for _ in range(MAX_REDIRECTS + 1):
        parts = urlsplit(current)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise FetchError(f"only http(s) URLs can be fetched, not {current[:100]}")
        port = parts.port or (443 if parts.scheme == "https" else 80)
        address = _resolve(parts.hostname, port, limits)
        left = max(0.1, deadline - time.monotonic())
        cls = _PinnedHTTPSConnection if parts.scheme == "https" else _PinnedHTTPConnection
        connection = cls(parts.hostname, port, address, timeout=min(left, 30.0))
        try:
            path = parts.path or "/"
            if parts.query:
                path += "?" + parts.query
            connection.request("GET", path, headers={"User-Agent": "prognoz-fetch/1", "Accept": "*/*"})
            response = connection.getresponse()
            if response.status in (301, 302, 303, 307, 308):
                location = response.getheader("Location")
                if not location:
                    raise FetchError(f"{current} redirected without a Location")
                current = urljoin(current, location)
                continue
            if response.status != 200:
                raise FetchError(f"fetching {current} gave HTTP {response.status}")
            declared = response.getheader("Content-Length")
            if declared is not None and declared.isdigit() and int(declared) > limits.max_bytes:
                raise FetchError(f"{current} is {declared} bytes, over the {limits.max_bytes}-byte limit")
            digest = hashlib.sha256()
            size = 0
            with open(dest, "wb") as out:
                while True:
                    if cancel is not None and cancel.is_set():
                        raise FetchError("canceled while fetching")
                    if time.monotonic() > deadline:
                        raise FetchError(f"fetching {current} took longer than {limits.timeout_seconds:g} s")
                    chunk = response.read(CHUNK)
                    if not chunk:
                        break
                    size += len(chunk)
                    if size > limits.max_bytes:
                        raise FetchError(f"{current} is over the {limits.max_bytes}-byte limit")
                    digest.update(chunk)
                    out.write(chunk)
            return FetchResult(current, dest, size, digest.hexdigest(), response.getheader("Content-Type") or "")
        except (OSError, http.client.HTTPException) as error:
            raise FetchError(f"fetching {current} failed: {error}") from None
        finally:
            connection.close()
    raise FetchError(f"{url} redirected more than {MAX_REDIRECTS} times")
