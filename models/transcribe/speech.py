"""Where the speech is: stretches of speech found by faster-whisper's Silero VAD, each short enough
for one Whisper window, cut at pauses so that each can be heard in its own language.

Silence, noise and music between stretches are never given to Whisper, which is where it invents
text ("Thank you.", loops of one phrase). Audio comes a block at a time (audio_stream.py); a
stretch that runs into the end of a block is held back and found again whole in the next.

Consecutive stretches are packed into one window, as faster-whisper's batched pipeline packs its
speech (packed()): decoded whole in the caller's language, or in the one heard where Whisper is
sure of it, in the pack and in each of its stretches; else its first run of one language is decoded
from its frames of the pack's encoder output (Stretch.piece), the stretches after it are packed
again and heard as a pack of their own, and the stretches after the pack are heard on their own
until a few in a row are heard surely in one language (pack_gate.py).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import numpy as np
from faster_whisper.vad import VadOptions, get_speech_timestamps

from audio_stream import SAMPLE_RATE

#: A stretch is at most this long: the last half-second of its Whisper window (30 s) is silence.
#: Whisper base heard 2 words in a 30-s stretch of speech that filled its window, and 73 in the
#: same speech cut at 29.5 s.
MAX_STRETCH_SECONDS = 29.5
#: Speech closer than this to the one before joins its stretch; a longer pause starts a new one
#: (and a language may change there).
SPLIT_PAUSE_SECONDS = 1.0
VAD = VadOptions(
    min_silence_duration_ms=500,
    # Chunks stay under one window with their padding; long speech is split at its shortest pauses.
    max_speech_duration_s=MAX_STRETCH_SECONDS - 1,
    speech_pad_ms=200,
)


@dataclass(frozen=True)
class Stretch:
    """A stretch of speech: samples [start, end) of the whole audio, and those samples; or several
    stretches packed into one (packed()), their samples one after another without the pauses
    between them."""

    start: int
    end: int
    audio: np.ndarray
    #: Where each packed stretch begins: (in `audio`, in the whole audio), in samples. Empty for one
    #: stretch, whose `audio` is the whole audio's [start, end).
    pieces: tuple[tuple[int, int], ...] = ()
    #: A stretch of a pack decoded from its own frames of the pack's encoder output (piece()): the
    #: pack; and where in `audio` the stretch begins, silence before it, as long as the pack's
    #: stretches before it.
    heard_in: Stretch | None = None
    lead: int = 0

    @property
    def start_seconds(self) -> float:
        return self.start / SAMPLE_RATE

    @property
    def end_seconds(self) -> float:
        return self.end / SAMPLE_RATE

    @property
    def seconds(self) -> float:
        """How long `audio` is."""
        return self.audio.size / SAMPLE_RATE

    @property
    def joins(self) -> list[float]:
        """Where in `audio` (seconds) each packed stretch after the first begins."""
        return [at / SAMPLE_RATE for at, _ in self.pieces[1:]]

    @property
    def offsets(self) -> list[float]:
        """Where in `audio` (seconds) each of unpacked() begins."""
        return [self.lead / SAMPLE_RATE, *self.joins]

    def unpacked(self) -> list[Stretch]:
        """The stretches packed into this one, in order (itself alone if it is one stretch, its own
        audio alone if it is a stretch of a pack)."""
        if self.heard_in is not None:
            return [Stretch(self.start, self.end, self.audio[self.lead :])]
        if not self.pieces:
            return [self]
        return [
            Stretch(whole, whole + self._piece_end(k) - at, self.audio[at : self._piece_end(k)])
            for k, (at, whole) in enumerate(self.pieces)
        ]

    def _piece_end(self, k: int) -> int:
        """Where in `audio` the k-th packed stretch ends: where the next begins, or the audio's end."""
        return self.pieces[k + 1][0] if k + 1 < len(self.pieces) else self.audio.size

    def piece(self, k: int) -> Stretch:
        """The k-th stretch packed into this one, where it is in the pack, silence before it: decoded
        from its own frames of this pack's encoder output, laid on a window of silence (decoding.py),
        so that no window is encoded for it. Its window is never the pack's, nor its own alone
        (unless it is the first), whose outputs the encoder's memo may hold."""
        at, whole = self.pieces[k]
        end = self._piece_end(k)
        audio = np.concatenate([np.zeros(at, dtype=self.audio.dtype), self.audio[at:end]])
        return Stretch(whole, whole + end - at, audio, heard_in=self, lead=at)

    def whole_span(self, start: float, end: float) -> tuple[float, float]:
        """A span of `audio` (seconds from its start, kept within it, or within the stretch's own part
        of it: Whisper's last times can run past the audio it was given) as a span of the whole
        audio. In a pack, the span is kept within the stretch its middle falls in: a word aligned
        across a join stays on one side."""
        first, last = (min(max(time * SAMPLE_RATE, self.lead), self.audio.size) for time in (start, end))
        if not self.pieces:
            return (self.start + first - self.lead) / SAMPLE_RATE, (self.start + last - self.lead) / SAMPLE_RATE
        index = max(bisect_right([at for at, _ in self.pieces], (first + last) / 2) - 1, 0)
        at, whole = self.pieces[index]
        ends = self._piece_end(index)
        first, last = (min(max(sample, at), ends) for sample in (first, last))
        return (whole + first - at) / SAMPLE_RATE, (whole + last - at) / SAMPLE_RATE


def group(chunks: Iterable[tuple[int, int]], max_span: int, split_pause: int) -> list[tuple[int, int]]:
    """Speech chunks (start, end sample, in order) joined into stretches: a chunk joins the stretch
    before it when the pause between them is shorter than `split_pause` and the stretch, pauses
    included, stays within `max_span` samples."""
    stretches: list[tuple[int, int]] = []
    for start, end in chunks:
        if stretches and start - stretches[-1][1] < split_pause and end - stretches[-1][0] <= max_span:
            stretches[-1] = (stretches[-1][0], end)
        else:
            stretches.append((start, end))
    return stretches


def _stretches_in(audio: np.ndarray) -> list[tuple[int, int]]:
    chunks = [(chunk["start"], chunk["end"]) for chunk in get_speech_timestamps(audio, VAD, sampling_rate=SAMPLE_RATE)]
    return group(chunks, int(MAX_STRETCH_SECONDS * SAMPLE_RATE), int(SPLIT_PAUSE_SECONDS * SAMPLE_RATE))


def speech_stretches(blocks: Iterable[np.ndarray]) -> Iterator[Stretch]:
    """The stretches of speech in audio that comes in blocks, in order, with absolute positions.

    A stretch that reaches within a pause of its block's end may go on in the next block: it is
    carried over (its samples prepended to the next block) and found again there, whole."""
    carried = np.zeros(0, dtype=np.float32)
    offset = 0  # where `carried` starts in the whole audio
    pending = iter(blocks)
    block = next(pending, None)
    while block is not None:
        following = next(pending, None)
        audio = np.concatenate([carried, block]) if carried.size else block
        found = _stretches_in(audio)
        keep_from = audio.size
        if following is not None and found and audio.size - found[-1][1] < SPLIT_PAUSE_SECONDS * SAMPLE_RATE:
            keep_from = found.pop()[0]
        for start, end in found:
            yield Stretch(offset + start, offset + end, audio[start:end].copy())
        carried = audio[keep_from:].copy() if following is not None else np.zeros(0, dtype=np.float32)
        offset += keep_from
        block = following


def packed(
    stretches: Iterable[Stretch],
    max_seconds: float = MAX_STRETCH_SECONDS,
    packing: Callable[[], bool] = lambda: True,
) -> Iterator[Stretch]:
    """Consecutive stretches packed into one while their audio, laid end to end, fits in
    `max_seconds` (faster-whisper's collect_chunks' rule); a stretch that fits with no other is
    yielded as it is. A pack is yielded once the stretch after it is found (or the audio ends).
    While `packing()` answers False, stretches are yielded as they are (pack_gate.py)."""
    pack: list[Stretch] = []
    size = 0
    limit = int(max_seconds * SAMPLE_RATE)
    for stretch in stretches:
        if pack and (size + stretch.audio.size > limit or not packing()):
            yield pack_of(pack)
            pack, size = [], 0
        # Asked again: the pack just yielded may have been heard meanwhile.
        if not packing():
            yield stretch
            continue
        pack.append(stretch)
        size += stretch.audio.size
    if pack:
        yield pack_of(pack)


def pack_of(stretches: list[Stretch]) -> Stretch:
    """Stretches (each of one stretch) packed into one; one stretch is itself."""
    if len(stretches) == 1:
        return stretches[0]
    starts = np.cumsum([0] + [stretch.audio.size for stretch in stretches[:-1]])
    return Stretch(
        stretches[0].start,
        stretches[-1].end,
        np.concatenate([stretch.audio for stretch in stretches]),
        tuple((int(at), stretch.start) for at, stretch in zip(starts, stretches, strict=True)),
    )
