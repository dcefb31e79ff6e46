"""Fixtures: the test audio served over loopback HTTP, and one warm predictor per session."""

from __future__ import annotations

import functools
import http.server
import os
import threading
from pathlib import Path
from typing import Iterator

import pytest

from clips import AUDIO



class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """(base URL, folder): the shared test audio plus files the tests write into the folder."""
    folder = tmp_path_factory.mktemp("served")
    for item in AUDIO.iterdir():
        (folder / item.name).symlink_to(item)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", folder
    server.shutdown()


@pytest.fixture(scope="session")
def predictor():  # type: ignore[no-untyped-def]
    os.environ["PROGNOZ_ALLOW_PRIVATE_FETCH"] = "true"
    from whisper_predictor import TranscribePredictor

    instance = TranscribePredictor()
    instance.setup()
    yield instance
    # A canceled transcription finishes its current window in the background; the interpreter
    # must not exit under it.
    instance.close()
