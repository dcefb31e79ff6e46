"""openai/whisper-base: transcription, language detection, translation, word times, speakers.

The work behind predict.py (the Cog predictor): it is given a local audio file (the worker has
fetched it), reports progress through a callback and logs by printing. A refused or undecodable
audio file raises ModelError, whose message is what the caller reads.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
from typing import Any, Callable, Iterator

import numpy as np
from faster_whisper import WhisperModel, decode_audio

from diarize import label_words
from speaker_encoder import SAMPLE_RATE, SpeakerEncoder
from weights import resolve_model

#: Audio inputs larger than this are refused before decoding.
MAX_AUDIO_BYTES = int(os.environ.get("PROGNOZ_MAX_AUDIO_BYTES", 200 * 1024 * 1024))
_DONE = object()
#: Decoding settings of every pass; the benchmark's direct faster-whisper call uses the same.
DECODE_OPTIONS: dict[str, Any] = {"beam_size": 5}
#: How long the consumer waits for the next item at a time: a cancel lands within about this.
_POLL_SECONDS = 0.05

Progress = Callable[[float], None]


class ModelError(Exception):
    """An input the model refuses; the message is for the caller."""


def _cancelable(produce: Callable[[], Iterator[Any]], workers: list[threading.Thread]) -> Iterator[Any]:
    """Runs a blocking generator in a thread, so that a cancel (an exception raised in the
    consuming thread, which only lands between bytecodes) ends the consumer at once instead of
    after the current 30 s window. When the consumer is closed, by an exception or otherwise, the
    producer thread stops at its next item. Close the returned generator (contextlib.closing)."""
    items: queue.Queue[Any] = queue.Queue(maxsize=4)
    stop = threading.Event()

    def offer(item: Any) -> bool:
        while not stop.is_set():
            try:
                items.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def run() -> None:
        try:
            for item in produce():
                if not offer(item):
                    return
            offer(_DONE)
        except BaseException as error:  # noqa: BLE001 - re-raised in the consumer's thread
            offer(error)

    worker = threading.Thread(target=run, name="whisper-producer", daemon=True)
    workers.append(worker)
    worker.start()
    try:
        while True:
            try:
                item = items.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                continue
            if item is _DONE:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()


def default_device() -> str:
    """`cuda` where CTranslate2 sees a GPU, else `cpu`; WHISPER_DEVICE overrides."""
    device = os.environ.get("WHISPER_DEVICE")
    if device:
        return device
    try:
        import ctranslate2

        return "cuda" if ctranslate2.get_cuda_device_count() > 0 else "cpu"
    except Exception:  # noqa: BLE001 - a CTranslate2 built without CUDA
        return "cpu"


class Transcriber:
    def __init__(self, model: str | None = None, device: str | None = None, compute_type: str | None = None) -> None:
        self.model_name = model or os.environ.get("WHISPER_MODEL", "base")
        self.device = device or default_device()
        # float16 on a GPU, int8 on a CPU; WHISPER_COMPUTE_TYPE overrides.
        self.compute_type = compute_type or os.environ.get("WHISPER_COMPUTE_TYPE") or ("float16" if self.device == "cuda" else "int8")
        self.model: WhisperModel | None = None
        self.speakers: SpeakerEncoder | None = None
        self._workers: list[threading.Thread] = []

    def setup(self) -> None:
        """Loads the model once per process: every prediction finds it warm."""
        threads = int(os.environ.get("WHISPER_CPU_THREADS", "0"))
        source = resolve_model(self.model_name)
        print(f"loading Whisper {self.model_name} from {source} ({self.device}, {self.compute_type})", flush=True)
        self.model = WhisperModel(source, device=self.device, compute_type=self.compute_type, cpu_threads=threads)
        self.speakers = SpeakerEncoder()

    def close(self, timeout: float = 120.0) -> None:
        """Waits for transcriptions left behind by cancels to reach their stopping point."""
        for worker in self._workers:
            worker.join(timeout)
        self._workers = [worker for worker in self._workers if worker.is_alive()]

    @staticmethod
    def _audio(path: str) -> np.ndarray:
        try:
            size = os.path.getsize(path)
        except OSError:
            raise ModelError("the audio file could not be read") from None
        if size > MAX_AUDIO_BYTES:
            raise ModelError(f"the audio file is {size} bytes, over the {MAX_AUDIO_BYTES}-byte limit")
        try:
            audio = decode_audio(path, sampling_rate=SAMPLE_RATE)
        except Exception as error:  # noqa: BLE001 - PyAV raises many kinds for non-audio
            raise ModelError(f"the audio file is not audio that can be decoded ({type(error).__name__})") from None
        if audio.size == 0:
            raise ModelError("the audio file holds no audio")
        return audio

    def transcribe(
        self,
        audio_path: str | os.PathLike[str],
        *,
        language: str = "auto",
        diarize: bool = False,
        speakers: int = 1,
        word_timestamp: bool = False,
        progress: Progress | None = None,
    ) -> dict[str, Any]:
        """The output as the schema says: segments, transcription, translation, detected_language."""
        assert self.model is not None and self.speakers is not None, "setup() has not run"
        report = progress or (lambda _: None)
        self._workers = [worker for worker in self._workers if worker.is_alive()]
        model = self.model
        audio = self._audio(os.fspath(audio_path))
        duration = len(audio) / SAMPLE_RATE
        print(f"transcribing {duration:.1f} s of audio", flush=True)
        forced = None if language == "auto" else language
        want_words = word_timestamp

        transcribed, info = model.transcribe(audio, language=forced, task="transcribe", word_timestamps=want_words or diarize, **DECODE_OPTIONS)
        detected = info.language
        print(f"language: {detected}" + ("" if forced else f" (detected, p={info.language_probability:.2f})"), flush=True)
        share = 0.5 if detected != "en" else 1.0  # a translation pass follows for other languages
        segments: list[Any] = []
        with contextlib.closing(_cancelable(lambda: transcribed, self._workers)) as produced:
            for segment in produced:
                segments.append(segment)
                report(share * min(1.0, segment.end / duration))

        translation: str | None = None
        if detected != "en":
            print("translating to English", flush=True)
            translated, _ = model.transcribe(audio, language=detected, task="translate", **DECODE_OPTIONS)
            parts = []
            with contextlib.closing(_cancelable(lambda: translated, self._workers)) as produced:
                for segment in produced:
                    parts.append(segment.text.strip())
                    report(0.5 + 0.5 * min(1.0, segment.end / duration))
            translation = " ".join(part for part in parts if part)

        labels: list[int] = []
        if diarize:
            words = [(w.start, w.end) for s in segments for w in (s.words or [])]
            print(f"telling {speakers} speaker(s) apart over {len(words)} words", flush=True)
            labels = label_words(self.speakers, audio, words, speakers)
        report(1.0)
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
