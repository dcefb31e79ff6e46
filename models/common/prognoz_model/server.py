"""A Cog-like HTTP server for one model (DESIGN §5).

GET  /health-check              -> {"status": "STARTING" | "READY" | "BUSY" | "SETUP_FAILED"}
POST /predictions               {"id", "input"} -> {"status", "output", "error", "logs", "metrics"}
POST /predictions/{id}/cancel   stops that prediction promptly
GET  /predictions/{id}          this server's own record of a prediction (status, times, progress,
                                logs and streamed output pieces so far)
GET  /openapi.json              the model's input/output JSON Schema, when the predictor has one

One prediction runs at a time (a GPU task serves one); a second concurrent one gets 409.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections import OrderedDict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol

from .context import Canceled, ModelError, PredictionContext

log = logging.getLogger("prognoz.model")
RECORDS_KEPT = 1000


class Predictor(Protocol):
    def setup(self) -> None: ...

    def predict(self, input: dict[str, Any], context: PredictionContext) -> Any: ...


class _State:
    def __init__(self, predictor: Predictor) -> None:
        self.predictor = predictor
        self.status = "STARTING"
        self.setup_error: str | None = None
        self.lock = threading.Lock()
        self.running: PredictionContext | None = None
        self.records: OrderedDict[str, dict[str, Any]] = OrderedDict()

    def record(self, prediction_id: str, **fields: Any) -> None:
        with self.lock:
            entry = self.records.setdefault(prediction_id, {"id": prediction_id})
            entry.update(fields)
            self.records.move_to_end(prediction_id)
            while len(self.records) > RECORDS_KEPT:
                self.records.popitem(last=False)

    def setup(self) -> None:
        try:
            self.predictor.setup()
            self.status = "READY"
        except Exception as error:  # noqa: BLE001 - any setup failure is reported, not raised
            log.exception("setup failed")
            self.setup_error = str(error)
            self.status = "SETUP_FAILED"

    def run(self, prediction_id: str, payload: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        context = PredictionContext(prediction_id)
        with self.lock:
            if self.status != "READY":
                return 409, {"error": f"the model is {self.status}"}
            self.status = "BUSY"
            self.running = context
        started = time.monotonic()
        self.record(prediction_id, status="processing", started_at=time.time(), canceled_at=None, ended_at=None)
        response: dict[str, Any]
        try:
            output = self.predictor.predict(payload, context)
            response = {"status": "succeeded", "output": output, "error": None}
        except Canceled:
            response = {"status": "canceled", "output": None, "error": None}
        except ModelError as error:
            response = {"status": "failed", "output": None, "error": str(error)}
        except Exception as error:  # noqa: BLE001 - a crash in predict() fails the prediction
            log.exception("prediction %s crashed", prediction_id)
            response = {"status": "failed", "output": None, "error": f"{type(error).__name__}: {error}"}
        finally:
            with self.lock:
                self.running = None
                self.status = "READY"
        response["logs"] = "\n".join(context.logs)
        response["streamed"] = list(context.streamed)
        response["metrics"] = {"predict_time": round(time.monotonic() - started, 6)}
        self.record(prediction_id, status=response["status"], ended_at=time.time(), progress=context.progress)
        return 200, response

    def cancel(self, prediction_id: str) -> tuple[int, dict[str, Any]]:
        with self.lock:
            running = self.running
        if running is None or running.id != prediction_id:
            known = prediction_id in self.records
            return (200 if known else 404), {"id": prediction_id, "running": False}
        running.cancel()
        self.record(prediction_id, canceled_at=time.time())
        return 200, {"id": prediction_id, "running": True}


def _handler(state: _State, schema: dict[str, Any] | None) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body leave in two writes; with Nagle's algorithm on, the body waits for the
        # client's delayed ACK of the headers on a kept-alive connection: ~40 ms per answer.
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
            log.debug(format, *args)

        def _send(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _body(self) -> dict[str, Any] | None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except json.JSONDecodeError:
                return None
            return body if isinstance(body, dict) else None

        def do_GET(self) -> None:  # noqa: N802 - stdlib naming
            parts = [p for p in self.path.split("?")[0].split("/") if p]
            if parts == ["health-check"]:
                running = state.running
                self._send(
                    200,
                    {"status": state.status, "setup_error": state.setup_error, "prediction_id": running.id if running else None},
                )
            elif parts == ["openapi.json"] and schema is not None:
                self._send(200, schema)
            elif len(parts) == 2 and parts[0] == "predictions" and parts[1] in state.records:
                record = dict(state.records[parts[1]])
                running = state.running
                if running is not None and running.id == parts[1]:
                    record["progress"] = running.progress
                    record["logs"] = "\n".join(running.logs)
                    record["streamed"] = list(running.streamed)
                self._send(200, record)
            else:
                self._send(404, {"error": "not found"})

        def do_POST(self) -> None:  # noqa: N802 - stdlib naming
            parts = [p for p in self.path.split("?")[0].split("/") if p]
            body = self._body()
            if body is None:
                self._send(400, {"error": "the body must be a JSON object"})
            elif parts == ["predictions"]:
                prediction_id, payload = body.get("id"), body.get("input")
                if not isinstance(prediction_id, str) or not isinstance(payload, dict):
                    self._send(400, {"error": "expected {\"id\": string, \"input\": object}"})
                    return
                self._send(*state.run(prediction_id, payload))
            elif len(parts) == 3 and parts[0] == "predictions" and parts[2] == "cancel":
                self._send(*state.cancel(parts[1]))
            else:
                self._send(404, {"error": "not found"})

    return Handler


def serve(predictor: Predictor, schema: dict[str, Any] | None = None) -> None:
    """Runs the server on $PORT (default 5000) until killed; setup runs in the background."""
    logging.basicConfig(level=os.environ.get("LOG_LEVEL", "INFO"), format="%(asctime)s %(name)s %(message)s")
    state = _State(predictor)
    server = ThreadingHTTPServer((os.environ.get("HOST", "127.0.0.1"), int(os.environ.get("PORT", "5000"))), _handler(state, schema))
    server.daemon_threads = True
    threading.Thread(target=state.setup, daemon=True).start()
    log.info("model server listening on %s:%s", *server.server_address[:2])
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
