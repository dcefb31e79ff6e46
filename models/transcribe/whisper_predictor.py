"""Whisper transcription: every stretch of speech in its own language, translation, word times,
speakers.

The work behind the Cog predictors (predict.py): given a local audio file (the worker has fetched
it), it reads the audio a block at a time (audio_stream.py), finds the stretches of speech in it
(speech.py), hears each stretch's language — or takes the caller's — and decodes it in that
language (decoding.py), translating what is not English; what Whisper invents is dropped
(hallucinations.py). Progress goes to a callback, logs are printed. A refused or undecodable audio
file raises ModelError, whose message is what the caller reads.

One model serves every prediction in flight: each runs in a thread of its own (its reading, VAD,
languages, order, speakers and progress are its own), and asks one DecodeScheduler for its encoder
and decoder passes, which it shares with the others (decode_scheduler.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import math
import os
import queue
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
from faster_whisper import WhisperModel

import transcript
from audio_stream import UndecodableAudio, audio_blocks, duration_of
from decode_scheduler import DecodeScheduler, Session
from decoding import BATCH_SIZE, CPU_PASS, BatchedDecoder, Decoder, Detected, cpu_lanes, retimed
from diarize import cluster, embed_words
from encoder_memo import EncoderMemo
from hallucinations import clean
from language_batches import LanguageBatches
from pack_gate import PackGate, keep_whole, needs_pieces, regrouped
from speaker_encoder import SpeakerEncoder
from speech import Stretch, pack_of, packed, speech_stretches
from transcript import Heard
from weights import resolve_model

#: Audio inputs larger than this are refused before decoding.
MAX_AUDIO_BYTES = int(os.environ.get("PROGNOZ_MAX_AUDIO_BYTES", 200 * 1024 * 1024))
_DONE = object()
#: A stretch whose language Whisper hears with less confidence than this (a short one, mostly)
#: takes the language of the stretch before it.
LANGUAGE_CONFIDENCE = 0.5
#: On a CPU, how long a pass not yet full waits for the predictions in flight that are still reading
#: their audio (DecodeScheduler.fill_wait): their VAD takes ~60 ms for 30 s of audio alone, several
#: times that when eight start together, and a pass of one stretch costs nearly twice as much a
#: stretch as a pass of eight. On a GPU a prediction gathers a batch before it asks: no wait.
CPU_FILL_WAIT_SECONDS = 0.5
#: How long a producer's consumer waits for its next item at a time.
_POLL_SECONDS = 0.05
#: Windows whose encoder outputs are kept at most (EncoderMemo): those of the passes in flight,
#: a languages pass ahead of the decode passes that use it; each is released once no stretch of
#: its predictions waits for a pass. Whisper base: 3 MB a window in float32.
MEMO_SIZE = 4 * BATCH_SIZE

Progress = Callable[[float], None]


class ModelError(Exception):
    """An input the model refuses; the message is for the caller."""


#: Where a container's CPU quota is (`docker run --cpus`, an ECS task's CPU): cgroup v2's file, and
#: cgroup v1's two.
CGROUP_CPU_MAX = Path("/sys/fs/cgroup/cpu.max")
CGROUP_V1_CPU = Path("/sys/fs/cgroup/cpu")


def cores_to_use(cgroup_cpu_max: Path = CGROUP_CPU_MAX, cgroup_v1_cpu: Path = CGROUP_V1_CPU) -> int:
    """The cores this process may use: those it may run on (all of the machine's where the system
    does not say), no more than its container's CPU quota, rounded up. A container sees the host's
    cores, so its quota is what keeps the lanes' threads to the CPU it is given."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    quota = _cpu_quota(cgroup_cpu_max, cgroup_v1_cpu)
    return max(1, min(cores, quota)) if quota is not None else cores


def _cpu_quota(cpu_max: Path, v1: Path) -> int | None:
    try:
        quota, period = cpu_max.read_text(encoding="ascii").split()[:2]
    except (OSError, ValueError):
        try:
            quota = (v1 / "cpu.cfs_quota_us").read_text(encoding="ascii").strip()
            period = (v1 / "cpu.cfs_period_us").read_text(encoding="ascii").strip()
        except OSError:
            return None
    if quota in ("max", "-1"):
        return None
    try:
        return max(1, math.ceil(int(quota) / int(period)))
    except (ValueError, ZeroDivisionError):
        return None


def log(line: str) -> None:
    """Prints a line in one write: coglet joins what is written up to a newline into a log line of
    the prediction it is written for, and a print's text and its newline are two writes, between
    which another prediction's thread may write."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def _cancelable(
    produce: Callable[[], Iterator[Any]], track: Callable[[threading.Thread], None], ahead: int = 4
) -> Iterator[Any]:
    """Runs a blocking generator in a thread, up to `ahead` items ahead of its consumer (the VAD
    finding the next stretches while the GPU decodes). When the consumer is closed, by an
    exception or otherwise, the producer thread stops at its next item. Close the returned
    generator (contextlib.closing)."""
    items: queue.Queue[Any] = queue.Queue(maxsize=ahead)
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
    track(worker)
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


def _groups(items: Iterator[Any], size: int) -> Iterator[list[Any]]:
    """The items in lists of `size`, the last perhaps shorter (itertools.batched, Python 3.12)."""
    group: list[Any] = []
    for item in items:
        group.append(item)
        if len(group) == size:
            yield group
            group = []
    if group:
        yield group


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
    def __init__(
        self,
        model: str | None = None,
        device: str | None = None,
        compute_type: str | None = None,
    ) -> None:
        self.model_name = model or os.environ.get("WHISPER_MODEL", "base")
        self.device = device or default_device()
        # float16 on a GPU, int8 on a CPU; WHISPER_COMPUTE_TYPE overrides.
        self.compute_type = (
            compute_type or os.environ.get("WHISPER_COMPUTE_TYPE") or ("float16" if self.device == "cuda" else "int8")
        )
        # Stretches a prediction gathers before it asks for a pass. A GPU's pass of sixteen costs
        # little more than one's, so a prediction fills one. A CPU's costs nearly in proportion to
        # its stretches, so a prediction hands each on as it is found (its progress and its cancel a
        # stretch at a time, as alone) and the passes fill from the predictions in flight.
        self.gathers = BATCH_SIZE if self.device == "cuda" else 1
        self.model: WhisperModel | None = None
        self.decoder: Decoder | None = None
        self.scheduler: DecodeScheduler | None = None
        self.speakers: SpeakerEncoder | None = None
        self._workers: list[threading.Thread] = []
        self._workers_lock = threading.Lock()

    def setup(self) -> None:
        """Loads the model once per process: every prediction finds it warm."""
        on_cpu = self.device != "cuda"
        cores = cores_to_use()
        # On a CPU, passes run at once in lanes, each on a CTranslate2 worker (decoding.cpu_lanes).
        lanes = cpu_lanes(cores) if on_cpu else 1
        threads = int(os.environ.get("WHISPER_CPU_THREADS", "0")) or (max(1, cores // lanes) if on_cpu else 0)
        source = resolve_model(self.model_name)
        log(f"loading Whisper {self.model_name} from {source} ({self.device}, {self.compute_type})")
        if on_cpu:
            log(f"passes run in {lanes} lane(s) at once, {threads} CPU thread(s) each")
        self.model = WhisperModel(
            source,
            device=self.device,
            compute_type=self.compute_type,
            cpu_threads=threads,
            num_workers=lanes,
        )
        memo = EncoderMemo(self.model.encode, size=MEMO_SIZE)
        self.model.encode = memo  # type: ignore[method-assign]
        self.decoder = BatchedDecoder(self.model)
        self.scheduler = DecodeScheduler(
            self.decoder,
            memo,
            fill_wait=CPU_FILL_WAIT_SECONDS if on_cpu else 0.0,
            lanes=lanes,
            batch=CPU_PASS if lanes > 1 else None,
        )
        self.speakers = SpeakerEncoder()

    def close(self, timeout: float = 120.0) -> None:
        """Waits for transcriptions left behind by cancels to reach their stopping point."""
        with self._workers_lock:
            workers = list(self._workers)
        for worker in workers:
            worker.join(timeout)
        with self._workers_lock:
            self._workers = [worker for worker in self._workers if worker.is_alive()]

    def _track(self, worker: threading.Thread) -> None:
        with self._workers_lock:
            self._workers = [*(w for w in self._workers if w.is_alive()), worker]

    @staticmethod
    def _checked(path: str) -> str:
        try:
            size = os.path.getsize(path)
        except OSError:
            raise ModelError("the audio file could not be read") from None
        if size > MAX_AUDIO_BYTES:
            raise ModelError(f"the audio file is {size} bytes, over the {MAX_AUDIO_BYTES}-byte limit")
        return path

    async def transcribe_async(self, audio_path: str | os.PathLike[str], **options: Any) -> dict[str, Any]:
        """transcribe() in a thread of its own, awaited: the event loop (coglet's, which all the
        predictions in flight share) stays free. The thread runs in a copy of the caller's context,
        where coglet keeps which prediction a log line or a metric is for. A cancel (CancelledError,
        or coglet's CancelationException) cancels its session: its queued stretches are dropped and
        its thread stops at its next stretch, while the cancel itself is answered at once."""
        assert self.scheduler is not None, "setup() has not run"
        session = self.scheduler.session()
        loop = asyncio.get_running_loop()
        outcome: asyncio.Future[dict[str, Any]] = loop.create_future()
        context = contextvars.copy_context()

        def settle(result: Any, error: BaseException | None) -> None:
            if outcome.done():
                return
            if error is None:
                outcome.set_result(result)
            else:
                outcome.set_exception(error)

        def run() -> None:
            try:
                settled = (context.run(self.transcribe, audio_path, session=session, **options), None)
            except BaseException as error:  # noqa: BLE001 - raised where the prediction awaits it
                settled = (None, error)
            with contextlib.suppress(RuntimeError):  # the loop has closed: nobody awaits it
                loop.call_soon_threadsafe(settle, *settled)

        worker = threading.Thread(target=run, name="whisper-prediction", daemon=True)
        self._track(worker)
        worker.start()
        try:
            return await outcome
        except BaseException:
            session.cancel()
            raise

    def transcribe(
        self,
        audio_path: str | os.PathLike[str],
        *,
        language: str = "auto",
        diarize: bool = False,
        speakers: int = 1,
        word_timestamp: bool = False,
        translate: bool = True,
        progress: Progress | None = None,
        session: Session | None = None,
    ) -> dict[str, Any]:
        """The output as the schema says: segments, transcription, translation, detected_language.
        Without `translate` no stretch goes through Whisper's translate task and `translation` is
        None. Raises Canceled once `session` is canceled."""
        assert self.model is not None and self.speakers is not None and self.scheduler is not None, (
            "setup() has not run"
        )
        session = session or self.scheduler.session()
        report = progress or (lambda _: None)
        forced = None if language == "auto" else language
        heard: list[Heard] = []
        decoded = [0]
        try:
            path = self._checked(os.fspath(audio_path))
            duration = duration_of(path)
            log(f"transcribing {duration:.1f} s of audio" if duration else "transcribing audio of unknown length")
            for stretch in self._hear(path, forced, word_timestamp or diarize, diarize, translate, decoded, session):
                heard.append(stretch)
                if duration:
                    report(min(1.0, stretch.end / duration))
        except UndecodableAudio as error:
            raise ModelError(f"the audio file is not audio that can be decoded ({error})") from None
        finally:
            # Asked for all it will: no pass waits for it.
            self.scheduler.end(session)
        if decoded[0] == 0:
            raise ModelError("the audio file holds no audio")
        if not any(stretch.segments for stretch in heard):
            log("no speech found")
        if diarize:
            self._label_speakers(heard, speakers)
        report(1.0)
        return {
            "segments": transcript.segments(heard, diarize, word_timestamp),
            "transcription": transcript.transcription(heard),
            "translation": transcript.translation(heard) if translate else None,
            "detected_language": transcript.detected_language(heard, forced or ""),
        }

    def _hear(
        self,
        path: str,
        forced: str | None,
        words: bool,
        diarize: bool,
        translate: bool,
        decoded: list[int],
        session: Session,
    ) -> Iterator[Heard]:
        """Each stretch of speech as heard, in order."""
        assert self.decoder is not None
        batches: LanguageBatches[Stretch, Heard] = LanguageBatches(
            self.gathers,
            lambda language, stretches: self._hear_batch(session, stretches, language, words, diarize, translate),
        )
        previous = forced
        gate = PackGate()

        def counted() -> Iterator[np.ndarray]:
            for block in audio_blocks(path):
                decoded[0] += block.size
                yield block

        def stretches() -> Iterator[Stretch]:
            # Consecutive stretches are packed into windows: fewer windows are encoded and decoded
            # for the same speech. A language heard is heard of the whole pack, and the pack is
            # decoded stretch by stretch unless Whisper is sure of it, in the pack and in each of
            # its stretches (_heard): its first run from their frames of the pack's encoder
            # output, the others packed again; after such a pack the gate holds packing back a
            # while (pack_gate.py). Not where a
            # language is given and the stretches are translated too: that pass needs each
            # stretch's own window (its words untimed, a stretch it passed over in a pack could not
            # be told).
            found = speech_stretches(counted())
            if forced:
                return packed(found) if forced == transcript.ENGLISH or not translate else found
            return packed(found, packing=gate.packing)

        # The CPU waits while the GPU decodes a batch: there the VAD finds the next stretches
        # meanwhile, in a thread of its own (on a CPU the two would only take turns on its cores).
        found = _cancelable(stretches, self._track, ahead=2 * self.gathers) if self.device == "cuda" else stretches()
        with contextlib.closing(found):
            # Languages are heard a gathering at a time: one encoder pass for them all.
            for group in _groups(found, self.gathers):
                session.check()
                heard = (
                    [(stretch, forced) for stretch in group]
                    if forced
                    else self._languages_of(session, group, previous, gate)
                )
                previous = heard[-1][1]
                for stretch, language in heard:
                    yield from batches.add(stretch, language)
                if not batches.waiting:
                    # Every stretch whose language it has heard has its text and English: none of
                    # the encoder outputs its passes made is needed again (a stretch still waiting
                    # for a pass of its language needs its own; the memo keeps windows, not passes).
                    self.scheduler.release(session)
        yield from batches.finish()

    def _hear_batch(
        self, session: Session, stretches: list[Stretch], language: str, words: bool, diarize: bool, translate: bool
    ) -> list[Heard]:
        """Stretches of one language: their text, and their English where they are not in English
        and it is asked for."""
        assert self.scheduler is not None
        decoded = self.scheduler.decode(session, stretches, language, "transcribe", words)
        translated = (
            self.scheduler.decode(session, stretches, language, "translate", False)
            if translate and language != transcript.ENGLISH
            else None
        )
        heard = []
        for k, stretch in enumerate(stretches):
            # Times from the stretch's audio (diarization reads its words there), then in the whole audio.
            local = clean(decoded[k])
            kept = [(retimed(segment, stretch.whole_span), text) for segment, text in local]
            english = " ".join(text for _, text in clean(translated[k])) if translated is not None else None
            heard.append(Heard(stretch.start_seconds, stretch.end_seconds, language, kept, english))
            if diarize and self.speakers is not None:
                times = [(w.start, w.end) for segment, _ in local for w in segment.words or []]
                heard[-1].speaker_embeddings = embed_words(self.speakers, stretch.audio, times)
        return heard

    def _languages_of(
        self, session: Session, stretches: list[Stretch], previous: str | None, gate: PackGate
    ) -> list[tuple[Stretch, str]]:
        """Each stretch (or pack) with its language as Whisper hears it (_heard); one heard with
        little confidence takes the language of the stretch before it."""
        heard = [pair for found in self._heard(session, stretches, gate) for pair in found]
        for stretch, found in heard:
            if not stretch.pieces:
                gate.heard_stretch(found)
        chosen: list[tuple[Stretch, str]] = []
        for stretch, (language, probability) in heard:
            previous = previous if probability < LANGUAGE_CONFIDENCE and previous else language
            kept = "" if previous == language else f", kept {previous} from the stretch before"
            log(
                f"{stretch.start_seconds:.1f}–{stretch.end_seconds:.1f} s: language {language} (detected, p={probability:.2f}{kept})"
            )
            chosen.append((stretch, previous))
        return chosen

    def _heard(
        self, session: Session, stretches: list[Stretch], gate: PackGate
    ) -> list[list[tuple[Stretch, Detected]]]:
        """For each stretch (or pack), what is decoded of it, in order, each with the language heard
        of it. A pack is kept whole only where Whisper is sure of its language, and, for one other
        than English, hears it in each of its stretches' frames too (pack_gate.keep_whole); else its
        first run heard surely in its frames is decoded from them (Stretch.piece), and the stretches
        after it are packed again and heard so in turn (pack_gate.regrouped; the gate told)."""
        assert self.scheduler is not None
        detected = list(zip(stretches, self.scheduler.languages(session, stretches), strict=True))
        asked = [stretch for stretch, found in detected if stretch.pieces and needs_pieces(found)]
        pieces = iter(self.scheduler.piece_languages(session, asked) if asked else [])
        #: Per stretch: None where it is decoded as it is; else its first run, from its frames, and
        #: how many of the groups heard again are its.
        parts: list[tuple[list[tuple[Stretch, Detected]], int] | None] = []
        again: list[Stretch] = []
        for stretch, found in detected:
            heard_pieces = next(pieces) if stretch.pieces and needs_pieces(found) else []
            if not stretch.pieces or keep_whole(found, heard_pieces):
                parts.append(None)
                continue
            run, groups = regrouped(heard_pieces)
            gate.heard_pack(not groups)
            singles = stretch.unpacked()
            again.extend(pack_of([singles[k] for k in group]) for group in groups)
            parts.append(([(stretch.piece(k), heard_pieces[k]) for k in range(run)], len(groups)))
        # The groups heard again, of every pack, in one pass (a GPU's gathering holds many packs).
        heard_again = iter(self._heard(session, again, gate) if again else [])
        heard: list[list[tuple[Stretch, Detected]]] = []
        for (stretch, found), part in zip(detected, parts, strict=True):
            if part is None:
                heard.append([(stretch, found)])
                continue
            decoded, count = part
            heard.append(decoded + [pair for _ in range(count) for pair in next(heard_again)])
        return heard

    @staticmethod
    def _label_speakers(heard: list[Heard], speakers: int) -> None:
        embeddings = [
            stretch.speaker_embeddings
            for stretch in heard
            if stretch.speaker_embeddings is not None and len(stretch.speaker_embeddings)
        ]
        count = sum(len(e) for e in embeddings)
        log(f"telling {speakers} speaker(s) apart over {count} words")
        labels = iter(cluster(np.concatenate(embeddings), speakers) if embeddings else [])
        for stretch in heard:
            stretch.labels = [
                next(labels)
                for _ in range(len(stretch.speaker_embeddings) if stretch.speaker_embeddings is not None else 0)
            ]
