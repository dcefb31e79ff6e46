"""Entry point of the transcription model server: `python models/transcribe/main.py`."""

import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "common"))

from whisper_predictor import TranscribePredictor  # noqa: E402
from prognoz_model import serve  # noqa: E402

if __name__ == "__main__":
    serve(TranscribePredictor())
