"""What Whisper says that nobody said: loops of one phrase, and text over what is not speech.

Pure functions of the decoded segments. VAD (speech.py) keeps most silence, noise and music away
from Whisper; these catch what gets through.
"""

from __future__ import annotations

import re
from typing import Any

#: A segment whose audio Whisper itself thinks holds no speech, and whose text it is unsure of.
NO_SPEECH_PROBABILITY = 0.6
UNSURE_LOGPROB = -0.8
#: A phrase of this many words or fewer, said this many times or more in a row, is a loop.
LOOP_PHRASE_WORDS = 8
LOOP_REPEATS = 3
#: Text made only of these is not speech (Whisper's captions for music and noise).
_NOT_WORDS = re.compile(r"^[\s\W_♪♫]*$")
_WORD = re.compile(r"\S+")


def _key(word: str) -> str:
    return re.sub(r"[\W_]+", "", word.lower())


def collapse_loops(text: str) -> str:
    """The text with any phrase said LOOP_REPEATS times or more in a row said once."""
    tokens = _WORD.findall(text)
    keys = [_key(token) for token in tokens]
    out: list[str] = []
    i = 0
    while i < len(tokens):
        collapsed = False
        for size in range(1, LOOP_PHRASE_WORDS + 1):
            phrase = keys[i : i + size]
            if len(phrase) < size or not any(phrase):
                break
            repeats = 1
            while keys[i + repeats * size : i + (repeats + 1) * size] == phrase:
                repeats += 1
            if repeats >= LOOP_REPEATS:
                # The last time it was said: it carries the punctuation that ends the loop.
                out.extend(tokens[i + (repeats - 1) * size : i + repeats * size])
                i += repeats * size
                collapsed = True
                break
        if not collapsed:
            out.append(tokens[i])
            i += 1
    return " ".join(out)


def is_invented(text: str, no_speech_prob: float, avg_logprob: float) -> bool:
    """True for a segment to drop: no words at all, or speech Whisper doubts both ways."""
    if _NOT_WORDS.match(text):
        return True
    return no_speech_prob > NO_SPEECH_PROBABILITY and avg_logprob < UNSURE_LOGPROB


def clean(segments: list[Any]) -> list[tuple[Any, str]]:
    """The segments worth keeping, each with its text (loops collapsed); a segment that repeats
    the one before it word for word is a loop too, and goes."""
    kept: list[tuple[Any, str]] = []
    previous = None
    for segment in segments:
        text = collapse_loops(segment.text.strip())
        if is_invented(text, segment.no_speech_prob, segment.avg_logprob):
            continue
        key = [_key(word) for word in _WORD.findall(text)]
        if key == previous:
            continue
        previous = key
        kept.append((segment, text))
    return kept
