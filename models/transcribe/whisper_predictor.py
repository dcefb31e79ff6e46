"""openai/whisper-base: transcription, language detection, translation, word times, speakers."""

from __future__ import annotations

import os
import queue
import tempfile
import threading
from typing import Any, Callable, Iterator

import numpy as np
from faster_whisper import WhisperModel, decode_audio

from diarize import label_words
from prognoz_model import Canceled, FetchError, FetchLimits, ModelError, PredictionContext, fetch_to_file
from speaker_encoder import SAMPLE_RATE, SpeakerEncoder
from weights import resolve_model

#: Audio inputs larger than this are refused before decoding.
MAX_AUDIO_BYTES = int(os.environ.get("PROGNOZ_MAX_AUDIO_BYTES", 200 * 1024 * 1024))
_DONE = object()
#: Decoding settings of every pass; the benchmark's direct faster-whisper call uses the same.
DECODE_OPTIONS: dict[str, Any] = {"beam_size": 5}


def _cancelable(context: PredictionContext, produce: Callable[[], Iterator[Any]], workers: list[threading.Thread]) -> Iterator[Any]:
    """Runs a blocking generator in a thread, so a cancel returns at once instead of after the
    current 30 s window; the thread stops at its next item."""
    items: queue.Queue[Any] = queue.Queue(maxsize=4)

    def run() -> None:
        try:
            for item in produce():
                while True:
                    if context.canceled:
                        return
                    try:
                        items.put(item, timeout=0.1)
                        break
                    except queue.Full:
                        continue
            items.put(_DONE)
        except BaseException as error:  # noqa: BLE001 - re-raised in the caller's thread
            items.put(error)

    worker = threading.Thread(target=run, daemon=True)
    workers.append(worker)
    worker.start()
    while True:
        try:
            item = items.get(timeout=0.05)
        except queue.Empty:
            context.check_canceled()
            continue
        if item is _DONE:
            return
        if isinstance(item, BaseException):
            raise item
        context.check_canceled()
        yield item


class TranscribePredictor:
    def __init__(self) -> None:
        self.model_name = os.environ.get("WHISPER_MODEL", "base")
        self.device = os.environ.get("WHISPER_DEVICE", "cpu")
        self.compute_type = os.environ.get("WHISPER_COMPUTE_TYPE", "int8" if self.device == "cpu" else "float16")
        self.limits = FetchLimits.from_env()
        self.model: WhisperModel | None = None
        self.speakers: SpeakerEncoder | None = None
        self._workers: list[threading.Thread] = []

    def setup(self) -> None:
        """Loads the model once per process: every prediction finds it warm."""
        threads = int(os.environ.get("WHISPER_CPU_THREADS", "0"))
        self.model = WhisperModel(resolve_model(self.model_name), device=self.device, compute_type=self.compute_type, cpu_threads=threads)
        self.speakers = SpeakerEncoder()

    def close(self, timeout: float = 120.0) -> None:
        """Waits for transcriptions left behind by cancels to reach their stopping point."""
        for worker in self._workers:
            worker.join(timeout)
        self._workers = [worker for worker in self._workers if worker.is_alive()]

    def _audio(self, url: str, context: PredictionContext) -> np.ndarray:
        limits = FetchLimits(max_bytes=min(self.limits.max_bytes, MAX_AUDIO_BYTES), timeout_seconds=self.limits.timeout_seconds, allow_private=self.limits.allow_private)
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "audio")
            try:
                fetch_to_file(url, path, limits, context.cancel_event)
            except FetchError as error:
                context.check_canceled()
                raise ModelError(str(error)) from None
            try:
                audio = decode_audio(path, sampling_rate=SAMPLE_RATE)
            except Exception as error:  # noqa: BLE001 - PyAV raises many kinds for non-audio
                raise ModelError(f"the file at {url} is not audio that can be decoded ({type(error).__name__})") from None
        if audio.size == 0:
            raise ModelError(f"the file at {url} holds no audio")
        return audio

    def predict(self, input: dict[str, Any], context: PredictionContext) -> dict[str, Any]:
        assert self.model is not None and self.speakers is not None, "setup() has not run"
        self._workers = [worker for worker in self._workers if worker.is_alive()]
        model = self.model
        audio = self._audio(str(input["audio"]), context)
        duration = len(audio) / SAMPLE_RATE
        language = None if input.get("language", "auto") == "auto" else str(input["language"])
        diarize = bool(input.get("diarize", False))
        want_words = bool(input.get("word_timestamp", False))
        speakers = int(input.get("speakers", 1))

        transcribed, info = model.transcribe(audio, language=language, task="transcribe", word_timestamps=want_words or diarize, **DECODE_OPTIONS)
        detected = info.language
        share = 0.5 if detected != "en" else 1.0  # a translation pass follows for other languages
        segments: list[Any] = []
        for segment in _cancelable(context, lambda: transcribed, self._workers):
            segments.append(segment)
            context.report_progress(share * min(1.0, segment.end / duration))

        translation: str | None = None
        if detected != "en":
            translated, _ = model.transcribe(audio, language=detected, task="translate", **DECODE_OPTIONS)
            parts = []
            for segment in _cancelable(context, lambda: translated, self._workers):
                parts.append(segment.text.strip())
                context.report_progress(0.5 + 0.5 * min(1.0, segment.end / duration))
            translation = " ".join(part for part in parts if part)

        labels: list[int] = []
        if diarize:
            words = [(w.start, w.end) for s in segments for w in (s.words or [])]
            labels = label_words(self.speakers, audio, words, speakers)
        context.report_progress(1.0)
        return {
            "segments": self._segments(segments, labels if diarize else None, want_words),
            "transcription": " ".join(s.text.strip() for s in segments if s.text.strip()),
            "translation": translation,
            "detected_language": detected,
        }

    @staticmethod
    def _segments(segments: list[Any], labels: list[int] | None, want_words: bool) -> list[dict[str, Any]]:
        """Segments as the output schema says; with speakers, a segment is split where the voice changes."""
        out: list[dict[str, Any]] = []
        cursor = 0
        for segment in segments:
            words = list(segment.words or [])
            if labels is None or not words:
                entry: dict[str, Any] = {"id": len(out), "start": round(segment.start, 3), "end": round(segment.end, 3), "text": segment.text.strip()}
                if labels is not None:
                    entry["speaker"] = "SPEAKER_00"
                if want_words:
                    entry["words"] = [_word(w) for w in words]
                out.append(entry)
                continue
            run: list[Any] = []
            run_label = labels[cursor]
            for word in words + [None]:
                label = labels[cursor] if word is not None else None
                if word is None or label != run_label:
                    entry = {
                        "id": len(out),
                        "start": round(run[0].start, 3),
                        "end": round(run[-1].end, 3),
                        "text": "".join(w.word for w in run).strip(),
                        "speaker": f"SPEAKER_{run_label:02d}",
                    }
                    if want_words:
                        entry["words"] = [_word(w) for w in run]
                    out.append(entry)
                    run = []
                    run_label = label if label is not None else run_label
                if word is not None:
                    run.append(word)
                    cursor += 1
        return out


def _word(word: Any) -> dict[str, Any]:
    start, end = round(float(word.start), 3), round(float(word.end), 3)
    # Whisper can give a word no length; keep start < end so times are usable.
    return {"word": word.word.strip(), "start": start, "end": max(end, start + 0.001), "probability": round(float(word.probability), 4)}
