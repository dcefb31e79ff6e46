"""prognoz/stream: its Predictor called directly, and run by the real coglet (pieces by webhook)."""

from __future__ import annotations

import threading
import time
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from cog import CancelationException

from prognoz_cog.testing import Coglet, Webhooks, cancel_thread, coglet_fixture
from stream.predict import Predictor

FOLDER = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def predictor() -> Predictor:
    instance = Predictor()
    instance.setup()
    return instance


def test_streams_word_by_word_with_the_following_whitespace(predictor: Predictor) -> None:
    pieces = list(predictor.predict(text="  one two\tthree\n\nfour ", sleep=0))
    assert pieces == ["  ", "one ", "two\t", "three\n\n", "four "]


def test_defaults_and_empty_text(predictor: Predictor) -> None:
    assert list(predictor.predict(text="hello world", sleep=0)) == ["hello ", "world"]
    assert list(predictor.predict(text="", sleep=0)) == [""]


def test_logs_and_progress_per_piece(
    predictor: Predictor, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded: list[tuple[str, float]] = []
    monkeypatch.setattr(predictor, "record_metric", lambda key, value, mode="replace": recorded.append((key, value)))
    list(predictor.predict(text="a b c d", sleep=0))
    assert capsys.readouterr().out == "".join(f"streamed piece {i}/4\n" for i in range(1, 5))
    assert recorded == [("progress", 0.25), ("progress", 0.5), ("progress", 0.75), ("progress", 1.0)]


def test_the_sleep_is_spread_between_the_pieces(predictor: Predictor) -> None:
    started = time.monotonic()
    times = [time.monotonic() - started for _ in predictor.predict(text="one two three four", sleep=0.4)]
    assert times[0] >= 0.1 and times[-1] >= 0.4
    assert times[-1] < 1.5
    assert all(later - earlier >= 0.09 for earlier, later in pairwise(times))


def test_a_cancel_lands_within_one_slice_of_a_pause(predictor: Predictor) -> None:
    outcome: dict[str, Any] = {"pieces": []}

    def target() -> None:
        try:
            for piece in predictor.predict(text="one two", sleep=60):
                outcome["pieces"].append(piece)
        except CancelationException:
            outcome["canceled_at"] = time.monotonic()

    thread = threading.Thread(target=target)
    thread.start()
    time.sleep(0.2)
    canceled = time.monotonic()
    cancel_thread(thread)
    thread.join(5)
    assert outcome["canceled_at"] - canceled < 0.5
    assert outcome["pieces"] == []


# --- run by the real coglet -------------------------------------------------------------------------


coglet = coglet_fixture(FOLDER)


def test_coglet_sends_the_pieces_as_they_come(coglet: Coglet, webhooks: Webhooks) -> None:
    text = "one two three four five six"
    status, _ = coglet.start("words", {"text": text, "sleep": 1.2}, webhooks.url)
    assert status == 202
    completed, seen = webhooks.until("words", "succeeded", timeout=15)
    assert completed["output"] == ["one ", "two ", "three ", "four ", "five ", "six"]
    assert completed["logs"].endswith("streamed piece 6/6\n")
    assert completed["metrics"]["progress"] == 1.0
    # While it ran, each output webhook carried the pieces so far (webhooks may arrive out of order).
    partial = [body["output"] for body in seen if body["status"] == "processing" and body.get("output")]
    assert any(0 < len(output) < 6 for output in partial)
    assert all(output == completed["output"][: len(output)] for output in partial)


def test_coglet_cancels_a_stream(coglet: Coglet, webhooks: Webhooks) -> None:
    coglet.start("long", {"text": "one two three", "sleep": 60}, webhooks.url)
    webhooks.until("long", "processing", timeout=10)
    time.sleep(0.2)
    canceled = time.monotonic()
    assert coglet.call("POST", "/predictions/long/cancel")[0] == 200
    webhooks.until("long", "canceled", timeout=5)
    assert time.monotonic() - canceled < 2
    coglet.wait_for("READY", 5)
