"""Test helpers: a predictor folder served by the real coglet, and a receiver of its webhooks.

    with Coglet(folder, tmp_path) as coglet:
        status, body = coglet.call("POST", "/predictions", {"input": {...}})

or, for a test module's tests, the fixtures `coglet = coglet_fixture(FOLDER)` and `webhooks`.

coglet runs as it does in a model's image: `python -m cog.server.http` in a copy of the folder,
with COG_PREDICT_TYPE_STUB from cog.yaml, the folder's `.cog/openapi_schema.json` (the schemas
prognoz_cog.describe derives, which coglet validates inputs with), and this Python's bin folder
first on PATH (coglet starts its worker with the `python` it finds there).
"""

from __future__ import annotations

import http.server
import json
import os
import queue
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

import pytest

from .describe import describe, openapi_document

#: Every webhook event coglet knows.
ALL_EVENTS = ["start", "output", "logs", "completed"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def call(
    base: str,
    method: str,
    path: str,
    body: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 60,
) -> tuple[int, Any]:
    """(HTTP status, parsed JSON body or None) of one request."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        base + path, data=data, method=method, headers={"Content-Type": "application/json", **(headers or {})}
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read()
            return response.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as error:
        raw = error.read()
        return error.code, json.loads(raw) if raw else None


class Coglet:
    """coglet serving a copy of a predictor folder (made under `workdir`) on a free loopback port."""

    def __init__(
        self,
        folder: str | os.PathLike[str],
        workdir: str | os.PathLike[str],
        ready_timeout: float = 60,
        env: dict[str, str] | None = None,
    ) -> None:
        self.source = Path(folder)
        self.folder = Path(workdir) / self.source.name
        self.ready_timeout = ready_timeout
        self.extra_env = env or {}
        self.base = ""
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Coglet:
        shutil.copytree(self.source, self.folder, ignore=shutil.ignore_patterns("tests", "__pycache__", ".cog"))
        description = describe(self.folder)
        (self.folder / ".cog").mkdir()
        (self.folder / ".cog" / "openapi_schema.json").write_text(json.dumps(openapi_document(description)))
        port = free_port()
        env = {
            **os.environ,
            "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
            "PORT": str(port),
            "COG_PREDICT_TYPE_STUB": description["predict"],
            **self.extra_env,
        }
        env.pop("PYTHONPATH", None)
        self.log_path = self.folder / "coglet.log"
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "cog.server.http", "--host", "127.0.0.1"],
                cwd=self.folder,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self.base = f"http://127.0.0.1:{port}"
        try:
            self.wait_for("READY", self.ready_timeout)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def call(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        timeout: float = 60,
    ) -> tuple[int, Any]:
        return call(self.base, method, path, body, headers, timeout)

    def health(self) -> dict[str, Any]:
        return self.call("GET", "/health-check")[1]

    def wait_for(self, status: str, timeout: float) -> None:
        """Until /health-check says `status` (READY, BUSY, …)."""
        assert self.process is not None
        deadline = time.monotonic() + timeout
        while True:
            try:
                if self.health()["status"] == status:
                    return
            except OSError:
                pass
            if self.process.poll() is not None:
                raise RuntimeError(f"coglet exited ({self.process.returncode}):\n{self.log()}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"coglet was not {status} within {timeout:g} s:\n{self.log()}")
            time.sleep(0.05)

    def start(
        self, prediction_id: str, input: dict[str, Any], webhook: str, events: list[str] | None = None
    ) -> tuple[int, Any]:
        """An async prediction (PUT with Prefer: respond-async), reported to `webhook`, once the
        server is idle: coglet frees its one slot a moment after the previous prediction answers,
        and refuses (409) a prediction that comes in that moment."""
        self.wait_for("READY", timeout=30)
        body = {"id": prediction_id, "input": input, "webhook": webhook, "webhook_events_filter": events or ALL_EVENTS}
        return self.call("PUT", f"/predictions/{prediction_id}", body, {"Prefer": "respond-async"})


class Webhooks:
    """A loopback receiver of coglet's webhooks: every body POSTed to it, in arrival order, each
    prediction's kept for it while another's are waited for (a model server that runs several at
    once sends theirs interleaved)."""

    def __init__(self) -> None:
        self.received: queue.Queue[dict[str, Any]] = queue.Queue()
        self._held: dict[Any, list[dict[str, Any]]] = {}
        received = self.received

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the http.server API
                received.put(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/webhook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def until(self, prediction_id: str, status: str, timeout: float) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The prediction's first webhook with that status, and all of its webhooks up to it."""
        seen: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(
                    f"no webhook with status {status} for {prediction_id} within {timeout:g} s; got {seen}"
                )
            held = self._held.get(prediction_id)
            if held:
                body = held.pop(0)
            else:
                try:
                    body = self.received.get(timeout=left)
                except queue.Empty:
                    continue
                if body.get("id") != prediction_id:
                    self._held.setdefault(body.get("id"), []).append(body)
                    continue
            seen.append(body)
            if body["status"] == status:
                return body, seen


def cancel_thread(thread: threading.Thread) -> None:
    """Cancels a predict() running in `thread` as coglet does: CancelationException raised in that
    thread at its next bytecode (PyThreadState_SetAsyncExc)."""
    import ctypes

    from cog import CancelationException

    assert thread.ident is not None, "the thread has not started"
    changed = ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread.ident), ctypes.py_object(CancelationException)
    )
    assert changed == 1, f"no such thread ({changed})"


def coglet_fixture(folder: Path) -> Callable[..., Iterator[Coglet]]:
    """A module-scoped fixture: `folder` served by the real coglet for the module's tests."""

    @pytest.fixture(scope="module")
    def coglet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Coglet]:
        with Coglet(folder, tmp_path_factory.mktemp("coglet")) as server:
            yield server

    return coglet


@pytest.fixture(scope="module")
def webhooks() -> Iterator[Webhooks]:
    """A module-scoped receiver of coglet's webhooks."""
    receiver = Webhooks()
    yield receiver
    receiver.close()
