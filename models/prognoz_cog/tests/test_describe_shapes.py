"""prognoz_cog.describe on the other shapes of Cog predictors: a plain function (`predict.py:run`),
a class with run() (Cog's BaseRunner), async predictors and async generators, and the one rule
coglet sets on them: `concurrency.max` over 1 needs an async predictor."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

MODELS = Path(__file__).resolve().parents[2]

FUNCTION = """
from typing import Optional, TypedDict

from cog import BaseModel, Input


class Word(TypedDict):
    text: str
    length: int


class Output(BaseModel):
    shout: str
    words: list[Word]


def run(
    text: str = Input(description="The text to shout.", min_length=1),
    times: int = Input(description="How many times.", ge=1, le=5, default=1),
    separator: str = Input(choices=["space", "newline"], default="space"),
    seed: Optional[int] = Input(default=None),
) -> Output:
    raise NotImplementedError
"""

RUNNER = """
from cog import BaseRunner, Input


class Runner(BaseRunner):
    def run(self, count: int = Input(default=2, ge=0)) -> list[int]:
        return list(range(count))
"""

ASYNC = """
from cog import BasePredictor, Input


class Predictor(BasePredictor):
    async def setup(self) -> None:
        pass

    async def predict(self, text: str = Input(description="Anything."), pause: float = 0.5) -> str:
        return text
"""

ASYNC_GENERATOR = """
from typing import AsyncIterator

from cog import AsyncConcatenateIterator, BasePredictor, Input


class Predictor(BasePredictor):
    async def predict(self, count: int = Input(default=3, ge=1)) -> {returns}:
        for index in range(count):
            yield str(index)
"""

SYNC = """
from cog import BasePredictor


class Predictor(BasePredictor):
    def predict(self, text: str = "x") -> str:
        return text
"""

ASYNC_FUNCTION = """
async def run(text: str = "x") -> str:
    return text
"""


def describe(source: str, cog_yaml: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """The command on a folder of `predict.py` and `cog.yaml`, from another working directory."""
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "predict.py").write_text(source)
    (folder / "cog.yaml").write_text(cog_yaml)
    return subprocess.run(
        [sys.executable, "-m", "prognoz_cog.describe", str(folder)],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(MODELS)},
        capture_output=True,
        text=True,
        check=False,
    )


def described(source: str, cog_yaml: str, tmp_path: Path) -> dict[str, Any]:
    result = describe(source, cog_yaml, tmp_path)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_function_predictor_is_described_from_its_parameters(tmp_path: Path) -> None:
    schema = described(FUNCTION, 'predict: "predict.py:run"\n', tmp_path)
    assert schema["predict"] == "predict.py:run"
    properties = schema["input"]["properties"]
    assert list(properties) == ["text", "times", "separator", "seed"]
    assert schema["input"]["required"] == ["text"]
    assert properties["text"] == {
        "x-order": 0,
        "title": "Text",
        "type": "string",
        "description": "The text to shout.",
        "minLength": 1,
    }
    assert properties["times"] | {"minimum": 1, "maximum": 5} == properties["times"]
    assert properties["separator"]["allOf"] == [{"$ref": "#/components/schemas/separator"}]
    assert schema["enums"]["separator"]["enum"] == ["space", "newline"]
    assert properties["seed"]["nullable"] is True


def test_a_function_predictors_return_type_publishes_its_typed_dict_fields(tmp_path: Path) -> None:
    output = described(FUNCTION, 'predict: "predict.py:run"\n', tmp_path)["output"]
    assert output["properties"]["shout"]["type"] == "string"
    # The TypedDict is read from the function's own annotation, as it is from a class's predict().
    assert output["properties"]["words"]["items"] == {
        "type": "object",
        "properties": {"text": {"title": "Text", "type": "string"}, "length": {"title": "Length", "type": "integer"}},
        "required": ["text", "length"],
    }


def test_a_class_with_run_is_described_from_run(tmp_path: Path) -> None:
    schema = described(RUNNER, 'predict: "predict.py:Runner"\n', tmp_path)
    assert schema["input"]["properties"]["count"]["default"] == 2
    assert schema["output"] == {"title": "Output", "type": "array", "items": {"type": "integer"}}


def test_an_async_predictor_is_described_like_a_sync_one(tmp_path: Path) -> None:
    schema = described(ASYNC, 'predict: "predict.py:Predictor"\nconcurrency:\n  max: 4\n', tmp_path)
    assert list(schema["input"]["properties"]) == ["text", "pause"]
    assert schema["input"]["required"] == ["text"]
    assert schema["input"]["properties"]["pause"]["default"] == 0.5
    assert schema["output"] == {"title": "Output", "type": "string"}


@pytest.mark.parametrize(
    ("returns", "display"),
    [("AsyncIterator[str]", None), ("AsyncConcatenateIterator[str]", "concatenate")],
)
def test_an_async_generator_is_an_iterator_output(tmp_path: Path, returns: str, display: str | None) -> None:
    source = ASYNC_GENERATOR.replace("{returns}", returns)
    output = described(source, 'predict: "predict.py:Predictor"\nconcurrency:\n  max: 2\n', tmp_path)["output"]
    assert output["type"] == "array"
    assert output["items"] == {"type": "string"}
    # What makes prognoz stream its pieces (shared/catalog/cog-schema.ts).
    assert output["x-cog-array-type"] == "iterator"
    assert output.get("x-cog-array-display") == display


def test_an_async_function_may_take_several_predictions_at_once(tmp_path: Path) -> None:
    schema = described(ASYNC_FUNCTION, 'predict: "predict.py:run"\nconcurrency:\n  max: 8\n', tmp_path)
    assert schema["output"]["type"] == "string"


@pytest.mark.parametrize(
    ("source", "predict", "name"),
    [(SYNC, "predict.py:Predictor", "predict()"), (FUNCTION, "predict.py:run", "run()")],
)
def test_concurrency_over_1_with_a_predictor_that_is_not_async_is_refused(
    tmp_path: Path, source: str, predict: str, name: str
) -> None:
    result = describe(source, f'predict: "{predict}"\nconcurrency:\n  max: 2\n', tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert f"concurrency.max is 2, but {name} is not async" in result.stderr
    assert str(tmp_path / "model") in result.stderr


def test_concurrency_1_with_a_sync_predictor_is_fine(tmp_path: Path) -> None:
    assert described(SYNC, 'predict: "predict.py:Predictor"\nconcurrency:\n  max: 1\n', tmp_path)["input"]


def test_cogs_current_shape_run_key_and_base_runner_is_described(tmp_path: Path) -> None:
    # What `cog init` writes: run: "run.py:Runner" (the file is predict.py here, the key is `run`).
    schema = described(RUNNER, 'run: "predict.py:Runner"\n', tmp_path)
    assert schema["predict"] == "predict.py:Runner"
    assert schema["input"]["properties"]["count"]["default"] == 2


def test_run_and_predict_both_set_is_refused(tmp_path: Path) -> None:
    result = describe(RUNNER, 'run: "predict.py:Runner"\npredict: "predict.py:Runner"\n', tmp_path)
    assert result.returncode == 2
    assert "both `run` and `predict`" in result.stderr


UNIONS = """
from typing import Optional

from cog import BaseRunner


class Runner(BaseRunner):
    def run(self, value: str | int | float, maybe: Optional[str], either: str | None = None) -> str:
        return str(value)
"""


def test_a_union_input_is_any_of_its_types_and_a_bare_optional_is_nullable_and_not_required(tmp_path: Path) -> None:
    schema = described(UNIONS, 'run: "predict.py:Runner"\n', tmp_path)
    properties = schema["input"]["properties"]
    assert properties["value"]["anyOf"] == [{"type": "string"}, {"type": "integer"}, {"type": "number"}]
    assert properties["maybe"] == {"x-order": 1, "title": "Maybe", "type": "string", "nullable": True}
    assert properties["either"]["nullable"] is True
    assert schema["input"]["required"] == ["value"]
