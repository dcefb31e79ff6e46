"""Concurrent predictions share the model: several at once, each with its own inputs, progress,
logs and cancel, hear what they hear one at a time. The decoder's passes gather the stretches of
every prediction in flight; on this CPU a prediction hands each stretch on as it is found, and a
GPU's way, where a prediction gathers a batch of its own first, is run here too."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from audio_stream import duration_of
from clips import AUDIO, german_half, long_clip, two_speakers
from decoding import BATCH_SIZE
from references import wer
from running import CogletMetrics, CogletStdout, predicted_as, run
from transcribe.predict import ModelError, Predictor
from whisper_predictor import Transcriber

#: The transcripts of the predictions at once against those of the same clips one at a time.
MAX_WER = 0.02

Clips = dict[str, tuple[Path, dict[str, Any]]]


@pytest.fixture(scope="module")
def clips(folder: Path) -> Clips:
    """Five clips of the shared audio, each with inputs of its own."""
    speakers, _ = two_speakers(folder)
    return {
        "jfk": (AUDIO / "jfk.flac", {"word_timestamp": True}),
        "german": (german_half(folder), {"language": "de"}),
        "speakers": (speakers, {"diarize": True, "speakers": 2}),
        "multilingual": (AUDIO / "multilingual.mp3", {}),
        "untranslated": (german_half(folder), {"translate": False}),
    }


@pytest.fixture(scope="module")
def alone(predictor: Predictor, clips: Clips) -> dict[str, dict[str, Any]]:
    """Each clip's output, one prediction at a time."""
    return {name: run(predictor, path, **inputs) for name, (path, inputs) in clips.items()}


def coglet_routing(predictor: Predictor, monkeypatch: pytest.MonkeyPatch) -> tuple[CogletStdout, CogletMetrics]:
    """Logs and metrics routed by prediction as coglet routes them. Called in the test itself:
    pytest puts its own capture back on sys.stdout between a fixture's setup and the test."""
    stdout, metrics = CogletStdout(), CogletMetrics()
    monkeypatch.setattr(sys, "stdout", stdout)
    monkeypatch.setattr(predictor, "record_metric", metrics)
    return stdout, metrics


def at_once(predictor: Predictor, runs: dict[str, tuple[Path, dict[str, Any]]]) -> dict[str, Any]:
    """The predictions started together on one event loop (as coglet runs them): each one's output,
    or what it raised."""

    async def together() -> dict[str, Any]:
        tasks = [
            asyncio.create_task(predicted_as(name, predictor, path, **inputs)) for name, (path, inputs) in runs.items()
        ]
        return dict(zip(runs, await asyncio.gather(*tasks, return_exceptions=True), strict=True))

    return asyncio.run(together())


def assert_heard_alike(output: dict[str, Any], reference: dict[str, Any]) -> None:
    assert wer(reference["transcription"], output["transcription"]) <= MAX_WER
    assert (output["translation"] is None) == (reference["translation"] is None)
    if reference["translation"] is not None:
        assert wer(reference["translation"], output["translation"]) <= MAX_WER
    assert output["detected_language"] == reference["detected_language"]


def test_predictions_at_once_hear_what_they_hear_alone_each_with_its_own_inputs_progress_and_logs(
    predictor: Predictor,
    clips: Clips,
    alone: dict[str, dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stdout, metrics = coglet_routing(predictor, monkeypatch)
    outputs = at_once(predictor, clips)
    for name, output in outputs.items():
        assert not isinstance(output, BaseException), f"{name}: {output!r}"
        assert_heard_alike(output, alone[name])
    # Each its own inputs.
    assert all(segment["words"] for segment in outputs["jfk"]["segments"])
    assert {segment["language"] for segment in outputs["german"]["segments"]} == {"de"}
    assert len({segment["speaker"] for segment in outputs["speakers"]["segments"]}) == 2
    assert {segment["language"] for segment in outputs["multilingual"]["segments"]} == {"en", "de"}
    assert all("words" not in segment for segment in outputs["multilingual"]["segments"])
    assert outputs["untranslated"]["translation"] is None and outputs["german"]["translation"]
    # Each its own progress and log lines, none of them told to another prediction or to none.
    for name, (path, _) in clips.items():
        progress = metrics.progress(name)
        assert progress and progress == sorted(progress) and progress[-1] == 1.0, name
        lines = stdout.lines[name]
        assert [line for line in lines if line.startswith("transcribing")] == [
            f"transcribing {duration_of(path):.1f} s of audio"
        ]
        detected = [line for line in lines if ": language " in line]
        assert all(float(line.split("–")[1].split(" ")[0]) <= duration_of(path) + 0.5 for line in detected), name
        assert detected if name != "german" else not detected
    assert any(line.startswith("telling 2 speaker(s) apart") for line in stdout.lines["speakers"])
    assert not metrics.recorded[None] and not stdout.lines[None]


def test_a_cancel_ends_its_prediction_only(
    predictor: Predictor,
    folder: Path,
    clips: Clips,
    alone: dict[str, dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, metrics = coglet_routing(predictor, monkeypatch)
    long = long_clip(folder)

    async def cancel_one() -> tuple[float, list[Any]]:
        canceled = asyncio.create_task(predicted_as("long", predictor, long))
        others = [
            asyncio.create_task(predicted_as(name, predictor, *clips[name][:1], **clips[name][1]))
            for name in ("jfk", "german")
        ]
        deadline = time.monotonic() + 60
        while not metrics.progress("long") and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert metrics.progress("long")[-1] < 1
        at = time.monotonic()
        canceled.cancel()  # as coglet cancels an async prediction
        with pytest.raises(asyncio.CancelledError):
            await canceled
        took = time.monotonic() - at
        return took, await asyncio.gather(*others)

    took, (jfk, german) = asyncio.run(cancel_one())
    assert took < 2
    assert_heard_alike(jfk, alone["jfk"])
    assert_heard_alike(german, alone["german"])
    # The canceled prediction's thread stops at its next stretch rather than transcribing the rest.
    predictor.transcriber.close(timeout=60)
    assert predictor.transcriber._workers == []
    assert metrics.progress("long")[-1] < 0.5


def test_a_bad_file_fails_its_prediction_only(
    predictor: Predictor, folder: Path, clips: Clips, alone: dict[str, dict[str, Any]]
) -> None:
    page = folder / "page.html"
    page.write_text("<html><body>not audio</body></html>")
    outputs = at_once(predictor, {"page": (page, {}), "missing": (folder / "missing.wav", {}), "jfk": clips["jfk"]})
    assert isinstance(outputs["page"], ModelError) and "not audio that can be decoded" in str(outputs["page"])
    assert isinstance(outputs["missing"], ModelError) and str(outputs["missing"]) == "the audio file could not be read"
    assert_heard_alike(outputs["jfk"], alone["jfk"])


def test_the_batched_decoder_gathers_the_stretches_of_the_predictions_in_flight(clips: Clips) -> None:
    """A GPU's way: passes of up to 16 stretches, each prediction's gathered first, from whichever
    predictions have them waiting."""
    transcriber = Transcriber()
    transcriber.setup()
    transcriber.gathers = BATCH_SIZE
    assert transcriber.scheduler is not None
    transcriber.scheduler.fill_wait = 0  # as on a GPU
    runs = {name: clips[name] for name in ("jfk", "german", "speakers")}
    runs["jfk, plain"] = (clips["jfk"][0], {})
    one_at_a_time = {name: transcriber.transcribe(path, **inputs) for name, (path, inputs) in runs.items()}
    transcriber.scheduler.passes.clear()

    async def together() -> list[dict[str, Any]]:
        return await asyncio.gather(*(transcriber.transcribe_async(path, **inputs) for path, inputs in runs.values()))

    for name, output in zip(runs, asyncio.run(together()), strict=True):
        assert_heard_alike(output, one_at_a_time[name])
    shared = [each for each in transcriber.scheduler.passes if each.predictions > 1]
    assert shared, transcriber.scheduler.passes
    # With and without word times in one pass: the batched pipeline times words in every transcription.
    assert any(each.key[:3] == ("decode", "en", "transcribe") and each.predictions >= 2 for each in shared)


def test_on_a_cpu_predictions_that_arrive_together_share_their_first_pass(predictor: Predictor) -> None:
    """The first to find its speech does not take a pass alone while the others read their audio."""
    transcriber = predictor.transcriber
    assert transcriber.scheduler is not None and transcriber.gathers == 1
    transcriber.scheduler.passes.clear()

    async def together() -> list[dict[str, Any]]:
        return await asyncio.gather(
            *(transcriber.transcribe_async(AUDIO / "jfk.flac", language="en") for _ in range(3))
        )

    outputs = asyncio.run(together())
    assert len({output["transcription"] for output in outputs}) == 1 and outputs[0]["transcription"]
    assert [(each.key[:2], each.predictions) for each in transcriber.scheduler.passes] == [(("decode", "en"), 3)]
