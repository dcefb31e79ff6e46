"""Whisper over stretches of speech, in a language given: one stretch at a time (a CPU), or many in
one batch with faster-whisper's batched pipeline (a GPU, where a batch costs little more than one).

Both answer, per stretch, the decoded segments with times from the stretch's start.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Protocol

import numpy as np
from faster_whisper import BatchedInferencePipeline, WhisperModel

from audio_stream import SAMPLE_RATE
from speech import Stretch

#: Decoding settings of every pass (faster-whisper's own default beam, stated: the benchmark's raw
#: faster-whisper side runs with the defaults).
DECODE_OPTIONS: dict[str, Any] = {"beam_size": 5}
#: Each stretch is decoded on its own: the text of the stretch before (perhaps in another
#: language) must not steer it, and a loop cannot carry over.
_STRETCH_OPTIONS: dict[str, Any] = {"condition_on_previous_text": False, "vad_filter": False, **DECODE_OPTIONS}
#: Stretches decoded together by the batched pipeline.
BATCH_SIZE = 16
#: A stretch whose decoded segments end further than this before the stretch does has speech after
#: them (a stretch ends 0.2 s after its speech, and holds no pause of a second or more; Whisper's
#: timestamps may be half a second early).
UNFINISHED_GAP_SECONDS = 1.5


class Decoder(Protocol):
    #: How many stretches it takes at once.
    batch: int

    def decode(self, stretches: list[Stretch], language: str, task: str, words: bool) -> list[list[Any]]: ...


class SequentialDecoder:
    batch = 1

    def __init__(self, model: WhisperModel) -> None:
        self.model = model

    def decode(self, stretches: list[Stretch], language: str, task: str, words: bool) -> list[list[Any]]:
        return [
            list(self.model.transcribe(stretch.audio, language=language, task=task, word_timestamps=words, **_STRETCH_OPTIONS)[0])
            for stretch in stretches
        ]


class BatchedDecoder:
    """The stretches laid end to end as one audio, each a clip of the batched pipeline."""

    batch = BATCH_SIZE

    def __init__(self, model: WhisperModel) -> None:
        self.pipeline = BatchedInferencePipeline(model=model)

    def decode(self, stretches: list[Stretch], language: str, task: str, words: bool) -> list[list[Any]]:
        out = self._decode(stretches, language, task, words)
        # The batched pipeline keeps only the segments Whisper closed with a timestamp: speech that
        # runs to the end of a window comes back unfinished and is dropped, where the sequential
        # decoder would seek to the last timestamp and decode the rest. So the rest of each such
        # stretch is decoded once more, in one more batch.
        cut = {k: unfinished_from(stretch.seconds, segments) for k, (stretch, segments) in enumerate(zip(stretches, out))}
        rest = {k: at for k, at in cut.items() if at is not None}
        if rest:
            tails = [tail(stretches[k], at) for k, at in rest.items()]
            for (k, at), segments in zip(rest.items(), self._decode(tails, language, task, words)):
                out[k].extend(shifted(segment, at) for segment in segments)
        return out

    def _decode(self, stretches: list[Stretch], language: str, task: str, words: bool) -> list[list[Any]]:
        audio = np.concatenate([stretch.audio for stretch in stretches])
        starts = np.cumsum([0] + [stretch.audio.size for stretch in stretches]) / SAMPLE_RATE
        clips = [{"start": float(starts[i]), "end": float(starts[i + 1])} for i in range(len(stretches))]
        segments, _ = self.pipeline.transcribe(
            audio,
            language=language,
            task=task,
            word_timestamps=words,
            clip_timestamps=clips,
            without_timestamps=False,
            batch_size=self.batch,
            **DECODE_OPTIONS,
        )
        out: list[list[Any]] = [[] for _ in stretches]
        for segment in segments:
            # By its middle: a clip's first segment can start a little before the clip does (times
            # rounded to the millisecond, words aligned a frame early).
            middle = (segment.start + segment.end) / 2
            index = int(np.clip(np.searchsorted(starts, middle, side="right") - 1, 0, len(stretches) - 1))
            out[index].append(shifted(segment, -float(starts[index])))
        return out


def unfinished_from(seconds: float, segments: list[Any]) -> float | None:
    """Where a stretch's decoded text stops short of its speech, if it does: the end of its last
    segment, when more than UNFINISHED_GAP_SECONDS of the stretch follow it. A stretch with no
    segment at all has no speech Whisper heard, and is left so."""
    if not segments or seconds - segments[-1].end <= UNFINISHED_GAP_SECONDS:
        return None
    return float(segments[-1].end)


def tail(stretch: Stretch, seconds: float) -> Stretch:
    """The stretch from `seconds` into it to its end."""
    skip = int(round(seconds * SAMPLE_RATE))
    return Stretch(stretch.start + skip, stretch.end, stretch.audio[skip:])


def shifted(segment: Any, by: float, within: float = float("inf")) -> Any:
    """The segment (and its words) with times kept within [0, `within`] (Whisper's last timestamp
    can run past the audio it was given), then moved by `by` seconds."""

    def moved(time: float) -> float:
        return min(max(time, 0.0), within) + by

    words = [replace(word, start=moved(word.start), end=moved(word.end)) for word in segment.words] if segment.words else segment.words
    return replace(segment, start=moved(segment.start), end=moved(segment.end), words=words)
