"""The official `replicate` Python client against prognoz: each step prints one JSON line that
test/e2e/replicate-clients.test.ts checks. Run with PROGNOZ_BASE (the API's origin + /api),
REPLICATE_API_TOKEN and PROGNOZ_OPERATOR_TOKEN (an operator's sign-in) set."""

from __future__ import annotations

import io
import json
import os
import sys
import time

import replicate
from replicate.exceptions import ReplicateError


def report(step: str, **fields: object) -> None:
    print(json.dumps({"step": step, **fields}), flush=True)


def main() -> None:
    client = replicate.Client(api_token=os.environ["REPLICATE_API_TOKEN"], base_url=os.environ["PROGNOZ_BASE"])
    echo = "prognoz/echo"

    output = client.run(echo, input={"text": "blocking"})
    report("run_blocking", output=output)

    model = client.models.get(echo)
    latest = model.latest_version
    report(
        "model",
        owner=model.owner,
        name=model.name,
        visibility=model.visibility,
        run_count=model.run_count,
        latest_version=latest.id if latest else None,
        input_properties=sorted(latest.openapi_schema["components"]["schemas"]["Input"]["properties"])
        if latest
        else [],
    )
    versions = model.versions.list()
    report("versions", ids=[version.id for version in versions.results], next=versions.next)
    version = model.versions.get(echo)
    report("version", id=version.id, created_at=version.created_at.isoformat(), cog_version=version.cog_version)
    report("hardware", skus=[hardware.sku for hardware in client.hardware.list()])

    deployments = client.deployments.list()
    report("deployments", names=[f"{d.owner}/{d.name}" for d in deployments.results], next=deployments.next)
    deployment = client.deployments.get(echo)
    release = deployment.current_release
    report(
        "deployment",
        owner=deployment.owner,
        name=deployment.name,
        model=release.model if release else None,
        version=release.version if release else None,
        hardware=release.configuration.hardware if release else None,
        min_instances=release.configuration.min_instances if release else None,
        max_instances=release.configuration.max_instances if release else None,
    )
    on_deployment = deployment.predictions.create(input={"text": "on the deployment"})
    on_deployment.wait()
    report("deployment_prediction", status=on_deployment.status, output=on_deployment.output)

    # An operator's sign-in may change a deployment's bounds (here to what they are: no change);
    # the account's API token may not.
    operator = replicate.Client(api_token=os.environ["PROGNOZ_OPERATOR_TOKEN"], base_url=os.environ["PROGNOZ_BASE"])
    updated = operator.deployments.update("prognoz", "echo", min_instances=1, max_instances=1)
    configuration = updated.current_release.configuration if updated.current_release else None
    report(
        "deployment_update",
        min_instances=configuration.min_instances if configuration else None,
        max_instances=configuration.max_instances if configuration else None,
    )
    try:
        client.deployments.update("prognoz", "echo", max_instances=2)
        report("deployment_update_by_token", status=None)
    except ReplicateError as error:
        report("deployment_update_by_token", status=error.status)

    output = client.run(echo, input={"text": "polled", "sleep": 1}, wait=False)
    report("run_polling", output=output)

    prediction = client.predictions.create(model=echo, input={"text": "created", "sleep": 1})
    report("create", id=prediction.id, status=prediction.status, urls=prediction.urls)
    fetched = client.predictions.get(prediction.id)
    report("get", id=fetched.id, status=fetched.status, version=fetched.version)
    fetched.wait()
    report(
        "wait", id=fetched.id, status=fetched.status, output=fetched.output, metrics=fetched.metrics, logs=fetched.logs
    )

    by_version = client.predictions.create(version=echo, input={"text": "by version"})
    by_version.wait()
    report("create_by_version", status=by_version.status, output=by_version.output)

    long = client.predictions.create(model=echo, input={"sleep": 30})
    while long.status not in ("processing",):
        time.sleep(0.2)
        long.reload()
    long.cancel()
    long.reload()
    report("cancel", id=long.id, status=long.status)

    page = client.predictions.list()
    report("list", ids=[p.id for p in page.results], next=page.next, statuses=sorted({p.status for p in page.results}))

    pieces = [str(event) for event in client.stream("prognoz/stream", input={"text": "one two three four", "sleep": 1})]
    report("stream", pieces=pieces)

    with open(os.environ["PROGNOZ_AUDIO"], "rb") as audio:
        transcript = client.run("openai/whisper-base", input={"audio": audio})
    report("file_input", transcription=transcript["transcription"] if isinstance(transcript, dict) else None)

    files = client.run("acme/file-stream", input={"count": 2, "kind": "text", "pause": 0})
    report(
        "file_outputs",
        kinds=[type(file).__name__ for file in files],
        urls=[file.url for file in files],
        texts=[file.read().decode("utf-8") for file in files],
    )

    # The rest of the read API, through the client's own (pydantic) models: each field they require is there.
    uploaded = client.files.create(io.BytesIO("слова".encode()), metadata={"from": "python"})
    listed = client.files.list()
    report(
        "files_list",
        uploaded=uploaded.id,
        ids=[file.id for file in listed],
        names=[file.name for file in listed],
        etag=next((file.etag for file in listed if file.id == uploaded.id), None),
    )
    collections = client.collections.list()
    report("collections", slugs=[collection.slug for collection in collections.results], next=collections.next)
    collection = client.collections.get("speech-to-text")
    report("collection", slug=collection.slug, name=collection.name, models=[f"{m.owner}/{m.name}" for m in collection])
    found = client.models.search("transcribes speech")
    report("search", models=[f"{m.owner}/{m.name}" for m in found.results])
    account = client.accounts.current()
    report("account", type=account.type, username=account.username, name=account.name, github_url=account.github_url)


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # noqa: BLE001 - the test reads the failure from the last line
        report("error", type=type(error).__name__, message=str(error))
        sys.exit(1)
