"""What a running prediction can see: its cancel signal, its progress, its log."""

from __future__ import annotations

import threading
import time


class Canceled(Exception):
    """Raised inside predict() once the prediction was canceled."""


class ModelError(Exception):
    """A failure the caller should read: its message becomes the prediction's error."""


class PredictionContext:
    def __init__(self, prediction_id: str) -> None:
        self.id = prediction_id
        self._cancel = threading.Event()
        self.progress: float | None = None
        self.logs: list[str] = []
        self.streamed: list[str] = []

    @property
    def canceled(self) -> bool:
        return self._cancel.is_set()

    @property
    def cancel_event(self) -> threading.Event:
        """Set once canceled; hand it to blocking work (downloads) that can stop early."""
        return self._cancel

    def cancel(self) -> None:
        self._cancel.set()

    def check_canceled(self) -> None:
        if self._cancel.is_set():
            raise Canceled(self.id)

    def sleep(self, seconds: float) -> None:
        """Sleeps, waking at once when canceled (then raises Canceled)."""
        if self._cancel.wait(timeout=max(0.0, seconds)):
            raise Canceled(self.id)

    def report_progress(self, fraction: float) -> None:
        self.progress = min(1.0, max(0.0, fraction))

    def log(self, line: str) -> None:
        self.logs.append(f"{time.strftime('%H:%M:%S')} {line}")

    def emit(self, piece: str) -> None:
        """Streams a piece of the output as it is made (the final output is still returned)."""
        self.streamed.append(piece)
