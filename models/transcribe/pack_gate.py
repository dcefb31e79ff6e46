"""Whether a pack of stretches whose language is heard is decoded whole, and whether a prediction
packs its next stretches.

Whisper leans to the language other than English in a pack that holds two, so a pack is decoded
whole only where Whisper is sure of its language and, for a language other than English, hears it
too in each stretch's own frames of the pack's encoder output (decoding.py, piece_languages). Any
other pack is heard again stretch by stretch, its window encoded for nothing; audio that switches
would pay that window at every pack, so once a pack was not kept whole the stretches after it are
heard one by one, until a few in a row are heard, surely, in one language.
"""

from __future__ import annotations

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
    """Whether a pack heard so is kept whole only if its stretches' own frames agree (keep_whole)."""
    language, probability = heard
    return language != transcript.ENGLISH and probability >= PACK_CONFIDENCE


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
        """A pack not kept whole closes the gate: the stretches after it are not packed."""
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
