"""prognoz/stream: streams its text back word by word, as a language model streams tokens.

A Cog predictor run by coglet: each piece is one item of a ConcatenateIterator (coglet sends it as
an `output` webhook while the prediction runs; the final output is the list of pieces). Progress is
Cog's metric `progress` (0 to 1); logs are what it prints.
"""

from __future__ import annotations

import re
import time

from cog import BasePredictor, ConcatenateIterator, Input

#: The longest single sleep: a cancel (an exception coglet injects between bytecodes) lands within it.
SLICE_SECONDS = 0.05
#: A piece: a word with the whitespace after it (or leading whitespace on its own).
PIECE = re.compile(r"\S+\s*|\s+")


class Predictor(BasePredictor):
    def setup(self) -> None:
        """Nothing to load."""

    def predict(
        self,
        text: str = Input(
            default="hello world", max_length=100_000, description="Text to stream back, a word at a time."
        ),
        sleep: float = Input(
            default=0, ge=0, le=300, description="Seconds to take in all, spread evenly between the words (cancelable)."
        ),
    ) -> ConcatenateIterator[str]:
        pieces = PIECE.findall(text) or [text]
        pause = sleep / len(pieces)
        for number, piece in enumerate(pieces, start=1):
            _sleep(pause)
            yield piece
            print(f"streamed piece {number}/{len(pieces)}", flush=True)
            self.record_metric("progress", number / len(pieces))


def _sleep(seconds: float) -> None:
    """Sleeps in short slices, so that a cancel lands within one."""
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        time.sleep(min(SLICE_SECONDS, left))
