"""openai/whisper-base on the shared test audio: the Cog predictor called directly (the audio a
local file, as the worker hands it over), and once run by the real coglet."""

from __future__ import annotations

import dataclasses
import re
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml
from cog import CancelationException
from cog import Path as CogPath

import whisper_predictor
from clips import AUDIO, encoded, german_half, long_clip, two_speakers
from prognoz_cog.testing import Coglet, Webhooks, cancel_thread
from transcribe.predict import WHISPER_LANGUAGES, ModelError, Output, Predictor

FOLDER = Path(__file__).resolve().parents[1]

JFK = "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country."
# The German reading of the MIT licence in multilingual.mp3: its opening as the testdata README
# gives it, then the rest of that translation.
GERMAN = (
    "Jedem, der dieses Software und die dazu gehörigen Dokumentationsdateien erhält, wird hiermit unentgeltlich "
    "die Genehmigung erteilt, mit der Software uneingeschränkt zu verfahren. Dies umfasst insbesondere das Recht, "
    "die Software zu verwenden, zu vervielfältigen, zu modifizieren, zusammenzufügen, zu veröffentlichen, zu verteilen, "
    "unterzulizenzieren und/oder Kopien der Software zu verkaufen und diese Rechte unter folgenden Bedingungen "
    "anderen zu übertragen."
)
# The same passage of the MIT licence in English: what a translation of the German half renders.
ENGLISH = (
    "Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated "
    "documentation files (the Software), to deal in the Software without restriction, including without limitation "
    "the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and "
    "to permit persons to whom the Software is furnished to do so, subject to the following conditions:"
)
LEFT = "He began a confused complaint against the wizard, who had vanished behind the curtain on the left."
RIGHT = "The horizon seems extremely distant."


def words(text: str) -> list[str]:
    return re.findall(r"[\w']+", text.lower().replace("/", " "))


def shared_vocabulary(reference: str, hypothesis: str) -> float:
    """The share of the reference's distinct words that the hypothesis uses."""
    ref = set(words(reference))
    return len(ref & set(words(hypothesis))) / len(ref)


def wer(reference: str, hypothesis: str) -> float:
    ref, hyp = words(reference), words(hypothesis)
    row = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        previous, row[0] = row[0], i
        for j, h in enumerate(hyp, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (r != h))
    return row[-1] / len(ref)


def run(predictor: Predictor, audio: Path, **input: Any) -> dict[str, Any]:
    """predict() with the inputs' defaults (as coglet passes them), its Output as the JSON object."""
    inputs = {"model": "base", "language": "auto", "diarize": False, "speakers": 1, "word_timestamp": False, **input}
    output = predictor.predict(audio=CogPath(audio), **inputs)
    assert isinstance(output, Output)
    return dataclasses.asdict(output)


def test_jfk_english(predictor: Predictor) -> None:
    out = run(predictor, AUDIO / "jfk.flac", word_timestamp=True)
    assert wer(JFK, out["transcription"]) <= 0.10
    assert out["detected_language"] == "en"
    assert out["translation"] is None
    for segment in out["segments"]:
        assert set(segment) == {"id", "start", "end", "text", "words"}
        assert segment["words"]
        for word in segment["words"]:
            assert set(word) == {"word", "start", "end", "probability"}
            assert word["start"] < word["end"]
            assert segment["start"] - 0.01 <= word["start"] and word["end"] <= segment["end"] + 0.01
            assert 0 <= word["probability"] <= 1


def test_progress_and_logs(predictor: Predictor, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    recorded: list[tuple[str, float]] = []
    monkeypatch.setattr(predictor, "record_metric", lambda key, value, mode="replace": recorded.append((key, value)))
    run(predictor, AUDIO / "jfk.flac")
    values = [value for key, value in recorded if key == "progress"]
    assert values and values == sorted(values) and values[-1] == 1.0
    logs = capsys.readouterr().out
    assert "transcribing 11.0 s of audio" in logs and "language: en (detected" in logs


@pytest.mark.parametrize(("container", "codec", "extension"), [("ogg", "libopus", "ogg"), ("ipod", "aac", "m4a"), ("wav", "pcm_s16le", "wav")])
def test_common_formats_decode(predictor: Predictor, folder: Path, container: str, codec: str, extension: str) -> None:
    out = run(predictor, encoded(folder, "jfk.flac", container, codec, extension))
    assert wer(JFK, out["transcription"]) <= 0.10


def test_no_word_times_unless_asked(predictor: Predictor) -> None:
    out = run(predictor, AUDIO / "jfk.flac")
    assert all(set(segment) == {"id", "start", "end", "text"} for segment in out["segments"])


def test_german_half_detected_transcribed_and_translated(predictor: Predictor, folder: Path) -> None:
    out = run(predictor, german_half(folder))
    assert out["detected_language"] == "de"
    assert wer(GERMAN, out["transcription"]) <= 0.25
    assert out["translation"]
    # Whisper base translates loosely (a word error rate near 0.9 against the licence's English
    # wording), so the English is judged by the share of that wording's vocabulary it uses, with a
    # tolerance, and by using next to none of the German — never by exact words, since int8
    # decoding differs between CPUs ("software" on one, "softwares" on another).
    assert shared_vocabulary(ENGLISH, out["translation"]) >= 0.2
    assert shared_vocabulary(GERMAN, out["translation"]) <= 0.1


def test_whole_multilingual_file_reports_its_language(predictor: Predictor) -> None:
    out = run(predictor, AUDIO / "multilingual.mp3")
    assert out["detected_language"] in ("en", "de")
    assert out["transcription"]


def test_forced_language(predictor: Predictor) -> None:
    out = run(predictor, AUDIO / "jfk.flac", language="en")
    assert out["detected_language"] == "en"
    assert wer(JFK, out["transcription"]) <= 0.10


def test_two_speakers(predictor: Predictor, folder: Path) -> None:
    path, boundary = two_speakers(folder)

    out = run(predictor, path, diarize=True, speakers=2, word_timestamp=True)

    labelled = [(w["start"], segment["speaker"]) for segment in out["segments"] for w in segment["words"]]
    assert len({speaker for _, speaker in labelled}) == 2
    first = [speaker for start, speaker in labelled if start < boundary]
    second = [speaker for start, speaker in labelled if start >= boundary]
    assert len(first) >= len(words(LEFT)) * 0.8 and len(second) >= len(words(RIGHT)) * 0.8
    label_first = max(set(first), key=first.count)
    label_second = max(set(second), key=second.count)
    assert label_first != label_second
    assert first.count(label_first) / len(first) >= 0.85
    assert second.count(label_second) / len(second) >= 0.85
    assert wer(LEFT + " " + RIGHT, out["transcription"]) <= 0.25


def test_one_speaker_gets_one_label(predictor: Predictor) -> None:
    out = run(predictor, AUDIO / "jfk.flac", diarize=True, speakers=1)
    assert {segment["speaker"] for segment in out["segments"]} == {"SPEAKER_00"}


def test_bad_files_fail_clearly(predictor: Predictor, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (folder / "page.html").write_text("<html><body>not audio</body></html>")
    (folder / "empty.wav").write_bytes(b"")
    with pytest.raises(ModelError, match="^the audio file could not be read$"):
        run(predictor, folder / "missing.wav")
    with pytest.raises(ModelError, match=r"^the audio file is not audio that can be decoded \(\w+\)$"):
        run(predictor, folder / "page.html")
    with pytest.raises(ModelError, match="^the audio file is not audio that can be decoded|^the audio file holds no audio$"):
        run(predictor, folder / "empty.wav")
    monkeypatch.setattr(whisper_predictor, "MAX_AUDIO_BYTES", 1000)
    with pytest.raises(ModelError, match=r"^the audio file is \d+ bytes, over the 1000-byte limit$"):
        run(predictor, AUDIO / "jfk.flac")


def test_a_closed_consumer_stops_its_producer_thread() -> None:
    """What a cancel does to a transcription: the consumer ends, and so does the thread feeding it."""
    produced: list[int] = []

    def produce() -> Iterator[int]:
        for number in range(1_000_000):
            time.sleep(0.01)
            produced.append(number)
            yield number

    workers: list[threading.Thread] = []
    consumer = whisper_predictor._cancelable(produce, workers)
    assert next(consumer) == 0
    consumer.close()
    workers[0].join(2)
    assert not workers[0].is_alive()
    assert len(produced) < 20


def test_cancel_ends_a_long_transcription_within_2_s_and_stops_its_thread(predictor: Predictor, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = long_clip(folder)  # four minutes
    progress: list[float] = []
    monkeypatch.setattr(predictor, "record_metric", lambda key, value, mode="replace": progress.append(value))
    outcome: dict[str, Any] = {}

    def transcribe() -> None:
        try:
            outcome["output"] = run(predictor, path)
        except CancelationException:
            outcome["canceled_at"] = time.monotonic()

    thread = threading.Thread(target=transcribe)
    thread.start()
    deadline = time.monotonic() + 60
    while not progress and time.monotonic() < deadline:
        time.sleep(0.05)
    assert progress and progress[-1] < 1, "no progress was reported while transcribing"
    canceled = time.monotonic()
    cancel_thread(thread)
    thread.join(10)
    assert "canceled_at" in outcome
    assert outcome["canceled_at"] - canceled < 2
    # The decoding thread stops at its next segment, rather than transcribing the rest.
    started = time.monotonic()
    predictor.transcriber.close(timeout=60)
    assert predictor.transcriber._workers == []
    assert time.monotonic() - started < 30


def test_the_languages_are_the_services() -> None:
    """Whisper base's 99 language tokens: faster-whisper's codes but Cantonese (a large-v3 addition)."""
    import faster_whisper.tokenizer

    assert len(WHISPER_LANGUAGES) == len(set(WHISPER_LANGUAGES)) == 99
    assert set(WHISPER_LANGUAGES) == set(faster_whisper.tokenizer._LANGUAGE_CODES) - {"yue"}


def test_the_image_installs_the_speaker_weights_pin_of_the_local_environment() -> None:
    config = yaml.safe_load((FOLDER / "cog.yaml").read_text())
    pins = [line for line in (FOLDER / "requirements-weights-only.txt").read_text().splitlines() if line and not line.startswith("#")]
    assert pins == ["resemblyzer==0.1.4"]
    assert f"pip install --no-deps {pins[0]}" in config["build"]["run"]


# --- run by the real coglet -------------------------------------------------------------------------


def test_coglet_transcribes_a_local_file_and_fails_clearly(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text("<html>not audio</html>")
    webhooks = Webhooks()
    try:
        with Coglet(FOLDER, tmp_path, ready_timeout=120) as coglet:
            setup_logs = coglet.health()["setup"]["logs"]
            assert "loading Whisper base" in setup_logs and "(cpu, int8)" in setup_logs
            status, _ = coglet.start("jfk", {"audio": str(AUDIO / "jfk.flac"), "word_timestamp": True}, webhooks.url)
            assert status == 202
            done, _ = webhooks.until("jfk", "succeeded", timeout=120)
            out = done["output"]
            assert set(out) == {"segments", "transcription", "translation", "detected_language"}
            assert wer(JFK, out["transcription"]) <= 0.10
            assert out["translation"] is None and out["detected_language"] == "en"
            assert all(segment["words"] for segment in out["segments"])
            assert done["metrics"]["progress"] == 1.0
            assert "transcribing 11.0 s of audio" in done["logs"]

            coglet.start("page", {"audio": str(page)}, webhooks.url)
            failed, _ = webhooks.until("page", "failed", timeout=60)
            assert re.search(r": ModelError: the audio file is not audio that can be decoded \(\w+\)$", failed["error"])

            assert coglet.call("POST", "/predictions", {"input": {"audio": str(page), "language": "xx"}})[0] == 422
    finally:
        webhooks.close()
