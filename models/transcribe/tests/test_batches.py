"""How stretches are batched for decoding (by language, in order), how a stretch decoded whole by
the batched pipeline is cut into sentences, and how a packed stretch Whisper passed over is heard
again."""

from __future__ import annotations

import dataclasses
import threading
from typing import Any

import numpy as np
import pytest
from faster_whisper.feature_extractor import FeatureExtractor
from faster_whisper.transcribe import Segment, Word

from audio_stream import SAMPLE_RATE
from decoding import WINDOW_SAMPLES, BatchedDecoder, SilencePadded, sentences
from language_batches import LanguageBatches
from speech import Stretch, packed


def batches_of(batch: int, languages: list[str]) -> tuple[list[tuple[str, list[int]]], list[int]]:
    """The decode calls made for stretches 0..n-1 in these languages, and the results' order."""
    calls: list[tuple[str, list[int]]] = []

    def decode(language: str, items: list[int]) -> list[int]:
        calls.append((language, items))
        return items

    batches: LanguageBatches[int, int] = LanguageBatches(batch, decode)
    handed = [result for i, language in enumerate(languages) for result in batches.add(i, language)]
    handed += list(batches.finish())
    return calls, handed


def test_a_batch_of_one_decodes_each_stretch_as_it_comes() -> None:
    calls, handed = batches_of(1, ["en", "de", "en"])
    assert calls == [("en", [0]), ("de", [1]), ("en", [2])]
    assert handed == [0, 1, 2]


def test_a_clip_that_switches_language_fills_one_batch_per_language() -> None:
    languages = ["en", "en", "de", "de"] * 4  # a switch every two stretches
    calls, handed = batches_of(8, languages)
    assert calls == [("en", [0, 1, 4, 5, 8, 9, 12, 13]), ("de", [2, 3, 6, 7, 10, 11, 14, 15])]
    assert handed == list(range(16))


def test_a_rare_language_is_decoded_within_two_batches_and_results_stay_in_order() -> None:
    languages = ["de"] + ["en"] * 20
    calls, handed = batches_of(4, languages)
    # The German stretch waits at most 2 × 4 stretches, so the English ones behind it are not held longer.
    assert calls[:3] == [("en", [1, 2, 3, 4]), ("en", [5, 6, 7, 8]), ("de", [0])]
    assert handed == list(range(21))


def test_a_short_window_is_padded_with_silence_before_its_features_are_taken() -> None:
    extractor = FeatureExtractor()
    padded = SilencePadded(extractor)
    speech = np.random.default_rng(1).normal(0, 0.1, 7 * SAMPLE_RATE).astype(np.float32)
    features = padded(speech)[..., :-1]  # the last frame dropped, as the batched pipeline drops it
    assert features.shape[-1] == 3000  # one window: nothing left for zero features to fill
    silence = np.zeros(WINDOW_SAMPLES - speech.size, dtype=np.float32)
    assert np.array_equal(features, extractor(np.concatenate([speech, silence]))[..., :-1])
    # The silence, to Whisper, is the quietest the features go, far below a zero feature.
    assert features[:, 1000:].max() < -0.5
    whole = np.tile(speech, 5)[:WINDOW_SAMPLES]
    assert np.array_equal(padded(whole), extractor(whole))  # a full window is as it was
    assert padded.sampling_rate == extractor.sampling_rate  # the rest of it is the extractor's


def test_a_thread_padding_as_faster_whisper_pads_its_own_windows_alone() -> None:
    # Passes run in several threads at once (decode lanes): one hearing a stretch again pads the
    # other way, the others go on padding with silence.
    padded = SilencePadded(FeatureExtractor())
    speech = np.random.default_rng(2).normal(0, 0.1, 7 * SAMPLE_RATE).astype(np.float32)
    inside, outside = threading.Event(), threading.Event()
    seen: dict[str, bool] = {}

    def other_way() -> None:
        with padded.as_faster_whisper():
            inside.set()
            outside.wait(5)
            seen["other way"] = padded.silence
            seen["short features"] = padded(speech).shape[-1] < 3000

    thread = threading.Thread(target=other_way)
    thread.start()
    inside.wait(5)
    seen["meanwhile"] = padded.silence
    seen["meanwhile, a window"] = padded(speech)[..., :-1].shape[-1] == 3000
    outside.set()
    thread.join(5)
    assert seen == {"other way": False, "short features": True, "meanwhile": True, "meanwhile, a window": True}
    assert padded.silence


def test_a_stretch_decoded_whole_is_cut_into_sentences_timed_by_their_words() -> None:
    said = [
        (0.0, 0.4, " And"),
        (0.4, 0.9, " so."),
        (1.2, 1.5, " Ask"),
        (1.5, 2.0, " not?"),
        (2.4, 3.0, " Wir"),
        (3.0, 3.3, " gehen"),
    ]
    words = [Word(start=a, end=b, word=w, probability=0.9) for a, b, w in said]
    whole = Segment(
        id=0,
        seek=0,
        start=0.0,
        end=30.0,
        text="".join(w for _, _, w in said),
        tokens=[1, 2],
        avg_logprob=-0.2,
        compression_ratio=1.2,
        no_speech_prob=0.01,
        words=words,
        temperature=0.0,
    )
    pieces = sentences(whole)
    assert [(p.start, p.end, p.text) for p in pieces] == [
        (0.0, 0.9, " And so."),
        (1.2, 2.0, " Ask not?"),
        (2.4, 3.3, " Wir gehen"),
    ]
    assert all(p.avg_logprob == -0.2 for p in pieces) and [len(p.words or []) for p in pieces] == [2, 2, 2]
    # A packed stretch's joins cut too, by the words' middles ("Ask" 1.2-1.5 is past 1.3, "Wir" is not past 2.8).
    assert [p.text for p in sentences(whole, joins=[1.3, 2.8])] == [" And so.", " Ask not?", " Wir", " gehen"]
    assert [p.text for p in sentences(whole, joins=[0.3])] == [" And", " so.", " Ask not?", " Wir gehen"]
    unspoken = dataclasses.replace(whole, words=None, text="")
    assert sentences(unspoken) == [unspoken]


def _said(start: float, text: str, seconds_a_word: float = 0.5) -> Segment:
    words = [
        Word(start=start + i * seconds_a_word, end=start + (i + 1) * seconds_a_word, word=f" {w}", probability=0.9)
        for i, w in enumerate(text.split())
    ]
    return Segment(
        id=0,
        seek=0,
        start=words[0].start,
        end=words[-1].end,
        text=text,
        tokens=[1],
        avg_logprob=-0.2,
        compression_ratio=1.2,
        no_speech_prob=0.01,
        words=words,
        temperature=0.0,
    )


class _Pipeline:
    """The batched pipeline's answers, one list of segments per call (times in the audio it is
    given), and whether each call's windows were padded with silence."""

    def __init__(self, answers: list[list[Segment]], padding: SilencePadded | None = None) -> None:
        self.answers = answers
        self.padding = padding or SilencePadded(FeatureExtractor())
        self.calls: list[list[tuple[float, float]]] = []
        self.silence: list[bool] = []

    def transcribe(self, audio: np.ndarray, **options: Any) -> tuple[list[Segment], None]:
        self.calls.append([(clip["start"], clip["end"]) for clip in options["clip_timestamps"]])
        self.silence.append(self.padding.silence)
        return self.answers[len(self.calls) - 1], None


def _decoder(pipeline: _Pipeline) -> BatchedDecoder:
    decoder = BatchedDecoder.__new__(BatchedDecoder)
    decoder.batch, decoder.padding, decoder._pipelines = 16, pipeline.padding, threading.local()
    decoder.new_pipeline = lambda: pipeline  # type: ignore[assignment,method-assign,return-value]
    return decoder


def test_a_packed_stretch_whisper_passed_over_is_decoded_again_alone() -> None:
    second = SAMPLE_RATE

    def stretch(start: float, seconds: float) -> Stretch:
        return Stretch(
            int(start * second), int((start + seconds) * second), np.zeros(int(seconds * second), np.float32)
        )

    # A pack of a 10 s stretch (from 0 s) and a 6 s one (from 20 s), then an 8 s stretch alone.
    pack = next(packed([stretch(0, 10), stretch(20, 6)]))
    alone = stretch(40, 8)
    pipeline = _Pipeline(
        [
            # The pack's window heard only its second stretch; the stretch alone is heard.
            [_said(10.5, "Ask not what your country can do."), _said(17, "Hello there my friend.")],
            # The first stretch, in a window of its own.
            [_said(0.5, "And so my fellow Americans.")],
        ]
    )
    decoder = _decoder(pipeline)

    out = decoder.decode([pack, alone], "en", "transcribe", words=True)

    assert len(pipeline.calls) == 2 and len(pipeline.calls[1]) == 1  # the skipped stretch alone, once
    assert pipeline.calls[1][0][1] == pytest.approx(10, abs=0.001)
    assert pipeline.silence == [True, False] and pipeline.padding.silence  # padded the other way, then back
    assert [(s.start, s.text) for s in out[0]] == [
        (0.5, " And so my fellow Americans."),
        (10.5, " Ask not what your country can do."),
    ]
    assert [pack.whole_span(s.start, s.end) for s in out[0]] == [(0.5, 3.0), (20.5, 24.0)]
    assert [(s.start, s.text) for s in out[1]] == [(1.0, " Hello there my friend.")]

    # Both heard: nothing decoded again, and the words go where they were not asked for.
    pipeline = _Pipeline([[_said(1, "And so my fellow Americans."), _said(10.5, "Ask not what your country.")]])
    out = _decoder(pipeline).decode([pack], "en", "transcribe", words=False)
    assert len(pipeline.calls) == 1 and [s.start for s in out[0]] == [1, 10.5]
    assert all(s.words is None for s in out[0])
    # A translation has no words to count: it is never decoded again.
    pipeline = _Pipeline([[_said(11, "Ask not.")]])
    translated = _decoder(pipeline).decode([pack], "de", "translate", words=False)
    assert len(pipeline.calls) == 1 and [s.text for s in translated[0]] == ["Ask not."]


def test_a_stretch_whisper_passed_over_is_decoded_again_and_kept_where_heard_there() -> None:
    # Two 8 s stretches alone: Whisper heard one word of the first, nothing of the second.
    first = Stretch(0, 8 * SAMPLE_RATE, np.zeros(8 * SAMPLE_RATE, np.float32))
    second = Stretch(10 * SAMPLE_RATE, 18 * SAMPLE_RATE, np.zeros(8 * SAMPLE_RATE, np.float32))
    pipeline = _Pipeline(
        [
            [_said(3, "So.")],
            # Again, each alone: the first heard whole; over the second (noise, say) a phrase invented.
            [_said(0.5, "And so my fellow Americans, ask not."), _said(8.5, "Thank you.")],
        ]
    )
    out = _decoder(pipeline).decode([first, second], "en", "transcribe", words=True)
    assert pipeline.calls[1] == [pytest.approx((0, 8), abs=0.001), pytest.approx((8, 16), abs=0.001)]
    assert pipeline.silence == [True, False]
    assert [(s.start, s.text) for s in out[0]] == [(0.5, " And so my fellow Americans, ask not.")]
    assert out[1] == []  # two words in 8 s: not heard there either
