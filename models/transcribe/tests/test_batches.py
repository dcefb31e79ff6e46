"""How stretches are batched for decoding (by language, in order) and how a stretch decoded whole
by the batched pipeline is cut into sentences."""

from __future__ import annotations

import dataclasses

from faster_whisper.transcribe import Segment, Word

from decoding import sentences
from language_batches import LanguageBatches


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
    pieces = sentences(whole, words=False)
    assert [(p.start, p.end, p.text) for p in pieces] == [
        (0.0, 0.9, " And so."),
        (1.2, 2.0, " Ask not?"),
        (2.4, 3.3, " Wir gehen"),
    ]
    assert all(p.words is None and p.avg_logprob == -0.2 for p in pieces)
    assert [len(p.words or []) for p in sentences(whole, words=True)] == [2, 2, 2]
    unspoken = dataclasses.replace(whole, words=None, text="")
    assert sentences(unspoken, words=False) == [unspoken]
