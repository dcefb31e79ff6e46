"""The output from what was heard, stretch by stretch: segments with their language (and speaker,
and words), the whole text, the English of the whole clip in order, and the main language."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

ENGLISH = "en"


@dataclass
class Heard:
    """One stretch of speech as heard: where (seconds), its language, its kept segments (times from
    the start of the audio) with their texts, and its English when it is not English."""

    start: float
    end: float
    language: str
    segments: list[tuple[Any, str]]
    translation: str | None = None
    speaker_embeddings: Any = None
    labels: list[int] = field(default_factory=list)


def detected_language(heard: list[Heard], fallback: str) -> str:
    """The language with the most speech; `fallback` when nothing was said."""
    seconds: dict[str, float] = defaultdict(float)
    for stretch in heard:
        if stretch.segments:
            seconds[stretch.language] += stretch.end - stretch.start
    return max(seconds, key=lambda language: seconds[language]) if seconds else fallback


def translation(heard: list[Heard]) -> str | None:
    """The English of the whole clip in order; None when all of it is English (or nothing was said)."""
    spoken = [stretch for stretch in heard if stretch.segments]
    if all(stretch.language == ENGLISH for stretch in spoken):
        return None
    parts = [
        stretch.translation if stretch.language != ENGLISH else " ".join(text for _, text in stretch.segments)
        for stretch in spoken
    ]
    return " ".join(part for part in parts if part)


def transcription(heard: list[Heard]) -> str:
    return " ".join(text for stretch in heard for _, text in stretch.segments)


def segments(heard: list[Heard], diarized: bool, want_words: bool) -> list[dict[str, Any]]:
    """Segments as the output schema says; diarized, a segment is split where the voice changes."""
    out: list[dict[str, Any]] = []
    for stretch in heard:
        labels = iter(stretch.labels)
        for segment, text in stretch.segments:
            words = list(segment.words or [])
            if not diarized or not words:
                entry: dict[str, Any] = {
                    "id": len(out),
                    "start": _t(segment.start),
                    "end": _t(segment.end),
                    "text": text,
                    "language": stretch.language,
                }
                if diarized:
                    entry["speaker"] = "SPEAKER_00"
                if want_words:
                    entry["words"] = [_word(word) for word in words]
                out.append(entry)
                continue
            for speaker, run in _runs(words, [next(labels) for _ in words]):
                entry = {
                    "id": len(out),
                    "start": _t(run[0].start),
                    "end": _t(run[-1].end),
                    "text": "".join(word.word for word in run).strip(),
                    "language": stretch.language,
                    "speaker": f"SPEAKER_{speaker:02d}",
                }
                if want_words:
                    entry["words"] = [_word(word) for word in run]
                out.append(entry)
    return out


def _runs(words: list[Any], labels: list[int]) -> list[tuple[int, list[Any]]]:
    """Consecutive words of one speaker, with that speaker."""
    runs: list[tuple[int, list[Any]]] = []
    for word, label in zip(words, labels, strict=True):
        if runs and runs[-1][0] == label:
            runs[-1][1].append(word)
        else:
            runs.append((label, [word]))
    return runs


def _t(seconds: float) -> float:
    return round(float(seconds), 3)


def _word(word: Any) -> dict[str, Any]:
    start, end = _t(word.start), _t(word.end)
    # Whisper can give a word no length; keep start < end so times are usable.
    return {
        "word": word.word.strip(),
        "start": start,
        "end": max(end, start + 0.001),
        "probability": round(float(word.probability), 4),
    }
