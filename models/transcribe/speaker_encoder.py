"""Speaker embeddings without torch: Resemblyzer's GE2E voice encoder, run in numpy.

The pretrained weights (`pretrained.pt`, 17 MB, Apache-2.0) come with the pinned `resemblyzer`
package, installed without its dependencies: its Python code (which needs torch) is never
imported. The checkpoint is torch's legacy pickle format, read here by a restricted unpickler
that only rebuilds tensors. The network is a 3-layer LSTM over 40-band mel frames (25 ms window,
10 ms hop), whose last hidden state goes through a linear layer, a ReLU and an L2 norm into a
256-dimensional d-vector.
"""

from __future__ import annotations

import collections
import importlib.util
import pickle
import struct
from pathlib import Path
from typing import Any

import numpy as np
from faster_whisper.feature_extractor import FeatureExtractor

SAMPLE_RATE = 16000
N_FFT = 400
HOP = 160
N_MELS = 40
#: Frames per embedded window (1.6 s), as the encoder was trained.
PARTIAL_FRAMES = 160
_DTYPES = {
    "FloatStorage": np.float32,
    "DoubleStorage": np.float64,
    "LongStorage": np.int64,
    "IntStorage": np.int32,
    "HalfStorage": np.float16,
}


class _Storage:
    def __init__(self, dtype: Any) -> None:
        self.dtype = dtype
        self.data: np.ndarray | None = None


def _rebuild_tensor(
    storage: _Storage, offset: int, size: tuple[int, ...], stride: tuple[int, ...], *_: Any
) -> tuple[Any, ...]:
    return ("tensor", storage, offset, tuple(size), tuple(stride))


class _Unpickler(pickle.Unpickler):
    """Rebuilds tensors and dicts only; anything else in the file is refused."""

    def __init__(self, file: Any, storages: dict[str, _Storage]) -> None:
        super().__init__(file)
        self.storages = storages

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return _rebuild_tensor
        if module == "torch" and name in _DTYPES:
            return name
        if (module, name) == ("collections", "OrderedDict"):
            return collections.OrderedDict
        raise pickle.UnpicklingError(f"refusing to load {module}.{name}")

    def persistent_load(self, pid: Any) -> _Storage:
        _, storage_type, key = pid[:3]
        return self.storages.setdefault(key, _Storage(_DTYPES[storage_type]))


def load_legacy_checkpoint(path: Path) -> dict[str, Any]:
    with open(path, "rb") as f:
        for _ in range(3):  # magic number, protocol version, system info
            pickle.load(f)
        storages: dict[str, _Storage] = {}
        root = _Unpickler(f, storages).load()
        for key in pickle.load(f):
            (count,) = struct.unpack("<q", f.read(8))
            storage = storages[key]
            storage.data = np.frombuffer(f.read(count * np.dtype(storage.dtype).itemsize), dtype=storage.dtype)

    def materialize(value: Any) -> Any:
        if isinstance(value, tuple) and value and value[0] == "tensor":
            _, storage, offset, size, stride = value
            data = storage.data
            return np.lib.stride_tricks.as_strided(
                data[offset:], shape=size, strides=tuple(s * data.itemsize for s in stride)
            ).copy()
        if isinstance(value, dict):
            return {k: materialize(v) for k, v in value.items()}
        return value

    return materialize(root)


def bundled_weights() -> Path:
    spec = importlib.util.find_spec("resemblyzer")  # locates the package without running it
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the resemblyzer package (speaker encoder weights) is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "pretrained.pt"


class SpeakerEncoder:
    def __init__(self, weights: Path | None = None) -> None:
        state = load_legacy_checkpoint(weights or bundled_weights())["model_state"]
        self.layers = [
            (
                state[f"lstm.weight_ih_l{k}"],
                state[f"lstm.weight_hh_l{k}"],
                state[f"lstm.bias_ih_l{k}"] + state[f"lstm.bias_hh_l{k}"],
            )
            for k in range(3)
        ]
        self.linear_weight, self.linear_bias = state["linear.weight"], state["linear.bias"]
        self.mel_filters = FeatureExtractor.get_mel_filters(SAMPLE_RATE, N_FFT, n_mels=N_MELS).astype(np.float32)
        self.window = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(N_FFT) / N_FFT)).astype(np.float32)

    def mel_frames(self, audio: np.ndarray) -> np.ndarray:
        """Power mel spectrogram, (frames, 40), 10 ms apart, after normalising the volume to -30 dBFS."""
        rms = float(np.sqrt(np.mean(audio**2))) if audio.size else 0.0
        wav = audio * (10 ** (-30 / 20) / rms) if rms > 0 else audio
        padded = np.pad(wav.astype(np.float32), N_FFT // 2, mode="reflect")
        count = 1 + (len(padded) - N_FFT) // HOP
        frames = np.lib.stride_tricks.as_strided(padded, (count, N_FFT), (padded.strides[0] * HOP, padded.strides[0]))
        power = np.abs(np.fft.rfft(frames * self.window, axis=1)) ** 2
        return (power @ self.mel_filters.T).astype(np.float32)

    def embed(self, windows: np.ndarray) -> np.ndarray:
        """(batch, 160, 40) mel windows → (batch, 256) unit d-vectors."""
        sequence = windows.astype(np.float32)
        for w_ih, w_hh, bias in self.layers:
            batch, steps, _ = sequence.shape
            hidden = w_hh.shape[1]
            h = np.zeros((batch, hidden), np.float32)
            c = np.zeros((batch, hidden), np.float32)
            inputs = sequence @ w_ih.T + bias
            out = np.empty((batch, steps, hidden), np.float32)
            for t in range(steps):
                gates = inputs[:, t] + h @ w_hh.T
                i = 1 / (1 + np.exp(-gates[:, :hidden]))
                f = 1 / (1 + np.exp(-gates[:, hidden : 2 * hidden]))
                g = np.tanh(gates[:, 2 * hidden : 3 * hidden])
                o = 1 / (1 + np.exp(-gates[:, 3 * hidden :]))
                c = f * c + i * g
                h = o * np.tanh(c)
                out[:, t] = h
            sequence = out
        embedding = np.maximum(sequence[:, -1] @ self.linear_weight.T + self.linear_bias, 0)
        return embedding / (np.linalg.norm(embedding, axis=1, keepdims=True) + 1e-9)
