"""Audio decoded a block at a time: 16 kHz mono float32, never the whole file in memory.

An hour of audio is 230 MB of float32 samples and faster-whisper's features of it several times
that; the transcriber works through it a block of minutes at a time instead (speech.py carries
a stretch of speech cut by a block's end over into the next block).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import av
import numpy as np

SAMPLE_RATE = 16000
#: How much audio one block holds: VAD and grouping work on one block at a time (Silero VAD
#: holds about eight times its block while it runs: some 30 MB for a minute).
BLOCK_SECONDS = 60


class UndecodableAudio(Exception):
    """The file is not audio PyAV can decode; the message names the decoder's complaint."""


def duration_of(path: str | os.PathLike[str]) -> float | None:
    """The length the container declares, in seconds (None when it declares none)."""
    try:
        with av.open(os.fspath(path), mode="r", metadata_errors="ignore") as container:
            if container.duration:
                return container.duration / av.time_base
            stream = container.streams.audio[0] if container.streams.audio else None
            if stream is not None and stream.duration and stream.time_base:
                return float(stream.duration * stream.time_base)
    except (av.FFmpegError, IndexError, ValueError):
        return None
    return None


def audio_blocks(path: str | os.PathLike[str], block_seconds: float = BLOCK_SECONDS) -> Iterator[np.ndarray]:
    """The file's audio, resampled to 16 kHz mono, in blocks of `block_seconds` (the last shorter).

    Raises UndecodableAudio when the file has no audio stream or its decoding fails."""
    block_samples = int(block_seconds * SAMPLE_RATE)
    resampler = av.audio.resampler.AudioResampler(format="s16", layout="mono", rate=SAMPLE_RATE)
    pending: list[np.ndarray] = []
    held = 0
    try:
        with av.open(os.fspath(path), mode="r", metadata_errors="ignore") as container:
            if not container.streams.audio:
                raise UndecodableAudio("no audio stream")
            for frame in _frames(container):
                for resampled in resampler.resample(frame):
                    pending.append(resampled.to_ndarray().reshape(-1))
                    held += pending[-1].size
                while held >= block_samples:
                    block, pending, held = _take(pending, block_samples)
                    yield block
            for resampled in resampler.resample(None):
                pending.append(resampled.to_ndarray().reshape(-1))
                held += pending[-1].size
    except av.FFmpegError as error:
        raise UndecodableAudio(type(error).__name__) from None
    if held:
        yield _take(pending, held)[0]


def _frames(container: av.container.InputContainer) -> Iterator[av.AudioFrame]:
    """The audio frames, past frames the decoder rejects (as faster-whisper's decode_audio does)."""
    frames = container.decode(audio=0)
    while True:
        try:
            yield next(frames)
        except StopIteration:
            return
        except av.error.InvalidDataError:
            continue


def _take(pending: list[np.ndarray], count: int) -> tuple[np.ndarray, list[np.ndarray], int]:
    """The first `count` samples as float32, and what is left."""
    joined = np.concatenate(pending) if len(pending) > 1 else pending[0]
    block = joined[:count].astype(np.float32) / 32768.0
    rest = joined[count:]
    return block, ([rest] if rest.size else []), int(rest.size)
