"""Whisper as a Cog predictor (openai/whisper-base here; openai/whisper-large-v3-turbo's folder links
to this file): every stretch of speech in its own language (99 of them), the English of the whole
clip, word times and speakers.

Run by coglet. The audio arrives as a local file path (the worker has fetched it). Progress is
Cog's metric `progress` (0 to 1, the share of the audio done); logs are what it prints.

An async predictor: coglet runs up to cog.yaml's `concurrency.max` predictions at once on its event
loop, and they share the model, their stretches decoded in common batches (decode_scheduler.py),
each with its own inputs, progress and logs. A cancel (coglet cancels the prediction's task) is
answered at once; the prediction's queued stretches are dropped and its thread stops at its next
stretch. A failure ends its own prediction only.
"""

from __future__ import annotations

import pathlib
from collections.abc import Callable
from typing import NotRequired, Optional, TypedDict

from cog import BaseModel, BasePredictor, Input, Path

from whisper_predictor import ModelError, Transcriber, log

#: The Whisper model this predictor folder serves, from the file `whisper-model` beside predict.py:
#: each Whisper model is a folder of its own (its cog.yaml fetches its weights into its image) and
#: shares this code.
WHISPER_MODEL = (pathlib.Path(__file__).parent / "whisper-model").read_text(encoding="utf-8").strip()


def _literal(name: str) -> str:
    """A model name (letters, digits, '-', '.') as a pattern that Python and JavaScript both read."""
    return name.replace(".", r"\.")


#: The languages Whisper base knows (its 99 language tokens).
WHISPER_LANGUAGES = [
    "af", "am", "ar", "as", "az", "ba", "be", "bg", "bn", "bo", "br", "bs", "ca", "cs", "cy", "da",
    "de", "el", "en", "es", "et", "eu", "fa", "fi", "fo", "fr", "gl", "gu", "ha", "haw", "he",
    "hi", "hr", "ht", "hu", "hy", "id", "is", "it", "ja", "jw", "ka", "kk", "km", "kn", "ko", "la",
    "lb", "ln", "lo", "lt", "lv", "mg", "mi", "mk", "ml", "mn", "mr", "ms", "mt", "my", "ne", "nl",
    "nn", "no", "oc", "pa", "pl", "ps", "pt", "ro", "ru", "sa", "sd", "si", "sk", "sl", "sn", "so",
    "sq", "sr", "su", "sv", "sw", "ta", "te", "tg", "th", "tk", "tl", "tr", "tt", "uk", "ur", "uz",
    "vi", "yi", "yo", "zh",
]  # fmt: skip
MAX_SPEAKERS = 10

__all__ = ["MAX_SPEAKERS", "WHISPER_LANGUAGES", "ModelError", "Output", "Predictor", "Segment", "Word"]


class Word(TypedDict):
    word: str
    start: float
    end: float
    probability: float


class Segment(TypedDict):
    """Times in seconds from the start of the audio. Cog passes TypedDicts through as JSON objects;
    prognoz publishes their fields in the model's schema (prognoz_cog.describe)."""

    id: int
    start: float
    end: float
    text: str
    # The language this stretch of speech was heard (or, with `language` given, transcribed) in.
    language: str
    # "SPEAKER_00", … when diarize is true.
    speaker: NotRequired[str]
    # When word_timestamp is true.
    words: NotRequired[list[Word]]


class Output(BaseModel):
    segments: list[Segment]
    transcription: str
    # The English of the whole clip, in order (English stretches as they are, the others
    # translated); null when all of it is English, or when `translate` is false.
    translation: Optional[str]
    # The language with the most speech ("" when no speech was found and no language was given).
    detected_language: str


class Predictor(BasePredictor):
    def setup(self) -> None:
        """Loads the Whisper model once: CUDA float16 where there is a GPU, else CPU int8."""
        self.transcriber = Transcriber(model=WHISPER_MODEL)
        self.transcriber.setup()

    async def predict(
        self,
        audio: Path = Input(description="The audio file: wav, flac, mp3, ogg, m4a and other common formats."),
        # Cog refuses `choices` of one value, so the one model there is is a pattern.
        model: str = Input(
            default=WHISPER_MODEL,
            regex=f"^{_literal(WHISPER_MODEL)}$",
            description="The Whisper model; set by the service.",
        ),
        diarize: bool = Input(default=False, description="Label each segment with its speaker."),
        language: str = Input(
            default="auto", choices=["auto", *WHISPER_LANGUAGES], description="`auto` to detect, or a language code."
        ),
        speakers: int = Input(
            default=1, ge=1, le=MAX_SPEAKERS, description="How many speakers to expect when diarizing."
        ),
        word_timestamp: bool = Input(default=False, description="Give each segment its words with their times."),
        translate: bool = Input(
            default=True,
            description="Give the English of the whole clip (`translation`); `false` skips Whisper's translate pass over the stretches not in English, and `translation` is null.",
        ),
    ) -> Output:
        result = await self.transcriber.transcribe_async(
            audio,
            language=language,
            diarize=diarize,
            speakers=speakers,
            word_timestamp=word_timestamp,
            translate=translate,
            progress=self._progress(),
        )
        return Output(**result)

    def _progress(self) -> Callable[[float], None]:
        """Records Cog's `progress` metric and logs each further 5 %: coglet sends metrics only with
        a log, output or end webhook, so the log line is what carries the progress out while it runs.
        Called in the prediction's thread, whose context tells coglet which prediction it is for."""
        logged = [0]

        def report(fraction: float) -> None:
            self.record_metric("progress", round(fraction, 4))
            percent = int(fraction * 100)
            if percent >= logged[0] + 5:
                logged[0] = percent
                log(f"{percent}% of the audio transcribed")

        return report
