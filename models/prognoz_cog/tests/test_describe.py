"""prognoz_cog.describe on tiny predictors: the schemas Cog's OpenAPI generator would give them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

MODELS = Path(__file__).resolve().parents[2]

EVERY_KIND = """
print("the predictor module prints while it is imported")

from typing import Optional

from cog import BaseModel, BasePredictor, Input, Path, Secret


class Output(BaseModel):
    text: str
    count: int
    score: Optional[float]
    tags: list[str]
    extra: Optional[dict]


class Predictor(BasePredictor):
    def setup(self) -> None:
        print("setup does not run when described")

    def predict(
        self,
        prompt: str = Input(description="What to say.", min_length=1, max_length=50),
        image: Path = Input(description="A picture."),
        steps: int = Input(default=10, ge=1, le=100),
        scale: float = Input(default=7.5, ge=0, le=20.5),
        safe: bool = True,
        colour: str = Input(default="red", choices=["red", "green"], description="A colour."),
        size: int = Input(default=512, choices=[256, 512]),
        code: str = Input(default="ab1", regex=r"^[a-z]+\\d$"),
        token: Secret = Input(description="An API key."),
        words: list[str] = Input(default=["a", "b"]),
        seed: Optional[int] = Input(default=None, description="Random when empty."),
        mask: Optional[Path] = None,
        old_name: str = Input(default="x", deprecated=True),
    ) -> Output:
        raise NotImplementedError
"""

STREAMS = """
from cog import BasePredictor, ConcatenateIterator


class Predictor(BasePredictor):
    def predict(self, text: str) -> ConcatenateIterator[str]:
        yield text
"""


def make(folder: Path, source: str, cog_yaml: str = 'predict: "predict.py:Predictor"\n') -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "predict.py").write_text(source)
    (folder / "cog.yaml").write_text(cog_yaml)
    return folder


def describe(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The command, from another working directory, with only the models folder on PYTHONPATH."""
    env = {**os.environ, "PYTHONPATH": str(MODELS)}
    return subprocess.run(
        [sys.executable, "-m", "prognoz_cog.describe", *args, str(folder)],
        cwd=folder.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture(scope="module")
def every_kind(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    result = describe(make(tmp_path_factory.mktemp("every") / "model", EVERY_KIND))
    assert result.returncode == 0, result.stderr
    assert "prints while it is imported" in result.stderr
    return json.loads(result.stdout)  # stdout holds the JSON only


def test_top_level(every_kind: dict[str, Any]) -> None:
    assert list(every_kind) == ["predict", "input", "enums", "output"]
    assert every_kind["predict"] == "predict.py:Predictor"
    assert {key: every_kind["input"][key] for key in ("type", "title")} == {"type": "object", "title": "Input"}


def test_properties_in_declaration_order(every_kind: dict[str, Any]) -> None:
    properties = every_kind["input"]["properties"]
    assert list(properties) == [
        "prompt",
        "image",
        "steps",
        "scale",
        "safe",
        "colour",
        "size",
        "code",
        "token",
        "words",
        "seed",
        "mask",
        "old_name",
    ]
    assert [prop["x-order"] for prop in properties.values()] == list(range(13))
    assert all(list(prop)[0] == "x-order" for prop in properties.values())


def test_required_is_no_default_and_not_optional(every_kind: dict[str, Any]) -> None:
    assert every_kind["input"]["required"] == ["prompt", "image", "token"]


def test_each_kind_of_input(every_kind: dict[str, Any]) -> None:
    p = every_kind["input"]["properties"]
    assert p["prompt"] == {
        "x-order": 0,
        "title": "Prompt",
        "type": "string",
        "description": "What to say.",
        "minLength": 1,
        "maxLength": 50,
    }
    assert p["image"] == {
        "x-order": 1,
        "title": "Image",
        "type": "string",
        "format": "uri",
        "description": "A picture.",
    }
    assert p["steps"] == {
        "x-order": 2,
        "title": "Steps",
        "type": "integer",
        "default": 10,
        "minimum": 1,
        "maximum": 100,
    }
    assert p["scale"] == {
        "x-order": 3,
        "title": "Scale",
        "type": "number",
        "default": 7.5,
        "minimum": 0,
        "maximum": 20.5,
    }
    assert p["safe"] == {"x-order": 4, "title": "Safe", "type": "boolean", "default": True}
    assert p["code"] == {"x-order": 7, "title": "Code", "type": "string", "default": "ab1", "pattern": r"^[a-z]+\d$"}
    assert p["token"] == {
        "x-order": 8,
        "title": "Token",
        "type": "string",
        "format": "password",
        "writeOnly": True,
        "x-cog-secret": True,
        "description": "An API key.",
    }
    assert p["words"] == {
        "x-order": 9,
        "title": "Words",
        "type": "array",
        "items": {"type": "string"},
        "default": ["a", "b"],
    }
    assert p["seed"] == {
        "x-order": 10,
        "title": "Seed",
        "type": "integer",
        "nullable": True,
        "description": "Random when empty.",
    }
    assert p["mask"] == {"x-order": 11, "title": "Mask", "type": "string", "format": "uri", "nullable": True}
    assert p["old_name"] == {"x-order": 12, "title": "Old Name", "type": "string", "default": "x", "deprecated": True}


def test_choices_refer_to_their_enum(every_kind: dict[str, Any]) -> None:
    p = every_kind["input"]["properties"]
    assert p["colour"] == {
        "x-order": 5,
        "allOf": [{"$ref": "#/components/schemas/colour"}],
        "default": "red",
        "description": "A colour.",
    }
    assert p["size"] == {"x-order": 6, "allOf": [{"$ref": "#/components/schemas/size"}], "default": 512}
    assert every_kind["enums"] == {
        "colour": {"title": "colour", "description": "An enumeration.", "enum": ["red", "green"], "type": "string"},
        "size": {"title": "size", "description": "An enumeration.", "enum": [256, 512], "type": "integer"},
    }


def test_object_output(every_kind: dict[str, Any]) -> None:
    assert every_kind["output"] == {
        "title": "Output",
        "type": "object",
        "properties": {
            "text": {"type": "string", "title": "Text"},
            "count": {"type": "integer", "title": "Count"},
            "score": {"type": "number", "nullable": True, "title": "Score"},
            "tags": {"type": "array", "items": {"type": "string"}, "title": "Tags"},
            "extra": {"type": "object", "nullable": True, "title": "Extra"},
        },
        "required": ["text", "count", "tags"],
    }


TYPED_DICTS = """
from __future__ import annotations

from typing import NotRequired, Optional, TypedDict

from cog import BaseModel, BasePredictor


class Word(TypedDict):
    word: str
    probability: float


class Segment(TypedDict):
    id: int
    text: str
    speaker: NotRequired[str]
    words: NotRequired[list[Word]]
    meta: dict


class Output(BaseModel):
    segments: list[Segment]
    best: Optional[Segment]
    raw: list[dict]


class Predictor(BasePredictor):
    def predict(self, text: str) -> Output:
        raise NotImplementedError
"""


def test_typed_dict_fields_are_published_where_cog_leaves_them_opaque(tmp_path: Path) -> None:
    result = describe(make(tmp_path / "model", TYPED_DICTS))
    assert result.returncode == 0, result.stderr
    output = json.loads(result.stdout)["output"]
    word = {
        "type": "object",
        "properties": {
            "word": {"title": "Word", "type": "string"},
            "probability": {"title": "Probability", "type": "number"},
        },
        "required": ["word", "probability"],
    }
    segment = {
        "type": "object",
        "properties": {
            "id": {"title": "Id", "type": "integer"},
            "text": {"title": "Text", "type": "string"},
            "speaker": {"title": "Speaker", "type": "string"},
            "words": {"title": "Words", "type": "array", "items": word},
            "meta": {"title": "Meta", "type": "object"},
        },
        "required": ["id", "text", "meta"],
    }
    assert output["properties"]["segments"] == {"type": "array", "items": segment, "title": "Segments"}
    assert output["properties"]["best"] == {**segment, "nullable": True, "title": "Best"}
    # A plain dict stays what Cog makes it: an opaque object.
    assert output["properties"]["raw"] == {"type": "array", "items": {"type": "object"}, "title": "Raw"}


def test_concatenate_iterator_output_and_no_required_key_when_none_is(tmp_path: Path) -> None:
    source = STREAMS.replace("text: str", 'text: str = "hi"')
    result = describe(make(tmp_path / "model", source))
    assert result.returncode == 0, result.stderr
    described = json.loads(result.stdout)
    assert "required" not in described["input"]
    assert described["enums"] == {}
    assert described["output"] == {
        "title": "Output",
        "type": "array",
        "items": {"type": "string"},
        "x-cog-array-type": "iterator",
        "x-cog-array-display": "concatenate",
    }


def test_the_openapi_document_coglet_reads(tmp_path: Path) -> None:
    result = describe(make(tmp_path / "model", STREAMS), "--openapi")
    assert result.returncode == 0, result.stderr
    schemas = json.loads(result.stdout)["components"]["schemas"]
    assert schemas["Input"]["required"] == ["text"]
    assert schemas["Output"]["x-cog-array-display"] == "concatenate"


@pytest.mark.parametrize(
    ("files", "cause"),
    [
        ({}, "no cog.yaml"),
        ({"cog.yaml": "build:\n  python_version: '3.11'\n"}, "no `run`"),
        ({"cog.yaml": 'run: "run.py:Runner"\npredict: "predict.py:Predictor"\n'}, "both `run` and `predict`"),
        ({"cog.yaml": 'predict: "predict.py"\n'}, "must read"),
        ({"cog.yaml": 'predict: "missing.py:Predictor"\n'}, "missing.py"),
        (
            {"cog.yaml": 'predict: "predict.py:Predictor"\n', "predict.py": "import not_a_module_anywhere\n"},
            "not_a_module_anywhere",
        ),
        ({"cog.yaml": 'predict: "predict.py:Other"\n', "predict.py": STREAMS}, "Other"),
        (
            {
                "cog.yaml": 'predict: "predict.py:Predictor"\n',
                "predict.py": STREAMS.replace(" -> ConcatenateIterator[str]", ""),
            },
            "return type",
        ),
    ],
)
def test_failures_exit_2_naming_the_folder_and_the_cause(tmp_path: Path, files: dict[str, str], cause: str) -> None:
    folder = tmp_path / "broken"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    result = describe(folder)
    assert result.returncode == 2
    assert result.stdout == ""
    assert str(folder) in result.stderr and cause in result.stderr
