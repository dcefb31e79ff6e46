"""Prints the schemas of a Cog predictor, derived as Cog derives them for its OpenAPI document.

    PYTHONPATH=models python -m prognoz_cog.describe models/echo

Run it in the model's own Python environment (the predictor module is imported, with whatever it
imports). It reads `<folder>/cog.yaml` (key `run`, or the former `predict`: a class,
"run.py:Runner", or a plain function, "predict.py:run"), inspects that predictor with Cog's own inspector
(`cog._inspector.create_predictor`) and prints one JSON object:

    {"predict": "predict.py:Predictor", "input": <Input schema>, "enums": {<field>: <enum schema>},
     "output": <Output schema>}

The schemas follow Cog's OpenAPI generator: `input` is `components.schemas.Input`, each field with
`choices` refers to its enum (`components.schemas.<field>`, here under `enums`), and `output` is
`components.schemas.Output` — but for fields typed as TypedDicts, which Cog leaves opaque and prognoz
describes. With `--openapi`, the whole OpenAPI document is printed instead, with
those schemas in `components.schemas`: what coglet reads from `.cog/openapi_schema.json` (its
working directory) to validate inputs at its HTTP edge.

Only the JSON goes to stdout: whatever the predictor prints while it is imported and inspected is
sent to stderr. Any failure (no cog.yaml, no `predict`, an import error, an invalid predictor, a
`concurrency.max` over 1 for a predictor that is not async) is told on stderr, naming the folder,
with exit code 2.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import inspect
import json
import os
import sys
import typing
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

EXIT_FAILED = 2
_COG_DEPRECATIONS = r".*(predict\(\) is deprecated|BasePredictor is deprecated)"


class DescribeError(Exception):
    """A predictor folder that cannot be described; the message says why."""


def _cog_yaml(folder: Path) -> Any:
    config_path = folder / "cog.yaml"
    if not config_path.is_file():
        raise DescribeError("no cog.yaml")
    import yaml  # Cog depends on PyYAML

    try:
        return yaml.safe_load(config_path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise DescribeError(f"cog.yaml is not valid YAML: {error}") from None


def _predict_ref(config: Any) -> str:
    """The predictor cog.yaml names: `run` (Cog's name since it introduced BaseRunner) or `predict`."""
    entries = config if isinstance(config, dict) else {}
    run, predict = entries.get("run"), entries.get("predict")
    if run and predict:
        raise DescribeError("cog.yaml sets both `run` and `predict`: only one of them can be")
    key, ref = ("run", run) if run else ("predict", predict)
    if not ref:
        raise DescribeError('cog.yaml has no `run` (such as run: "run.py:Runner") nor the former `predict`')
    if (
        not isinstance(ref, str)
        or ref.count(":") != 1
        or not ref.split(":")[0].endswith(".py")
        or not ref.split(":")[1]
    ):
        raise DescribeError(f'cog.yaml\'s `{key}` must read "<file>.py:<class or function>", not {ref!r}')
    return ref


def _default_value(field: Any) -> Any:
    """The field's default as a plain value (a dataclasses.Field default resolved), or None."""
    default = field.default
    if isinstance(default, dataclasses.Field):
        if default.default_factory is not dataclasses.MISSING:
            return default.default_factory()
        if default.default is not dataclasses.MISSING:
            return default.default
        return None
    return default


def input_schema(info: Any) -> dict[str, Any]:
    """`components.schemas.Input`: one property per predict() argument, in declaration order."""
    from cog import _adt as adt

    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, field in info.inputs.items():
        prop: dict[str, Any] = {"x-order": field.order}
        if field.choices is not None:
            prop["allOf"] = [{"$ref": f"#/components/schemas/{name}"}]
        else:
            prop["title"] = name.replace("_", " ").title()
            prop.update(field.type.json_type())
        default = _default_value(field)
        if field.default is None:
            # No default: required, unless the type admits None (Optional[...]).
            if field.type.repetition in (adt.Repetition.REQUIRED, adt.Repetition.REPEATED):
                required.append(name)
        elif default is not None:
            prop["default"] = field.type.json_encode(field.type.normalize(default))
        if field.type.repetition is adt.Repetition.OPTIONAL:
            prop["nullable"] = True
        for key, value in (
            ("description", field.description),
            ("minimum", field.ge),
            ("maximum", field.le),
            ("minLength", field.min_length),
            ("maxLength", field.max_length),
            ("pattern", field.regex),
            ("deprecated", field.deprecated),
        ):
            if value is not None:
                prop[key] = value
        properties[name] = prop
    schema: dict[str, Any] = {"type": "object", "title": "Input", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def enum_schemas(info: Any) -> dict[str, Any]:
    """One schema per field with `choices`, named after the field (what its `$ref` points to)."""
    return {
        name: {
            "title": name,
            "description": "An enumeration.",
            "enum": list(field.choices),
            **field.type.primitive.json_type(),
        }
        for name, field in info.inputs.items()
        if field.choices is not None
    }


def output_schema(info: Any, returned: Any = None) -> dict[str, Any]:
    """`components.schemas.Output`; where an output object's field is a TypedDict (or a list of
    them), which Cog passes through as an opaque JSON object, its fields are published too."""
    schema = info.output.json_type()
    properties = schema.get("properties")
    if not isinstance(properties, dict) or returned is None or not isinstance(returned, type):
        return schema
    hints = typing.get_type_hints(returned, include_extras=True)
    for name, prop in properties.items():
        structured = _typed_dict_schema(hints.get(name))
        if structured is not None:
            prop.update(structured)
    return schema


def _is_typed_dict(tpe: Any) -> bool:
    return isinstance(tpe, type) and typing.is_typeddict(tpe)


def _typed_dict_schema(tpe: Any) -> dict[str, Any] | None:
    """The JSON Schema of a TypedDict, a list of them or an Optional of either; None for any other type."""
    origin, args = typing.get_origin(tpe), typing.get_args(tpe)
    if origin is typing.Union and type(None) in args and len(args) == 2:
        inner = _typed_dict_schema(next(arg for arg in args if arg is not type(None)))
        return {**inner, "nullable": True} if inner else None
    if origin is list and args:
        items = _typed_dict_schema(args[0])
        return {"type": "array", "items": items} if items else None
    if not _is_typed_dict(tpe):
        return None
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, hint in typing.get_type_hints(tpe, include_extras=True).items():
        marker = typing.get_origin(hint)
        # NotRequired/Required as written; a module with `from __future__ import annotations` hides
        # them from the TypedDict's own __required_keys__.
        if marker in (typing.NotRequired, typing.Required):
            hint = typing.get_args(hint)[0]
        if marker is typing.Required or (marker is not typing.NotRequired and name in tpe.__required_keys__):
            required.append(name)
        properties[name] = {"title": name.replace("_", " ").title(), **_field_schema(hint)}
    return {"type": "object", "properties": properties, "required": required}


_PRIMITIVES = {str: {"type": "string"}, int: {"type": "integer"}, float: {"type": "number"}, bool: {"type": "boolean"}}


def _field_schema(tpe: Any) -> dict[str, Any]:
    if tpe in _PRIMITIVES:
        return dict(_PRIMITIVES[tpe])
    structured = _typed_dict_schema(tpe)
    if structured is not None:
        return structured
    origin, args = typing.get_origin(tpe), typing.get_args(tpe)
    if origin is typing.Union and type(None) in args and len(args) == 2:
        return {**_field_schema(next(arg for arg in args if arg is not type(None))), "nullable": True}
    if origin is list:
        return {"type": "array", "items": _field_schema(args[0]) if args else {}}
    return {"type": "object"}  # dict, Any: an opaque JSON object, as Cog has it


@contextlib.contextmanager
def _stdout_to_stderr() -> Iterator[None]:
    """Sends stdout (Python's and file descriptor 1, for native code too) to stderr meanwhile."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 1)
        os.close(saved)


def _predict_function(module_name: str, name: str) -> Any:
    """What coglet calls: a function predictor itself, or the class's run() or predict(), chosen as
    Cog chooses it (create_predictor has already refused a class with neither or both)."""
    from cog._inspector import _selected_predict_method

    predictor = getattr(sys.modules[module_name], name)
    if not isinstance(predictor, type):
        return predictor
    return _selected_predict_method(predictor, f"{module_name}.{name}")[1]


def _check_concurrency(config: Any, function: Any) -> None:
    """coglet refuses to start (its setup fails) a predictor with `concurrency.max` over 1 whose
    run()/predict() is not async: told here, where the predictor is brought, instead."""
    concurrency = config.get("concurrency") if isinstance(config, dict) else None
    maximum = concurrency.get("max", 1) if isinstance(concurrency, dict) else 1
    if not isinstance(maximum, int) or maximum <= 1:
        return
    if inspect.iscoroutinefunction(function) or inspect.isasyncgenfunction(function):
        return
    raise DescribeError(
        f"cog.yaml's concurrency.max is {maximum}, but {function.__name__}() is not async: coglet runs"
        " predictions at once only with an `async def` predictor; make it async or set concurrency.max to 1"
    )


def describe(folder: str | os.PathLike[str]) -> dict[str, Any]:
    """The predictor's schemas; raises DescribeError (or what the import raised) when it cannot."""
    root = Path(folder).resolve()
    if not root.is_dir():
        raise DescribeError("not a folder")
    config = _cog_yaml(root)
    ref = _predict_ref(config)
    file_name, predictor_name = ref.split(":")
    # As the folder has it, not where a link points: predictors that share code through links
    # (models/whisper-large-v3-turbo) read the files beside them, as they do under coglet.
    module_file = Path(os.path.normpath(root / file_name))
    if not module_file.is_file():
        raise DescribeError(f"{file_name} (the predictor cog.yaml names) does not exist")
    module_name = module_file.stem
    from cog._inspector import create_predictor

    # The predictor module imports its siblings by name, as it does when coglet runs it there.
    added = [str(path) for path in dict.fromkeys((module_file.parent, root))]
    sys.path[:0] = added
    sys.modules.pop(module_name, None)
    importlib.invalidate_caches()
    try:
        with _stdout_to_stderr(), warnings.catch_warnings():
            # Predictors of Cog's former shape (predict() on BasePredictor) still load, as under Cog.
            warnings.filterwarnings("ignore", message=_COG_DEPRECATIONS, category=DeprecationWarning)
            info = create_predictor(module_name, predictor_name)
            function = _predict_function(module_name, predictor_name)
            _check_concurrency(config, function)
            returned = typing.get_type_hints(function).get("return")
            return {
                "predict": ref,
                "input": input_schema(info),
                "enums": enum_schemas(info),
                "output": output_schema(info, returned),
            }
    finally:
        for path in added:
            with contextlib.suppress(ValueError):  # unless the predictor took it off itself
                sys.path.remove(path)


def openapi_document(description: dict[str, Any]) -> dict[str, Any]:
    """The OpenAPI document coglet reads from .cog/openapi_schema.json: the schemas it validates with."""
    return {
        "openapi": "3.0.2",
        "info": {"title": "Cog", "version": "0.1.0"},
        "paths": {},
        "components": {
            "schemas": {"Input": description["input"], "Output": description["output"], **description["enums"]}
        },
    }


def _json_default(value: Any) -> Any:
    if isinstance(value, os.PathLike):  # a Path default: Cog's encoder passes it through as is
        return os.fspath(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    openapi = "--openapi" in args
    args = [arg for arg in args if arg != "--openapi"]
    if len(args) != 1 or args[0].startswith("-"):
        print("usage: python -m prognoz_cog.describe [--openapi] <predictor-folder>", file=sys.stderr)
        return EXIT_FAILED
    folder = args[0]
    try:
        description = describe(folder)
        text = json.dumps(
            openapi_document(description) if openapi else description,
            indent=2,
            ensure_ascii=False,
            default=_json_default,
        )
    except (Exception, SystemExit) as error:  # noqa: BLE001 - every cause is told, then exit 2
        cause = str(error) if isinstance(error, DescribeError) else f"{type(error).__name__}: {error}"
        print(f"prognoz_cog.describe: cannot describe the predictor in {folder}: {cause}", file=sys.stderr)
        return EXIT_FAILED
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
