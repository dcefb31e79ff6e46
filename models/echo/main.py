"""Entry point of the echo model server: `python models/echo/main.py` (PORT, HOST from the env)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))

from echo_predictor import EchoPredictor  # noqa: E402
from prognoz_model import serve  # noqa: E402

if __name__ == "__main__":
    serve(EchoPredictor())
