"""The transcription benchmark's Python side: clips with what is said in them, faster-whisper called
directly, and word error rates.

    python bench/whisper_direct.py clips DIR [HOUR_MINUTES]   writes the clips, prints them as JSON
    python bench/whisper_direct.py throughput-clips DIR N S [english]
                                    writes N clips of S seconds of speech (English alone), prints them
    python bench/whisper_direct.py serve                      answers JSON lines on stdin

`serve` loads Whisper as the model server does (Transcriber.setup), and the same weights again as
faster-whisper loads them by default (one worker, its own threads: on a CPU the model server's
passes run in lanes, a worker of their own each) for the raw and batched sides, then answers one
JSON line per request line:

    {"op": "pipeline", "file": F}  prognoz's transcription (Transcriber.transcribe) in this process:
                                   what the model server runs, without the model server
    {"op": "raw", "file": F}       faster-whisper as it comes: WhisperModel.transcribe(audio) with its
                                   default settings (one language for the whole file, no VAD)
    {"op": "score", "clip": C, "segments": [...]}  word error rates of those segments: the whole clip's,
                                                   and part by part
    {"op": "batched", "files": [F, ...], "batch_size": B, "language": L, "multilingual": M}
                                   faster-whisper's batched pipeline (BatchedInferencePipeline) over the
                                   files in one call: their audio one after another, a second of silence
                                   between, B stretches a pass, in language L (optional: the one it hears
                                   first), or with M each stretch in the language heard in it

The benchmark interleaves these with runs through the service, so both sides meet the same machine.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "models" / "transcribe"), str(ROOT / "models" / "transcribe" / "tests")]

import numpy as np  # noqa: E402
from faster_whisper import WhisperModel, decode_audio  # noqa: E402

from clips import AUDIO, MULTILINGUAL_SWITCH, RATE, cut, german_reading, readings, write_wav  # noqa: E402
from references import ENGLISH_HALF, GERMAN, JFK, wer  # noqa: E402
from weights import resolve_model  # noqa: E402
from whisper_predictor import Transcriber  # noqa: E402


def _clip(name: str, file: Path, parts: list[tuple[str, float, float, str]]) -> dict[str, Any]:
    seconds = decode_audio(str(file)).size / RATE
    return {
        "name": name,
        "file": str(file),
        "seconds": seconds,
        "parts": [{"label": label, "start": start, "end": end, "reference": text} for label, start, end, text in parts],
    }


def make_clips(folder: Path, hour_minutes: float) -> dict[str, Any]:
    """jfk.flac, multilingual.mp3 (scored by half), clips that switch language, and a long one."""
    folder.mkdir(parents=True, exist_ok=True)
    jfk, german, gap = decode_audio(str(AUDIO / "jfk.flac")), german_reading(), np.zeros(RATE, dtype=np.float32)
    clips = [
        _clip("jfk.flac", AUDIO / "jfk.flac", [("en", 0, 1e9, JFK)]),
        _clip(
            "multilingual.mp3",
            AUDIO / "multilingual.mp3",
            [("English half", 0, MULTILINGUAL_SWITCH, ENGLISH_HALF), ("German half", MULTILINGUAL_SWITCH, 1e9, GERMAN)],
        ),
    ]
    for name, pieces in (
        ("en-de-en (generated)", [("en", jfk, JFK), ("de", german, GERMAN), ("en", jfk, JFK)]),
        ("de-en (generated)", [("de", german, GERMAN), ("en", jfk, JFK)]),
    ):
        audio, parts, at = [], [], 0
        for label, samples, text in pieces:
            parts.append((label, at / RATE, (at + samples.size + gap.size) / RATE, text))
            audio += [samples, gap]
            at += samples.size + gap.size
        path = folder / (name.split(" ")[0] + ".wav")
        write_wav(path, np.concatenate(audio))
        clips.append(_clip(name, path, parts))
    long = folder / "long.wav"
    write_wav(long, cut(readings(), 0, hour_minutes * 60))
    return {"clips": clips, "long": {"file": str(long), "seconds": hour_minutes * 60}}


def throughput_clips(folder: Path, count: int, seconds: float, english: bool = False) -> list[dict[str, Any]]:
    """`count` clips of `seconds` each, cut from the test audio read one after another (English and
    German, with pauses; or the English alone) at offsets that differ, so that no two are the same."""
    folder.mkdir(parents=True, exist_ok=True)
    reading = readings(english)
    clips = []
    for n in range(count):
        path = folder / f"{'english' if english else 'clip'}-{n:02d}.wav"
        write_wav(path, cut(reading, n * 7, seconds))
        clips.append({"file": str(path), "seconds": seconds})
    return clips


def batched(
    model: Any, files: list[str], batch_size: int, language: str | None = None, multilingual: bool = False
) -> dict[str, Any]:
    """The files' audio in one call of faster-whisper's batched pipeline (in `language`, or the one
    it hears first; with `multilingual`, each stretch in the one heard in it), its segments consumed."""
    from faster_whisper import BatchedInferencePipeline

    gap = np.zeros(RATE, dtype=np.float32)
    audio = np.concatenate([part for file in files for part in (decode_audio(file, sampling_rate=RATE), gap)])
    segments, _info = BatchedInferencePipeline(model).transcribe(
        audio, batch_size=batch_size, language=language, multilingual=multilingual
    )
    words = sum(len(segment.text.split()) for segment in segments)
    return {"words": words, "audio_seconds": audio.size / RATE}


def score(clip: dict[str, Any], segments: list[dict[str, Any]]) -> dict[str, Any]:
    """The word error rate of the whole clip (everything said against everything heard, in order),
    and of each part: the segments whose middle falls in it against its reference."""
    parts = []
    for part in clip["parts"]:
        said = " ".join(s["text"] for s in segments if part["start"] <= (s["start"] + s["end"]) / 2 < part["end"])
        parts.append({"label": part["label"], "wer": wer(part["reference"], said)})
    whole = wer(" ".join(part["reference"] for part in clip["parts"]), " ".join(s["text"] for s in segments))
    return {"wer": whole, "parts": parts}


def serve() -> None:
    # The transcriber logs by printing, as it does in the model server: to stderr here, so that
    # stdout carries the answers alone.
    answers, sys.stdout = sys.stdout, sys.stderr
    transcriber = Transcriber()
    loading = time.perf_counter()
    transcriber.setup()
    load_seconds = time.perf_counter() - loading  # the model server's load alone
    assert transcriber.model is not None
    model = WhisperModel(
        resolve_model(transcriber.model_name),
        device=transcriber.device,
        compute_type=transcriber.compute_type,
        cpu_threads=int(os.environ.get("WHISPER_CPU_THREADS", "0")),
    )
    ready = {
        "load_seconds": load_seconds,
        "settings": {
            "model": transcriber.model_name,
            "device": transcriber.device,
            "compute_type": transcriber.compute_type,
        },
    }
    print(json.dumps(ready), file=answers, flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        started = time.perf_counter()
        if request["op"] == "pipeline":
            output = transcriber.transcribe(request["file"])
            answer: dict[str, Any] = {
                "segments": [{k: s[k] for k in ("start", "end", "text", "language")} for s in output["segments"]]
            }
        elif request["op"] == "raw":
            segments, info = model.transcribe(decode_audio(request["file"], sampling_rate=RATE))
            answer = {
                "segments": [
                    {"start": s.start, "end": s.end, "text": s.text.strip(), "language": info.language}
                    for s in segments
                ]
            }
        elif request["op"] == "batched":
            answer = batched(
                model,
                request["files"],
                request["batch_size"],
                request.get("language"),
                request.get("multilingual", False),
            )
        else:
            answer = score(request["clip"], request["segments"])
        answer["seconds"] = time.perf_counter() - started
        answer["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps(answer), file=answers, flush=True)


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "clips":
        print(json.dumps(make_clips(Path(sys.argv[2]), float(sys.argv[3]) if len(sys.argv) > 3 else 60)))
    elif command == "throughput-clips":
        english = sys.argv[5:6] == ["english"]
        print(json.dumps(throughput_clips(Path(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), english)))
    elif command == "serve":
        serve()
    else:
        raise SystemExit(__doc__)
