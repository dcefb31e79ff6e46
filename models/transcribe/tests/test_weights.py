"""Where a Whisper model name's weights are found: the image's folder, else a local copy, else the
name itself (faster-whisper downloads it)."""

from __future__ import annotations

from pathlib import Path

import pytest

import weights


@pytest.fixture
def folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    image, local = tmp_path / "opt-whisper", tmp_path / "weights"
    monkeypatch.setattr(weights, "IMAGE_WEIGHTS", image)
    monkeypatch.setenv("PROGNOZ_WEIGHTS_DIR", str(local))
    return image, local


def put(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "model.bin").write_bytes(b"x")
    return folder


def test_a_name_without_weights_goes_to_faster_whisper(folders: tuple[Path, Path]) -> None:
    _, local = folders
    (local / "large-v3-turbo").mkdir(parents=True)  # a folder without model.bin is no copy
    assert weights.resolve_model("large-v3-turbo") == "large-v3-turbo"


def test_a_local_copy_serves_where_the_image_has_none(folders: tuple[Path, Path]) -> None:
    _, local = folders
    copy = put(local / "large-v3-turbo")
    assert weights.resolve_model("large-v3-turbo") == str(copy)


def test_the_image_folder_comes_first(folders: tuple[Path, Path]) -> None:
    image, local = folders
    put(local / "large-v3-turbo")
    turbo, base = put(image / "large-v3-turbo"), put(image / "base")
    assert weights.resolve_model("large-v3-turbo") == str(turbo)
    assert weights.resolve_model("base") == str(base)


def test_the_default_local_folder_is_in_the_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PROGNOZ_WEIGHTS_DIR", raising=False)
    assert weights.weights_dir() == Path(__file__).resolve().parents[3] / ".prognoz" / "weights"
