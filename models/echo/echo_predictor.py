"""prognoz/echo: echoes text (repeated on demand), sleeps (cancelably), fails on demand, fetches a file,
and streams its text word by word when asked."""

from __future__ import annotations

import os
import re
import tempfile
from typing import Any

from prognoz_model import FetchError, FetchLimits, ModelError, PredictionContext, fetch_to_file


class EchoPredictor:
    def __init__(self, limits: FetchLimits | None = None) -> None:
        self.limits = limits or FetchLimits.from_env()

    def setup(self) -> None:
        """Nothing to load: the echo model is warm from the start."""

    def predict(self, input: dict[str, Any], context: PredictionContext) -> dict[str, Any]:
        output: dict[str, Any] = {"text": str(input.get("text", "hello")) * int(input.get("repeat", 1))}
        url = input.get("file")
        if url:
            with tempfile.TemporaryDirectory() as folder:
                try:
                    fetched = fetch_to_file(url, os.path.join(folder, "file"), self.limits, context.cancel_event)
                except FetchError as error:
                    context.check_canceled()
                    raise ModelError(str(error)) from None
            output["file"] = {"url": url, "size": fetched.size, "sha256": fetched.sha256}
        seconds = float(input.get("sleep", 0))
        if input.get("stream"):
            self._stream(output["text"], seconds, context)
        else:
            context.log(f"sleeping {seconds:g} s")
            context.sleep(seconds)
        if input.get("fail"):
            raise ModelError("prognoz/echo failed on purpose (input fail: true)")
        context.report_progress(1.0)
        return output

    @staticmethod
    def _stream(text: str, seconds: float, context: PredictionContext) -> None:
        """Emits the text a word at a time (with its following space), the sleep spread between them."""
        pieces = re.findall(r"\S+\s*|\s+", text) or [text]
        pause = seconds / len(pieces)
        for number, piece in enumerate(pieces, start=1):
            context.sleep(pause)
            context.emit(piece)
            context.log(f"streamed piece {number}/{len(pieces)}")
            context.report_progress(number / len(pieces))
