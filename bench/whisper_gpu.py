"""The transcription benchmark on a GPU, in one Python process (a GPU machine need not run the
service): prognoz's transcription (Transcriber.transcribe, what the model server runs) against
faster-whisper called directly on the same weights, device and compute type.

    python bench/whisper_gpu.py DIR [ROUNDS] [LONG_MINUTES] [MODEL ...]

For each model whose weights resolve (default: base, and large-v3-turbo where present) and each
clip of whisper_direct.py, the two sides run interleaved, ROUNDS times each, the order alternating
by round; the medians are compared. Raw faster-whisper runs twice over: as it comes
(`WhisperModel.transcribe` with its defaults) and as its README recommends on a GPU (the batched
pipeline, batch 16, with its VAD). The long clip gives the real-time factor of each: prognoz and the
batched pipeline interleaved ROUNDS times (medians), raw once. Prints one JSON report, then a table.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from faster_whisper import BatchedInferencePipeline, decode_audio

from weights import downloaded
from whisper_direct import RATE, make_clips, score
from whisper_predictor import Transcriber

#: The batch faster-whisper's README gives its batched pipeline on a GPU.
RECOMMENDED_BATCH = 16


def _segments(found: Any) -> list[dict[str, Any]]:
    return [{"start": s.start, "end": s.end, "text": s.text.strip()} for s in found]


def _timed(run: Callable[[], list[dict[str, Any]]]) -> tuple[float, list[dict[str, Any]]]:
    started = time.perf_counter()
    segments = run()
    return time.perf_counter() - started, segments


def bench_model(name: str, clips: dict[str, Any], rounds: int) -> dict[str, Any]:
    transcriber = Transcriber(model=name)
    loading = time.perf_counter()
    transcriber.setup()
    load_seconds = time.perf_counter() - loading
    model = transcriber.model
    assert model is not None
    batched = BatchedInferencePipeline(model=model)

    decoder = transcriber.decoder
    assert decoder is not None
    product_batch = decoder.batch

    def at_batch(batch: int) -> None:
        # What a prediction gathers, what a pass takes and what the decoder is told, alike.
        decoder.batch = transcriber.gathers = batch
        assert transcriber.scheduler is not None
        transcriber.scheduler.batch = batch

    def pipeline(file: str, batch: int = product_batch) -> Callable[[], list[dict[str, Any]]]:
        def run() -> list[dict[str, Any]]:
            at_batch(batch)
            return transcriber.transcribe(file)["segments"]

        return run

    def raw(file: str) -> Callable[[], list[dict[str, Any]]]:
        def run() -> list[dict[str, Any]]:
            model.encode.clear()  # nothing carried over from the pipeline's windows
            return _segments(model.transcribe(decode_audio(file, sampling_rate=RATE))[0])

        return run

    def raw_batched(file: str, batch: int = RECOMMENDED_BATCH) -> Callable[[], list[dict[str, Any]]]:
        def run() -> list[dict[str, Any]]:
            model.encode.clear()
            return _segments(batched.transcribe(decode_audio(file, sampling_rate=RATE), batch_size=batch)[0])

        return run

    first = clips["clips"][0]["file"]
    for warm in (pipeline(first), raw(first), raw_batched(first)):
        warm()
    rows = []
    for clip in clips["clips"]:
        sides = {"prognoz": pipeline(clip["file"]), "raw": raw(clip["file"])}
        times: dict[str, list[float]] = {side: [] for side in sides}
        heard: dict[str, list[dict[str, Any]]] = {}
        for r in range(rounds):
            for side in sides if r % 2 == 0 else reversed(list(sides)):
                seconds, heard[side] = _timed(sides[side])
                times[side].append(seconds)
        medians = {side: statistics.median(t) for side, t in times.items()}
        rows.append(
            {
                "clip": clip["name"],
                "seconds": clip["seconds"],
                "median_seconds": medians,
                "ratio": medians["prognoz"] / medians["raw"],
                "wer": {side: score(clip, segments) for side, segments in heard.items()},
            }
        )
    long_file, long_seconds = clips["long"]["file"], clips["long"]["seconds"]
    # prognoz against the batched pipeline, the comparison that matters, interleaved ROUNDS times,
    # at prognoz's batch and at the batch faster-whisper recommends (and at any batch that
    # BENCH_BATCHES lists); raw as it comes (several times as slow) once.
    tried = sorted(
        {product_batch, RECOMMENDED_BATCH, *(int(b) for b in os.environ.get("BENCH_BATCHES", "").split(",") if b)}
    )
    hour = {f"prognoz b{b}": pipeline(long_file, b) for b in tried} | {
        f"raw batched b{b}": raw_batched(long_file, b) for b in tried
    }
    hour_times: dict[str, list[float]] = {side: [] for side in hour}
    passes = 0  # prognoz's encoder passes over the hour, at its own batch
    for r in range(rounds):
        for side in hour if r % 2 == 0 else reversed(list(hour)):
            before = model.encode.passes
            seconds, _ = _timed(hour[side])
            hour_times[side].append(seconds)
            if side == f"prognoz b{product_batch}":
                passes = model.encode.passes - before
    at_batch(product_batch)
    raw_seconds, _ = _timed(raw(long_file))
    long = {
        side: {"seconds": statistics.median(t), "rtf": statistics.median(t) / long_seconds, "runs": t}
        for side, t in hour_times.items()
    }
    long["raw"] = {"seconds": raw_seconds, "rtf": raw_seconds / long_seconds, "runs": [raw_seconds]}
    settings = {
        "model": name,
        "device": transcriber.device,
        "compute_type": transcriber.compute_type,
        "batch": product_batch,
        "gathers": transcriber.gathers,
    }
    return {
        "settings": settings,
        "load_seconds": load_seconds,
        "clips": rows,
        "long": {"audio_seconds": long_seconds, "prognoz_encoder_passes": passes, **long},
    }


def table(report: dict[str, Any]) -> str:
    lines = []
    for result in report["models"]:
        s = result["settings"]
        lines.append(f"\n{s['model']} on {s['device']} ({s['compute_type']}), loaded in {result['load_seconds']:.1f} s")
        lines.append(f"{'clip':<24}{'prognoz s':>10}{'raw s':>8}{'ratio':>7}   WER prognoz / raw (whole; parts)")
        for row in result["clips"]:
            m, w = row["median_seconds"], row["wer"]
            parts = ", ".join(
                f"{p['label']} {p['wer']:.2f}/{q['wer']:.2f}"
                for p, q in zip(w["prognoz"]["parts"], w["raw"]["parts"], strict=True)
            )
            lines.append(
                f"{row['clip']:<24}{m['prognoz']:>10.2f}{m['raw']:>8.2f}{row['ratio']:>7.2f}   {w['prognoz']['wer']:.2f}/{w['raw']['wer']:.2f}; {parts}"
            )
        long = result["long"]
        minutes = long["audio_seconds"] / 60
        sides = ", ".join(
            f"{side} {v['seconds']:.1f} s (RTF {v['rtf']:.4f})" for side, v in long.items() if isinstance(v, dict)
        )
        ours, recommended = result["settings"]["batch"], RECOMMENDED_BATCH
        ratio = long[f"prognoz b{ours}"]["seconds"] / long[f"raw batched b{recommended}"]["seconds"]
        same = long[f"prognoz b{ours}"]["seconds"] / long[f"raw batched b{ours}"]["seconds"]
        lines.append(f"{minutes:.0f} min of speech: {sides}")
        lines.append(
            f"prognoz (batch {ours}) ÷ raw batched (batch {recommended}) {ratio:.2f}×; at the same batch {same:.2f}×"
        )
    return "\n".join(lines)


def main() -> None:
    folder = Path(sys.argv[1])
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    long_minutes = float(sys.argv[3]) if len(sys.argv) > 3 else 60
    models = sys.argv[4:] or ["base"] + (["large-v3-turbo"] if downloaded("large-v3-turbo") else [])
    # The transcriber logs by printing, as it does in the model server: to stderr here, so that
    # stdout carries the report alone.
    out, sys.stdout = sys.stdout, sys.stderr
    clips = make_clips(folder, long_minutes)
    report = {"rounds": rounds, "models": [bench_model(name, clips, rounds) for name in models]}
    print(json.dumps(report), file=out, flush=True)
    print(table(report), file=out, flush=True)


if __name__ == "__main__":
    main()
