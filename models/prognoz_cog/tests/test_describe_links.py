"""A predictor whose code is a link to another folder's (models/whisper-large-v3-turbo shares
models/transcribe's) is described as its own folder has it: the files beside the link are its."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

MODELS = Path(__file__).resolve().parents[2]

READS_ITS_FOLDER = """
import pathlib

from cog import BasePredictor, Input

NAME = (pathlib.Path(__file__).parent / "name").read_text().strip()


class Predictor(BasePredictor):
    def predict(self, model: str = Input(default=NAME)) -> str:
        return model
"""


def test_a_linked_predict_py_reads_the_files_of_the_folder_it_is_linked_from(tmp_path: Path) -> None:
    for folder, name in (("shared", "small"), ("big", "large")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "cog.yaml").write_text('predict: "predict.py:Predictor"\n')
        (tmp_path / folder / "name").write_text(name)
    (tmp_path / "shared" / "predict.py").write_text(READS_ITS_FOLDER)
    (tmp_path / "big" / "predict.py").symlink_to(Path("..") / "shared" / "predict.py")

    env = {**os.environ, "PYTHONPATH": str(MODELS)}
    defaults = {}
    for folder in ("shared", "big"):
        result = subprocess.run(
            [sys.executable, "-m", "prognoz_cog.describe", str(tmp_path / folder)],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 0, result.stderr
        defaults[folder] = json.loads(result.stdout)["input"]["properties"]["model"]["default"]
    assert defaults == {"shared": "small", "big": "large"}
