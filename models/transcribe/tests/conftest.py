"""Fixtures: a folder for the clips the tests derive from the shared audio, and one warm predictor
per session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(scope="session")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where tests write the clips they derive (local files, as the worker hands them over)."""
    return tmp_path_factory.mktemp("clips")


@pytest.fixture(scope="session")
def predictor() -> Iterator[Any]:
    from transcribe.predict import Predictor

    instance = Predictor()
    instance.setup()
    yield instance
    # A canceled transcription finishes its current window in the background; the interpreter
    # must not exit under it.
    instance.transcriber.close()
