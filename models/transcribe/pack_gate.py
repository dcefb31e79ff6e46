"""Whether a pack of stretches whose language is heard is decoded whole, how its stretches are heard
where it is not, and whether a prediction packs its next stretches.

Whisper leans to the language other than English in a pack that holds two, so a pack is decoded
whole only where Whisper is sure of its language and, for a language other than English, hears it
too in each stretch's own frames of the pack's encoder output (decoding.py, piece_languages).
In any other pack, the stretches of its first run heard surely in one language in their own frames
are decoded from them (Stretch.piece: no window of their own is encoded), and those after it are
packed again into one window, heard as a pack of their own: a window for each change of language,
not for each stretch after one (regrouped). Once a pack held a change, the stretches after it are
heard one by one, until a few in a row are heard, surely, in one language: packing on through audio
that switches decodes more first runs from their frames, where Whisper may drop words
(bench/results/2026-12-08-rest-packed.md: English and German by turns, 27 windows against 30-32,
but a 7-s English stretch so decoded kept 13 of its 22 words).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Sequence

import transcript
from decoding import Detected

#: A pack whose language is heard is decoded whole only where Whisper hears its language with at
#: least this confidence. Whisper base leans to the other language in a pack that holds two: of
#: the 33 packs of 32 clips (30 s) reading English and German, 13 of the 14 it was sure were German
#: held both, as did the 10 it was unsure of; the 9 it was sure were English held English alone, as
#: did the 32 packs of 32 English clips (a 3-s German stretch after 25 s of English made a pack
#: German, p 0.90).
PACK_CONFIDENCE = 0.9
#: Stretches in a row heard surely (PACK_CONFIDENCE) in one language after which packing starts again.
RESUME_AFTER = 3


def needs_pieces(heard: Detected) -> bool:
    """Whether a pack heard so needs its stretches' own languages, heard from their frames: to be
    kept whole (keep_whole), or else to decode those heard surely from them (first_run). Every pack but
    one heard surely as English."""
    return not keep_whole(heard)


def first_run(pieces: Sequence[Detected]) -> int:
    """How many stretches of a pack not kept whole, heard so (`pieces`) from their own frames of the
    pack's encoder output, are decoded from them in that language: those of the pack's first run,
    heard surely in one language. Over bench §9's 137 packed stretches, 128 were heard from their
    frames as in a window of their own, and none of the 9 others surely; and a stretch after a
    change of language decodes worse from its frames than from its own window, where the first run
    does not: multilingual.mp3's English and German halves cut at pauses into 2 to 6 stretches
    each, laid one language after the other in ten ways, German's word error rate was 0.182 on
    average with every stretch heard surely decoded from its frames (0.193-0.228 where German
    followed English in a pack), 0.168 with the first run alone, as with each stretch in a window
    of its own; English's, 0.010-0.012 all three ways."""
    first = pieces[0][0] if pieces else ""

    def sure_in_first(heard: Detected) -> bool:
        return heard[0] == first and heard[1] >= PACK_CONFIDENCE

    return sum(1 for _ in itertools.takewhile(sure_in_first, pieces))


def regrouped(pieces: Sequence[Detected]) -> tuple[int, list[list[int]]]:
    """A pack not kept whole, its stretches heard so (`pieces`) from their frames: how many of its
    first are decoded from them (first_run), and the others (by index, in order) as they are heard
    again, each group in a window of its own: those after the first run packed together, where a
    change of language is that run's first; with no first run, the first stretch alone and those
    after it together. Each group is smaller than the pack, so hearing groups again comes to an end."""
    run = first_run(pieces)
    rest = list(range(max(run, 1), len(pieces)))
    alone = [[0]] if run == 0 and pieces else []
    return run, alone + ([rest] if rest else [])


def keep_whole(heard: Detected, pieces: Sequence[Detected] = ()) -> bool:
    """Whether a pack is decoded whole in the language heard of it: English, surely; another
    language, surely, and heard in every one of its stretches' frames (`pieces`)."""
    language, probability = heard
    if probability < PACK_CONFIDENCE:
        return False
    return language == transcript.ENGLISH or (bool(pieces) and all(piece == language for piece, _ in pieces))


class PackGate:
    """One prediction's: open (packing) at its start. Read by the thread that finds the stretches,
    told by the one that hears their languages."""

    def __init__(self) -> None:
        self._open = threading.Event()
        self._open.set()
        self._run: tuple[str, int] = ("", 0)

    def packing(self) -> bool:
        return self._open.is_set()

    def heard_pack(self, kept: bool) -> None:
        """A pack whose stretches were not all kept (in it, or decoded from its frames) closes the gate:
        the stretches after it are not packed."""
        if not kept:
            self._open.clear()
            self._run = ("", 0)

    def heard_stretch(self, heard: Detected) -> None:
        """A stretch heard on its own: enough in a row surely in one language, and packing starts again."""
        language, probability = heard
        if probability < PACK_CONFIDENCE:
            self._run = ("", 0)
            return
        last, count = self._run
        self._run = (language, count + 1 if language == last else 1)
        if self._run[1] >= RESUME_AFTER:
            self._open.set()
