"""Packs whose language is heard (models/transcribe/pack_gate.py) through the model alone: windows
encoded, wall time and words, one prediction at a time, the language heard, `translate: false`,
two ways interleaved:

- now: a pack is kept whole where Whisper is sure of its language, and, for one other than English,
  hears it too in each stretch's own frames of the pack's encoder output; after a pack not kept
  whole, stretches one by one until three in a row are sure of one language;
- throughout: packs kept whole only where surely English, every stretch packed (as at e7dd179).

    .venv/bin/python bench/heard_packs.py [REPEATS]

Three audios of 33 stretches of 7 s, 2 s of silence apart (a conversation's turns, where packing
matters; a reading's stretches fill their windows alone): German; English and German two by two;
English. Each stretch is cut from its reading at its own offset: a stretch said twice in one window
reads as a loop, which is said once (hallucinations.py). Each run's audio carries a faint noise of
its own (σ 10⁻³): the encoder memo keys windows by their content, and a repeat would find them.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from tempfile import TemporaryDirectory

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "models" / "transcribe"), str(ROOT / "models" / "transcribe" / "tests")]

import numpy as np  # noqa: E402

import pack_gate  # noqa: E402
import whisper_predictor  # noqa: E402
from clips import cut, german_reading, readings, write_wav  # noqa: E402

STRETCHES = 33


def audios() -> dict[str, np.ndarray]:
    silence = np.zeros(2 * 16000, dtype=np.float32)
    german, english = german_reading(), readings(english=True)

    def turns(pick: Callable[[int], np.ndarray]) -> np.ndarray:
        return np.concatenate([part for k in range(STRETCHES) for part in (cut(pick(k), 7 * k, 7), silence)])

    return {
        "German": turns(lambda k: german),
        "English and German, two by two": turns(lambda k: english if (k // 2) % 2 == 0 else german),
        "English": turns(lambda k: english),
    }


def main(repeats: int) -> None:
    whisper_predictor.log = lambda line: None
    transcriber = whisper_predictor.Transcriber()
    transcriber.setup()
    memo = transcriber.model.encode
    gated, pieces = pack_gate.PackGate.packing, whisper_predictor.needs_pieces
    files = audios()
    runs = 0
    ways = ["now", "throughout"]
    with TemporaryDirectory() as folder:

        def once(name: str, way: str) -> tuple[float, int, int]:
            nonlocal runs
            runs += 1
            whisper_predictor.needs_pieces = pieces if way == "now" else (lambda heard: False)
            pack_gate.PackGate.packing = gated if way == "now" else (lambda self: True)  # type: ignore[method-assign]
            noise = np.random.default_rng(runs).normal(0, 1e-3, files[name].size).astype(np.float32)
            path = Path(folder) / f"run-{runs}.wav"
            write_wav(path, files[name] + noise)
            windows, start = memo.windows, time.perf_counter()
            out = transcriber.transcribe(path, translate=False)
            return time.perf_counter() - start, memo.windows - windows, len(out["transcription"].split())

        once("German", "now")  # warm
        print("| run | audio | packs | wall s | windows | words |\n|---|---|---|---|---|---|")
        for repeat in range(repeats):
            for name in files:
                for way in ways if repeat % 2 == 0 else ways[::-1]:
                    seconds, windows, words = once(name, way)
                    print(f"| {repeat + 1} | {name} | {way} | {seconds:.1f} | {windows} | {words} |", flush=True)
    transcriber.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
