"""One Whisper encoder pass per window, however many times the window is asked for.

Hearing a stretch's language (WhisperModel.detect_language), transcribing it and translating it
each encode the same 30 s window: the encoder does not depend on the task or the language. On a
CPU one encoder pass of Whisper base costs about as much as decoding a short sentence, so doing it
once rather than three times is what keeps per-stretch languages at the raw engine's speed.

An output is kept for the predictions whose pass made or used it, until each has released it (a
prediction releases its outputs once it has its stretches' text and English): it never serves a
later batch or prediction, so the same clip again is decoded again.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterator
from typing import Any

import numpy as np


class EncoderMemo:
    """Wraps WhisperModel.encode: the encoder outputs of the windows still in use, by their features
    (at most `size` of them, the least recently used dropped first)."""

    def __init__(self, encode: Callable[[np.ndarray], Any], size: int = 4) -> None:
        self._encode = encode
        self._size = size
        self._outputs: OrderedDict[bytes, tuple[Any, set[Any]]] = OrderedDict()
        self._serving: Collection[Any] = ()
        self._lock = threading.Lock()
        self.passes = 0

    @contextlib.contextmanager
    def serving(self, owners: Collection[Any]) -> Iterator[None]:
        """The encodes meanwhile are those owners' (called by the one thread that encodes)."""
        self._serving = owners
        try:
            yield
        finally:
            self._serving = ()

    def __call__(self, features: np.ndarray) -> Any:
        contiguous = np.ascontiguousarray(features)
        key = hashlib.blake2b(contiguous.tobytes(), digest_size=16, person=str(contiguous.shape).encode()[:16]).digest()
        with self._lock:
            if key in self._outputs:
                self._outputs.move_to_end(key)
                output, owners = self._outputs[key]
                owners.update(self._serving)
                return output
        output = self._encode(features)
        with self._lock:
            self.passes += 1
            self._outputs[key] = (output, set(self._serving))
            while len(self._outputs) > self._size:
                self._outputs.popitem(last=False)
        return output

    def release(self, owner: Any) -> None:
        """Drops the outputs no owner but this one still holds."""
        with self._lock:
            for key, (_, owners) in list(self._outputs.items()):
                owners.discard(owner)
                if not owners:
                    del self._outputs[key]

    def clear(self) -> None:
        with self._lock:
            self._outputs.clear()
