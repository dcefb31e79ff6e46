"""prognoz/echo: its Predictor called directly, and run by the real coglet (Cog's HTTP server)."""

from __future__ import annotations

import hashlib
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from cog import CancelationException
from cog import Path as CogPath

from echo.predict import ModelError, Output, Predictor
from prognoz_cog.testing import Coglet, Webhooks, cancel_thread, coglet_fixture

FOLDER = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def predictor() -> Predictor:
    instance = Predictor()
    instance.setup()
    return instance


def run(predictor: Predictor, **input: Any) -> Output:
    defaults = {"text": "hello", "repeat": 1, "sleep": 0.0, "fail": False, "file": None}
    return predictor.predict(**{**defaults, **input})


def test_echoes_text(predictor: Predictor) -> None:
    out = run(predictor, text="привет")
    assert out.text == "привет"
    assert out.file is None


def test_repeats_on_demand(predictor: Predictor) -> None:
    assert run(predictor, text="ab", repeat=3).text == "ababab"


def test_reports_a_local_files_size_and_sha256(predictor: Predictor, tmp_path: Path) -> None:
    data = os.urandom(3 * (1 << 20) + 17)  # more than one read
    (tmp_path / "blob").write_bytes(data)
    out = run(predictor, file=CogPath(tmp_path / "blob"))
    assert out.file == {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def test_fails_on_demand_with_a_message_for_the_caller(predictor: Predictor) -> None:
    with pytest.raises(ModelError, match=r"^prognoz/echo failed on purpose \(input fail: true\)$"):
        run(predictor, fail=True)


def test_sleeps_logs_and_reports_progress(
    predictor: Predictor, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded: list[tuple[str, float]] = []
    monkeypatch.setattr(predictor, "record_metric", lambda key, value, mode="replace": recorded.append((key, value)))
    started = time.monotonic()
    run(predictor, sleep=0.3)
    assert 0.3 <= time.monotonic() - started < 1.5
    assert capsys.readouterr().out == "sleeping 0.3 s\n"
    values = [value for key, value in recorded if key == "progress"]
    assert len(values) >= 3 and values == sorted(values) and values[-1] == 1.0
    assert 0 < values[0] < 1


def test_record_metric_outside_a_prediction_is_a_no_op(predictor: Predictor) -> None:
    predictor.record_metric("progress", 0.5)


def test_a_cancel_lands_within_one_slice_of_the_sleep(predictor: Predictor) -> None:
    """coglet cancels by raising CancelationException in the predict thread, between bytecodes."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            run(predictor, sleep=30)
        except CancelationException:
            outcome["canceled_at"] = time.monotonic()

    thread = threading.Thread(target=target)
    thread.start()
    time.sleep(0.2)
    canceled = time.monotonic()
    cancel_thread(thread)
    thread.join(5)
    assert outcome["canceled_at"] - canceled < 0.5


# --- run by the real coglet -------------------------------------------------------------------------


coglet = coglet_fixture(FOLDER)


def test_coglet_is_ready(coglet: Coglet) -> None:
    status, health = coglet.call("GET", "/health-check")
    assert status == 200 and health["status"] == "READY"


def test_coglet_sync_prediction(coglet: Coglet, tmp_path: Path) -> None:
    (tmp_path / "blob").write_bytes(b"abc")
    status, body = coglet.call(
        "POST", "/predictions", {"id": "sync", "input": {"text": "hi ", "repeat": 2, "file": str(tmp_path / "blob")}}
    )
    assert status == 200
    assert body["status"] == "succeeded"
    assert body["output"] == {"text": "hi hi ", "file": {"size": 3, "sha256": hashlib.sha256(b"abc").hexdigest()}}
    assert body["metrics"]["progress"] == 1.0
    assert body["logs"] == "sleeping 0 s\n"


def test_coglet_validates_inputs_with_the_bundled_schema(coglet: Coglet) -> None:
    status, body = coglet.call("POST", "/predictions", {"input": {"repeat": 101}})
    assert status == 422
    assert body["detail"][0]["loc"] == ["body", "input", "repeat"]


def test_coglet_async_prediction_reports_by_webhook(coglet: Coglet, webhooks: Webhooks) -> None:
    status, body = coglet.start("async", {"text": "hey", "sleep": 0.2}, webhooks.url)
    assert status == 202 and body["status"] == "starting"
    completed, seen = webhooks.until("async", "succeeded", timeout=10)
    assert seen[0]["status"] == "processing"
    assert completed["output"] == {"text": "hey", "file": None}
    assert completed["logs"] == "sleeping 0.2 s\n"
    assert completed["metrics"]["progress"] == 1.0


def test_coglet_failure_reads_as_the_models_message(coglet: Coglet, webhooks: Webhooks) -> None:
    coglet.start("fails", {"fail": True}, webhooks.url)
    failed, _ = webhooks.until("fails", "failed", timeout=10)
    # coglet words it "Prediction failed: Prediction failed: <exception type>: <message>".
    assert failed["error"].endswith(": ModelError: prognoz/echo failed on purpose (input fail: true)")
    assert failed["logs"] == "sleeping 0 s\n"


def test_coglet_cancel_ends_a_sleep_within_2_s(coglet: Coglet, webhooks: Webhooks) -> None:
    coglet.start("sleepy", {"sleep": 30}, webhooks.url)
    webhooks.until("sleepy", "processing", timeout=10)
    time.sleep(0.3)  # into the sleep
    canceled = time.monotonic()
    status, _ = coglet.call("POST", "/predictions/sleepy/cancel")
    assert status == 200
    body, _ = webhooks.until("sleepy", "canceled", timeout=5)
    assert time.monotonic() - canceled < 2
    assert body["metrics"]["predict_time"] < 2
    assert body["logs"] == "sleeping 30 s\n"
    coglet.wait_for("READY", 5)
