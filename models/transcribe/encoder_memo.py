"""One Whisper encoder pass per window, however many times and in whatever company it is asked for.

Hearing a stretch's language (WhisperModel.detect_language), transcribing it and translating it
each encode the same 30 s window: the encoder does not depend on the task or the language. On a
CPU one encoder pass of Whisper base costs about as much as decoding a short sentence, so doing it
once rather than three times is what keeps per-stretch languages at the raw engine's speed.

Outputs are kept a window at a time, not a pass at a time: the languages of sixteen stretches are
heard in one pass, but a clip that switches language decodes them in passes of one language each,
and the predictions in flight share passes in other groupings than the ones their languages were
heard in. A pass asks for its windows in any order and company; only the windows never encoded
are encoded, together. A pass asked for again as it was made gets its output as the encoder gave
it; windows in other company are copied to the host once and stacked there.

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

import ctranslate2
import numpy as np


def _key(window: np.ndarray) -> bytes:
    contiguous = np.ascontiguousarray(window)
    return hashlib.blake2b(contiguous.tobytes(), digest_size=16, person=str(contiguous.shape).encode()[:16]).digest()


def host_rows(encoded: Any) -> np.ndarray:
    """An encoder output (a StorageView on the model's device) as a host array, a window a row.
    CTranslate2 moves a host output back to the model's device, in its type, when it is used."""
    if isinstance(encoded, ctranslate2.StorageView):
        if encoded.device != "cpu":
            encoded = encoded.to_device(ctranslate2.Device.cpu)
        if encoded.dtype not in (ctranslate2.DataType.float32, ctranslate2.DataType.float16):
            encoded = encoded.to(ctranslate2.DataType.float32)  # numpy has no bfloat16
    return np.asarray(encoded)


class _Pass:
    """One encoder pass: its output as the encoder gave it (on the model's device), and, made the
    first time a window of it is asked for in other company, its rows on the host."""

    def __init__(self, output: Any, keys: list[bytes]) -> None:
        self.output = output
        self.keys = keys
        self._rows: np.ndarray | None = None

    def row(self, at: int) -> np.ndarray:
        if self._rows is None:
            self._rows = host_rows(self.output)
        return self._rows[at]


class EncoderMemo:
    """Wraps WhisperModel.encode: the encoder output of each window still in use, by its features
    (at most `size` windows, the least recently used dropped first)."""

    def __init__(self, encode: Callable[[np.ndarray], Any], size: int = 64) -> None:
        self._encode = encode
        self._size = size
        #: Each window's pass and its row in it, and the owners holding it.
        self._outputs: OrderedDict[bytes, tuple[_Pass, int, set[Any]]] = OrderedDict()
        #: Whom each encoding thread serves (serving()): passes run in several threads at once.
        self._thread = threading.local()
        self._lock = threading.Lock()
        #: Encoder passes made, and the windows they encoded.
        self.passes = 0
        self.windows = 0

    @contextlib.contextmanager
    def serving(self, owners: Collection[Any]) -> Iterator[None]:
        """The encodes this thread makes meanwhile are those owners'."""
        self._thread.owners = owners
        try:
            yield
        finally:
            self._thread.owners = ()

    @property
    def _serving(self) -> Collection[Any]:
        return getattr(self._thread, "owners", ())

    def __call__(self, features: np.ndarray) -> Any:
        """The encoder output of a window (mels × frames) or a stack of them, as one stack."""
        windows = features[None] if features.ndim == 2 else features
        keys = [_key(window) for window in windows]
        kept: dict[bytes, tuple[_Pass, int]] = {}
        with self._lock:
            for key in keys:
                if key in self._outputs:
                    self._outputs.move_to_end(key)
                    made, at, owners = self._outputs[key]
                    owners.update(self._serving)
                    kept[key] = (made, at)
        missing = list(dict.fromkeys(key for key in keys if key not in kept))
        if missing:
            first = {key: at for at, key in reversed(list(enumerate(keys)))}
            made = _Pass(self._encode(np.stack([windows[first[key]] for key in missing])), missing)
            with self._lock:
                self.passes += 1
                self.windows += len(missing)
                for at, key in enumerate(missing):
                    self._outputs[key] = (made, at, set(self._serving))
                    kept[key] = (made, at)
                self._trim()
        whole = kept[keys[0]][0]
        if whole.keys == keys and all(kept[key][0] is whole for key in keys):
            # The windows of one pass, as it was made: its output as it is, on the model's device.
            return whole.output
        return _stacked([made.row(at) for made, at in (kept[key] for key in keys)])

    def apart(self, features: np.ndarray) -> Any:
        """The encoder output of `features`, neither kept nor counted: one its caller keeps itself."""
        return self._encode(features)

    def holds(self, window: np.ndarray) -> bool:
        with self._lock:
            return _key(window) in self._outputs

    def keep(self, window: np.ndarray, output: np.ndarray) -> None:
        """Keeps `output` (frames × width, on the host) as the encoder output of `window` (mels ×
        frames), for the owners served meanwhile: one made otherwise than by the encoder (a packed
        stretch's frames laid on a window of silence, decoding.py)."""
        key = _key(window)
        with self._lock:
            self._outputs[key] = (_Pass(_stacked([output]), [key]), 0, set(self._serving))
            self._outputs.move_to_end(key)
            self._trim()

    def _trim(self) -> None:
        """Drops the least recently used outputs beyond `size` (the lock held)."""
        while len(self._outputs) > self._size:
            self._outputs.popitem(last=False)

    def release(self, owner: Any) -> None:
        """Drops the outputs no owner but this one still holds."""
        with self._lock:
            for key, (_, _, owners) in list(self._outputs.items()):
                owners.discard(owner)
                if not owners:
                    del self._outputs[key]

    def clear(self) -> None:
        with self._lock:
            self._outputs.clear()


def _stacked(rows: list[np.ndarray]) -> ctranslate2.StorageView:
    return ctranslate2.StorageView.from_array(np.ascontiguousarray(np.stack(rows)))
