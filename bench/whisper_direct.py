"""The transcription benchmark's reference: faster-whisper called directly, in this process.

    python bench/whisper_direct.py clip DIR          writes DIR/long.wav (>= 60 s of test audio)
    python bench/whisper_direct.py time REPEATS FILE...

`time` loads the model exactly as the model server does (TranscribePredictor.setup: same model,
device, compute type and threads), warms it up on the first file, then decodes and transcribes
each file REPEATS times with the server's decoding settings, a translation pass included where
the server would make one. Prints one JSON line.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "models" / "transcribe"), str(ROOT / "models" / "transcribe" / "tests")]

import numpy as np  # noqa: E402
from faster_whisper import decode_audio  # noqa: E402

from clips import AUDIO, RATE, write_wav  # noqa: E402
from whisper_predictor import DECODE_OPTIONS, Transcriber  # noqa: E402

LONG_CLIP_PARTS = ("jfk.flac", "multilingual.mp3")


def make_long_clip(folder: Path) -> dict[str, object]:
    audio = np.concatenate([decode_audio(str(AUDIO / name), sampling_rate=RATE) for name in LONG_CLIP_PARTS])
    if len(audio) < 60 * RATE:
        raise RuntimeError("the test audio joined is shorter than 60 s")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "long.wav"
    write_wav(path, audio)
    return {"long": str(path), "seconds": len(audio) / RATE, "parts": list(LONG_CLIP_PARTS)}


def transcribe_once(model, path: str) -> dict[str, object]:
    started = time.perf_counter()
    audio = decode_audio(path, sampling_rate=RATE)
    segments, info = model.transcribe(audio, language=None, task="transcribe", word_timestamps=False, **DECODE_OPTIONS)
    text = " ".join(segment.text.strip() for segment in segments)
    if info.language != "en":
        translated, _ = model.transcribe(audio, language=info.language, task="translate", **DECODE_OPTIONS)
        for _ in translated:
            pass
    return {"seconds": time.perf_counter() - started, "audio_seconds": len(audio) / RATE, "language": info.language, "characters": len(text)}


def time_files(repeats: int, files: list[str]) -> dict[str, object]:
    predictor = Transcriber()
    loading = time.perf_counter()
    predictor.setup()
    load_seconds = time.perf_counter() - loading
    transcribe_once(predictor.model, files[0])  # warm-up, not counted
    results = {path: [transcribe_once(predictor.model, path) for _ in range(repeats)] for path in files}
    return {
        "load_seconds": load_seconds,
        "settings": {"model": predictor.model_name, "device": predictor.device, "compute_type": predictor.compute_type, **DECODE_OPTIONS},
        "files": results,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "clip":
        print(json.dumps(make_long_clip(Path(sys.argv[2]))))
    elif command == "time":
        print(json.dumps(time_files(int(sys.argv[2]), sys.argv[3:])))
    else:
        raise SystemExit(__doc__)
