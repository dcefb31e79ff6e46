"""Whether a prediction whose language is heard packs its next stretches into one window.

A pack's language is heard of the whole pack, and Whisper leans to the other language in a pack
that holds two, so a pack is decoded whole only where Whisper is sure it is English; any other pack
is heard again stretch by stretch, its window encoded for nothing. Audio in another language, or
switching, would pay that window for every pack: once one pack was not surely English, the
stretches after it are heard one by one, until a few in a row are surely English again.
"""

from __future__ import annotations

import threading

import transcript

#: A pack whose language is heard is decoded whole only where Whisper hears English in it with at
#: least this confidence; else each of its stretches is heard on its own. Whisper base leans to the
#: other language in a pack that holds two: of the 33 packs of 32 clips (30 s) reading English and
#: German, 13 of the 14 it was sure were German held both, as did the 10 it was unsure of; the 9 it
#: was sure were English held English alone, as did the 32 packs of 32 English clips (a 3-s German
#: stretch after 25 s of English made a pack German, p 0.90).
PACK_CONFIDENCE = 0.9
#: Stretches in a row heard surely English (PACK_CONFIDENCE) after which packing starts again.
RESUME_AFTER = 3


def surely_english(language: str, probability: float) -> bool:
    return language == transcript.ENGLISH and probability >= PACK_CONFIDENCE


class PackGate:
    """One prediction's: open (packing) at its start. Read by the thread that finds the stretches,
    told by the one that hears their languages."""

    def __init__(self) -> None:
        self._open = threading.Event()
        self._open.set()
        self._english_in_a_row = 0

    def packing(self) -> bool:
        return self._open.is_set()

    def heard_pack(self, language: str, probability: float) -> bool:
        """Whether the pack is kept whole; if not, the stretches after it are not packed."""
        if surely_english(language, probability):
            return True
        self._open.clear()
        self._english_in_a_row = 0
        return False

    def heard_stretch(self, language: str, probability: float) -> None:
        """A stretch heard on its own: enough surely English in a row, and packing starts again."""
        self._english_in_a_row = self._english_in_a_row + 1 if surely_english(language, probability) else 0
        if self._english_in_a_row >= RESUME_AFTER:
            self._open.set()
