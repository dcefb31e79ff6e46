"""Running the predictor as coglet runs it, for the tests: predict() awaited with the inputs'
defaults, and what coglet does with what a prediction prints and records."""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import threading
from collections import defaultdict
from pathlib import Path
from typing import Any

from cog import Path as CogPath

from transcribe.predict import Output, Predictor

#: The inputs' defaults, as coglet passes them.
DEFAULTS = {"model": "base", "language": "auto", "diarize": False, "speakers": 1, "word_timestamp": False}
#: Which prediction the running code is for: coglet keeps it in a ContextVar of its own.
PREDICTION: contextvars.ContextVar[str] = contextvars.ContextVar("prediction")


async def predicted(predictor: Predictor, audio: Path, **input: Any) -> dict[str, Any]:
    """predict() awaited, its Output as the JSON object."""
    output = await predictor.predict(audio=CogPath(audio), **{**DEFAULTS, **input})
    assert isinstance(output, Output)
    return dataclasses.asdict(output)


def run(predictor: Predictor, audio: Path, **input: Any) -> dict[str, Any]:
    """One prediction on an event loop of its own."""
    return asyncio.run(predicted(predictor, audio, **input))


async def predicted_as(name: str, predictor: Predictor, audio: Path, **input: Any) -> dict[str, Any]:
    """predict() for the prediction `name`."""
    PREDICTION.set(name)
    return await predicted(predictor, audio, **input)


class CogletStdout:
    """sys.stdout as coglet makes it (its SlotLogWriter): one line buffer for every prediction, each
    complete line given to the prediction in whose context the write that ended it ran."""

    def __init__(self) -> None:
        self.lines: dict[str | None, list[str]] = defaultdict(list)
        self._buffer = ""
        self._lock = threading.Lock()

    def write(self, data: str) -> int:
        with self._lock:
            self._buffer += data
            if "\n" in self._buffer:
                complete, self._buffer = self._buffer.rsplit("\n", 1)
                self.lines[PREDICTION.get(None)].extend(complete.split("\n"))
        return len(data)

    def flush(self) -> None:
        pass


class CogletMetrics:
    """Predictor.record_metric as coglet routes it: to the prediction of the context it runs in."""

    def __init__(self) -> None:
        self.recorded: dict[str | None, list[tuple[str, Any]]] = defaultdict(list)

    def __call__(self, key: str, value: Any, mode: str = "replace") -> None:
        self.recorded[PREDICTION.get(None)].append((key, value))

    def progress(self, name: str | None) -> list[float]:
        return [value for key, value in self.recorded[name] if key == "progress"]
