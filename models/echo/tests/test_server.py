"""The echo model server as a real process, spoken to by the model protocol (DESIGN §5)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest

MAIN = Path(__file__).resolve().parents[1] / "main.py"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def call(base: str, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    port = _free_port()
    process = subprocess.Popen([sys.executable, str(MAIN)], env={**os.environ, "PORT": str(port)})
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while True:
        try:
            if call(base, "GET", "/health-check")[1]["status"] == "READY":
                break
        except OSError:
            pass
        assert time.monotonic() < deadline, "the echo server did not become ready"
        time.sleep(0.05)
    yield base
    process.terminate()
    process.wait(10)


def test_echoes_text(server: str) -> None:
    status, body = call(server, "POST", "/predictions", {"id": "p1", "input": {"text": "привет", "sleep": 0, "fail": False}})
    assert status == 200
    assert body["status"] == "succeeded"
    assert body["output"] == {"text": "привет"}
    assert body["metrics"]["predict_time"] >= 0


def test_fails_on_demand(server: str) -> None:
    _, body = call(server, "POST", "/predictions", {"id": "p2", "input": {"fail": True}})
    assert body["status"] == "failed"
    assert body["error"] == "prognoz/echo failed on purpose (input fail: true)"


def test_cancel_stops_a_sleep_promptly_and_the_record_shows_it(server: str) -> None:
    result: dict[str, Any] = {}

    def run() -> None:
        result["response"] = call(server, "POST", "/predictions", {"id": "p3", "input": {"sleep": 30}})

    thread = threading.Thread(target=run)
    started = time.monotonic()
    thread.start()
    while call(server, "GET", "/health-check")[1]["status"] != "BUSY":
        time.sleep(0.02)
    health = call(server, "GET", "/health-check")[1]
    assert health["prediction_id"] == "p3"
    # One prediction at a time: a second one is refused while busy.
    assert call(server, "POST", "/predictions", {"id": "p4", "input": {}})[0] == 409

    assert call(server, "POST", "/predictions/p3/cancel", {})[1]["running"] is True
    thread.join(5)
    assert not thread.is_alive()
    assert time.monotonic() - started < 5
    assert result["response"][1]["status"] == "canceled"
    record = call(server, "GET", "/predictions/p3")[1]
    assert record["status"] == "canceled"
    assert record["ended_at"] - record["started_at"] < 5


def test_rejects_bad_requests(server: str) -> None:
    assert call(server, "POST", "/predictions", {"input": {}})[0] == 400
    assert call(server, "POST", "/predictions/unknown/cancel", {})[0] == 404
    assert call(server, "GET", "/nothing")[0] == 404


def test_streams_its_text_word_by_word_and_the_record_shows_the_pieces_so_far(server: str) -> None:
    result: dict[str, Any] = {}
    text = "one two three four five six"

    def run() -> None:
        result["response"] = call(server, "POST", "/predictions", {"id": "p5", "input": {"text": text, "sleep": 1.2, "stream": True}})

    thread = threading.Thread(target=run)
    thread.start()
    seen: list[int] = []
    while thread.is_alive():
        status, record = call(server, "GET", "/predictions/p5")
        if status == 200 and "streamed" in record:
            seen.append(len(record["streamed"]))
            assert "".join(record["streamed"]) == text[: len("".join(record["streamed"]))]
        time.sleep(0.05)
    thread.join()
    body = result["response"][1]
    assert body["status"] == "succeeded"
    assert body["output"] == {"text": text}
    assert body["streamed"] == ["one ", "two ", "three ", "four ", "five ", "six"]
    assert "streamed piece 6/6" in body["logs"]
    # The pieces arrived one after another while it ran, not all at the end.
    assert any(0 < count < 6 for count in seen)
