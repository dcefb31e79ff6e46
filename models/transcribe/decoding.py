"""Whisper over stretches of speech: many in one batch with faster-whisper's batched pipeline, on a
GPU and on a CPU alike.

On a CPU it replaced Whisper's own long-form decoding a stretch at a time, which it beats one clip
after another as well as many at once (measured on 2 cores, Whisper base int8, 8 clips of 30 s
half in German: 4.3 audio s/s one after another against 2.2, whose fallbacks to higher
temperatures decode a stretch again; 5.9–6.2 at once). A CPU's pass costs nearly in proportion to
its stretches (the decoder 28 ms a token alone, 16 for each of 4, 13 for each of 8), a GPU's little
more for sixteen than for one.

It hears each stretch's language from the encoder pass its decoding of the same stretches reuses
(EncoderMemo: the windows are cut exactly as the decode cuts them), the language of each stretch of
a pack from its own frames of the same output (and decodes a stretch of a pack from those frames,
laid on a window of silence, where asked: _lay), and answers, per stretch, the decoded segments
with times from the stretch's start.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any, Protocol

import ctranslate2
import numpy as np
from faster_whisper import BatchedInferencePipeline, WhisperModel
from faster_whisper.audio import pad_or_trim

from audio_stream import SAMPLE_RATE
from encoder_memo import host_rows
from speech import Stretch

#: Decoding settings of every pass (faster-whisper's own default beam, stated: the benchmark's raw
#: faster-whisper side runs with the defaults).
DECODE_OPTIONS: dict[str, Any] = {"beam_size": 5}
#: Stretches decoded together by the batched pipeline.
BATCH_SIZE = 16
#: Predictions one model server takes at once on a CPU. More fill its passes better, but each
#: waits longer (and is billed its wait): 16 clips of 30 s, 2 cores, at most 4, 8 or 16 at once,
#: 5.3-5.4, 5.8-5.9 and 6.2 audio s/s.
CPU_CONCURRENCY = 8
#: Stretches a CPU's pass takes at most where its passes run in lanes (cpu_lanes).
CPU_PASS = 4
#: Fewer words a second than this in a stretch (speech runs at two or three) and Whisper passed over
#: it: it is decoded again (BatchedDecoder._hear_skipped_again).
HEARD_WORDS_PER_SECOND = 0.5
#: One Whisper window of audio (30 s).
WINDOW_SAMPLES = 30 * SAMPLE_RATE
#: Audio samples to one frame of the encoder's output (a hop of 160 samples, halved by its strided convolution).
ENCODER_FRAME_SAMPLES = 320
#: What ends a sentence, in the scripts Whisper writes.
SENTENCE_ENDS = (".", "?", "!", "。", "？", "！", "…")


def concurrency_for(gpus: int) -> int:
    """A Whisper predictor folder's `concurrency.max` (cog.yaml), from its fleet's hardware
    (models/manifest.json): on a GPU a batch, since the predictions in flight share its passes
    (decode_scheduler.py) and a short clip brings one or two stretches at a time, so it takes
    about a batch of them to fill one; on a CPU, CPU_CONCURRENCY (its passes fill from the
    predictions in flight too, but gain less a stretch: 6 % from 8 at once to 16)."""
    return BATCH_SIZE if gpus > 0 else CPU_CONCURRENCY


def cpu_lanes(cores: int) -> int:
    """Passes a CPU runs at once (DecodeScheduler's lanes), each on a CTranslate2 worker of its own
    with `cores // lanes` threads: as many as make passes of CPU_PASS from CPU_CONCURRENCY
    predictions, one a core at most. A pass over threads splits and joins every operation: on 2
    cores, faster-whisper's batched pipeline over bench §9's 32 English clips took 40.2–40.6 s in
    one call (2 threads, batches of 16) against 31.1–31.5 s in two calls at once (one thread each,
    batches of 4) and 32.8–33.9 s (batches of 8)."""
    return max(1, min(cores, CPU_CONCURRENCY // CPU_PASS))


#: A language Whisper heard (its code) and its probability.
Detected = tuple[str, float]


class Decoder(Protocol):
    #: How many stretches it takes at once.
    batch: int
    #: Whether a transcription pass times its words whether or not they are asked for (`words` then
    #: only says whether they are kept): stretches with and without them can share a pass.
    always_aligns: bool

    def languages(self, stretches: list[Stretch]) -> list[Detected]: ...

    def piece_languages(self, packs: list[Stretch]) -> list[list[Detected]]: ...

    def decode(self, stretches: list[Stretch], language: str, task: str, words: bool) -> list[list[Any]]: ...


class BatchedDecoder:
    """The stretches laid end to end as one audio, each a clip of the batched pipeline.

    Decoded without timestamp tokens: on a GPU a batch with them costs about eight times as much
    (measured on an H100: 2.9 s against 0.33 s for thirteen stretches of Whisper base), and the
    pipeline drops a segment Whisper leaves unclosed at a window's end. Each stretch comes back as
    one segment with word times (their alignment costs a fraction of the decode), cut into sentences.
    """

    batch = BATCH_SIZE
    always_aligns = True

    def __init__(self, model: WhisperModel) -> None:
        if not isinstance(model.feature_extractor, SilencePadded):
            model.feature_extractor = SilencePadded(model.feature_extractor)
        self.model = model
        self.padding: SilencePadded = model.feature_extractor
        #: A pipeline for each thread that runs passes: it keeps the last word's time of its call.
        self._pipelines = threading.local()
        #: The encoder output of a window of silence (_lay), made the first time it is needed.
        self._silence: np.ndarray | None = None

    def languages(self, stretches: list[Stretch]) -> list[Detected]:
        # All in one encoder pass, the windows stacked as the pipeline stacks a batch's: a batch of
        # these same stretches (one language, all of them) is then decoded without encoding again.
        return _detected(self.model, np.stack([_window(self.model, stretch) for stretch in stretches]))

    def piece_languages(self, packs: list[Stretch]) -> list[list[Detected]]:
        """Each packed stretch's language, heard from its own frames of its pack's encoder output
        (the output the pack's language was heard from, which the memo keeps): no window is encoded
        again. A pack heard whole leans to the language other than English; a stretch's own frames
        do not (over bench §9's 137 packed stretches, 128 heard as in a window of their own, and
        none of the 9 others taken for English or German: their languages were others, mostly unsure)."""
        rows = host_rows(self.model.encode(np.stack([_window(self.model, pack) for pack in packs])))
        heard: list[list[Detected]] = []
        for pack, encoded in zip(packs, rows, strict=True):
            bounds = [at // ENCODER_FRAME_SAMPLES for at, _ in pack.pieces] + [pack.audio.size // ENCODER_FRAME_SAMPLES]
            frames = [encoded[start : max(end, start + 1)] for start, end in itertools.pairwise(bounds)]
            heard.append([_detected_encoded(self.model, piece[None])[0] for piece in frames])
        return heard

    def decode(self, stretches: list[Stretch], language: str, task: str, words: bool) -> list[list[Any]]:
        # A translation is used as text alone; a transcription needs its times.
        timed = task == "transcribe"
        out = self._decoded(stretches, language, task, timed)
        if not timed:
            return out
        self._hear_skipped_again(stretches, out, language)
        return [segments if words else [replace(segment, words=None) for segment in segments] for segments in out]

    def _decoded(self, stretches: list[Stretch], language: str, task: str, timed: bool) -> list[list[Any]]:
        """Each stretch's segments, times from its start; timed, cut into sentences, with their words."""
        for stretch in stretches:
            if stretch.heard_in is not None:
                self._lay(stretch)
        audio = np.concatenate([stretch.audio for stretch in stretches])
        bounds = np.cumsum([0] + [stretch.audio.size for stretch in stretches])
        starts = bounds / SAMPLE_RATE
        # Half a sample in: the pipeline cuts at int(seconds × rate), which at an exact boundary
        # can fall a sample short, and a window cut otherwise than languages() cut it is encoded again.
        clips = [
            {"start": (bounds[i] + 0.5) / SAMPLE_RATE, "end": (bounds[i + 1] + 0.5) / SAMPLE_RATE}
            for i in range(len(stretches))
        ]
        segments, _ = self._pipeline().transcribe(
            audio,
            language=language,
            task=task,
            word_timestamps=timed,
            clip_timestamps=clips,
            without_timestamps=True,
            batch_size=self.batch,
            **DECODE_OPTIONS,
        )
        out: list[list[Any]] = [[] for _ in stretches]
        for segment in segments:
            # By its middle: a clip's first word can start a little before the clip does (times
            # rounded to the millisecond, words aligned a frame early).
            middle = (segment.start + segment.end) / 2
            index = int(np.clip(np.searchsorted(starts, middle, side="right") - 1, 0, len(stretches) - 1))
            moved = shifted(segment, -float(starts[index]))
            out[index].extend(sentences(moved, stretches[index].joins) if timed else [moved])
        return out

    def _pipeline(self) -> BatchedInferencePipeline:
        pipeline = getattr(self._pipelines, "pipeline", None)
        if pipeline is None:
            pipeline = self._pipelines.pipeline = self.new_pipeline()
        return pipeline

    def new_pipeline(self) -> BatchedInferencePipeline:
        return BatchedInferencePipeline(model=self.model)

    def _lay(self, stretch: Stretch) -> None:
        """The encoder output of a stretch of a pack (Stretch.piece): its own frames of the pack's
        output (which the memo keeps, else encoded again) laid where they are on a window of encoded
        silence, kept as its window's. Over 20 stretches of bench §9's packs reading English and
        German, decoded so against each in a window of its own: word error rate 0.045 on average,
        0.29 at most (a 4-s stretch, two words of seven); with the frames moved to the window's
        start, 0.72 at most. Which stretches are decoded so is pack_gate.first_run's rule."""
        assert stretch.heard_in is not None
        window = _window(self.model, stretch)
        memo = self.model.encode
        if memo.holds(window):
            return
        pack = host_rows(memo(_window(self.model, stretch.heard_in)[None]))[0]
        if self._silence is None:
            silence = Stretch(0, 0, np.zeros(SAMPLE_RATE, np.float32))
            self._silence = host_rows(memo.apart(_window(self.model, silence)[None]))[0]
        laid = self._silence.astype(pack.dtype, copy=True)
        start, end = stretch.lead // ENCODER_FRAME_SAMPLES, stretch.audio.size // ENCODER_FRAME_SAMPLES
        laid[start:end] = pack[start:end]
        memo.keep(window, laid)

    def _hear_skipped_again(self, stretches: list[Stretch], out: list[list[Any]], language: str) -> None:
        """Whisper at times passes over a window's speech whole, or one stretch of a pack: a stretch
        (or a packed one) with fewer words than HEARD_WORDS_PER_SECOND is decoded again in a window
        of its own, padded the other way (SilencePadded.as_faster_whisper); what it says there takes
        the place of the first decode's if it has more words and hears the stretch (at that rate
        itself: a phrase Whisper invents over noise, "Thank you.", does not). Over 73 stretches of
        English, each in a window of its own, Whisper base passed over 1 padded with silence and
        none padded with zero features; packed into 32 windows, 4 of them against 11."""
        skipped: list[tuple[int, float, Stretch, int]] = []
        for k, stretch in enumerate(stretches):
            for at, piece in zip(stretch.offsets, stretch.unpacked(), strict=True):
                said = sum(1 for segment in out[k] for w in segment.words or [] if _within(w, at, piece.seconds))
                if said < piece.seconds * HEARD_WORDS_PER_SECOND:
                    skipped.append((k, at, piece, said))
        if not skipped:
            return
        with self.padding.as_faster_whisper():
            again = self._decoded([piece for _, _, piece, _ in skipped], language, "transcribe", True)
        for (k, at, piece, said), segments in zip(skipped, again, strict=True):
            heard = sum(len(segment.words or []) for segment in segments)
            if heard <= said or heard < piece.seconds * HEARD_WORDS_PER_SECOND:
                continue
            kept = [segment for segment in out[k] if not _within(segment, at, piece.seconds)]
            out[k] = sorted([*kept, *(shifted(segment, at) for segment in segments)], key=lambda s: s.start)


class SilencePadded:
    """A feature extractor whose audio shorter than a window is padded with silence to one window
    before its log-Mel features are taken, as Whisper was trained (and openai-whisper pads), rather
    than its features padded with zeros afterwards, as faster-whisper pads a short window: a zero
    feature is a log-Mel power of 10⁻⁴, where silence is held 8 decades below the loudest frame's
    (a sound, to Whisper, not a pause). Padded with zeros, Whisper base passed over a whole stretch
    in 11 of 73 stretches packed into 32 windows of English (`language: en`); padded with silence,
    in 4."""

    def __init__(self, extractor: Any) -> None:
        self.extractor = extractor
        #: Whether a thread pads as faster-whisper does (as_faster_whisper): passes run in several at once.
        self._thread = threading.local()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.extractor, name)

    @property
    def silence(self) -> bool:
        return not getattr(self._thread, "as_faster_whisper", False)

    @contextlib.contextmanager
    def as_faster_whisper(self) -> Iterator[None]:
        """Within it, the windows this thread takes features of are padded as faster-whisper pads them."""
        self._thread.as_faster_whisper = True
        try:
            yield
        finally:
            self._thread.as_faster_whisper = False

    def __call__(self, waveform: np.ndarray, padding: int = 160, chunk_length: int | None = None) -> np.ndarray:
        short = WINDOW_SAMPLES - waveform.shape[-1] if self.silence else 0
        return self.extractor(waveform, padding=padding + max(short, 0), chunk_length=chunk_length)


def _within(timed: Any, start: float, seconds: float) -> bool:
    """Whether a segment's or a word's middle falls in [start, start + seconds)."""
    return start <= (timed.start + timed.end) / 2 < start + seconds


def _window(model: WhisperModel, stretch: Stretch) -> np.ndarray:
    """A stretch's first 30 s of features, cut as the batched pipeline cuts a window (the last
    frame dropped, padded or trimmed to 30 s)."""
    return pad_or_trim(model.feature_extractor(stretch.audio)[..., :-1])


def _detected(model: WhisperModel, windows: np.ndarray) -> list[Detected]:
    """The likeliest language of each window (one window, or a stack of them)."""
    return _detected_encoded(model, model.encode(windows))


def _detected_encoded(model: WhisperModel, encoded: Any) -> list[Detected]:
    """The likeliest language of each encoder output (any number of frames: CTranslate2 takes an
    output whose frames are not a whole window's)."""
    if isinstance(encoded, np.ndarray):
        encoded = ctranslate2.StorageView.from_array(np.ascontiguousarray(encoded))
    found = model.model.detect_language(encoded)
    return [(likeliest[0][0][2:-2], likeliest[0][1]) for likeliest in found]


def sentences(segment: Any, joins: Sequence[float] = ()) -> list[Any]:
    """A segment cut after each word that ends a sentence, and at each of `joins` (where a packed
    stretch begins: a pause in the whole audio), each piece timed by its words, which it keeps. A
    segment without words is kept as it is."""
    if not segment.words:
        return [segment]
    pieces: list[list[Any]] = [[]]
    upcoming = iter(sorted(joins))
    join = next(upcoming, float("inf"))
    for word in segment.words:
        crossed = False
        # By its middle: a word is aligned a frame early or late as often as not.
        while (word.start + word.end) / 2 >= join:
            crossed, join = True, next(upcoming, float("inf"))
        if pieces[-1] and (crossed or pieces[-1][-1].word.strip().endswith(SENTENCE_ENDS)):
            pieces.append([])
        pieces[-1].append(word)
    return [
        replace(
            segment,
            start=piece[0].start,
            end=piece[-1].end,
            text="".join(w.word for w in piece),
            words=piece,
        )
        for piece in pieces
    ]


def shifted(segment: Any, by: float) -> Any:
    """The segment (and its words) moved by `by` seconds."""
    return retimed(segment, lambda start, end: (start + by, end + by))


def retimed(segment: Any, span_of: Callable[[float, float], tuple[float, float]]) -> Any:
    """The segment with its words' spans, and its own, replaced by `span_of(start, end)`; a segment
    with words spans them."""
    if not segment.words:
        start, end = span_of(segment.start, segment.end)
        return replace(segment, start=start, end=end)
    words = []
    for word in segment.words:
        start, end = span_of(word.start, word.end)
        words.append(replace(word, start=start, end=end))
    return replace(segment, start=words[0].start, end=words[-1].end, words=words)
