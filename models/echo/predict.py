"""prognoz/echo: echoes its text (repeated on demand), sleeps (cancelably), fails on demand, and
reports the size and sha256 of a file.

A Cog predictor run by coglet. A file input arrives as a local path (the worker has fetched it).
Progress is Cog's metric `progress` (0 to 1); logs are what it prints.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any, Optional

from cog import BaseModel, BasePredictor, Input, Path

#: The longest single sleep: a cancel (an exception coglet injects between bytecodes) lands within it.
SLICE_SECONDS = 0.05


class ModelError(Exception):
    """A failure told to the caller: coglet's `error` ends with `ModelError: <message>`."""


class Output(BaseModel):
    text: str
    # {"size": <bytes>, "sha256": <hex>} of the file input; null without one. A nested object is
    # an opaque JSON object to Cog (a dict field), so the schema says `type: object, nullable`.
    file: Optional[dict[str, Any]] = None


class Predictor(BasePredictor):
    def setup(self) -> None:
        """Nothing to load: the echo model is warm from the start."""

    def predict(
        self,
        text: str = Input(default="hello", max_length=100_000, description="Text to echo back."),
        repeat: int = Input(
            default=1, ge=1, le=100, description="How many times the text comes back, joined: large outputs on demand."
        ),
        sleep: float = Input(default=0, ge=0, le=300, description="Seconds to sleep before answering (cancelable)."),
        fail: bool = Input(default=False, description="End the prediction failed with a model error."),
        file: Optional[Path] = Input(default=None, description="A file; its byte size and sha256 are returned."),
    ) -> Output:
        output = Output(text=text * repeat)
        if file is not None:
            output.file = _size_and_sha256(file)
        print(f"sleeping {sleep:g} s", flush=True)
        self._sleep(sleep)
        if fail:
            raise ModelError("prognoz/echo failed on purpose (input fail: true)")
        self.record_metric("progress", 1.0)
        return output

    def _sleep(self, seconds: float) -> None:
        """Sleeps in short slices (cancelable), the progress rising with the time slept."""
        start = time.monotonic()
        end = start + seconds
        reported = 0.0
        while (left := end - time.monotonic()) > 0:
            time.sleep(min(SLICE_SECONDS, left))
            progress = min(1.0, (time.monotonic() - start) / seconds)
            if progress - reported >= 0.01:
                self.record_metric("progress", round(progress, 4))
                reported = progress


def _size_and_sha256(path: Path) -> dict[str, Any]:
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
            size += len(chunk)
    return {"size": size, "sha256": digest.hexdigest()}
