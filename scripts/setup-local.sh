#!/usr/bin/env bash
# What the local runtime and the tests need beside node_modules (run by `npm install`):
#  - AWS DynamoDB Local, from Maven Central, into local/dynamodb/lib (needs Java 17+ and Maven);
#  - a Python virtual environment, .venv, with the model servers' test dependencies.
# Idempotent and quick when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_install() {
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "prognoz: installing $* with apt-get…"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  else
    echo "prognoz: please install $* (needed by the local runtime)" >&2
    exit 1
  fi
}

if [ ! -f local/dynamodb/lib/DynamoDBLocal.jar ]; then
  command -v java >/dev/null 2>&1 || apt_install openjdk-17-jre-headless
  command -v mvn >/dev/null 2>&1 || apt_install maven
  echo "prognoz: fetching DynamoDB Local (Maven)…"
  (cd local/dynamodb && mvn -q -B package)
fi

python=${PROGNOZ_PYTHON_BOOTSTRAP:-python3}
requirements=models/requirements-dev.txt
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv 2>/dev/null || { apt_install python3-venv && "$python" -m venv .venv; }
fi
stamp=.venv/.requirements-installed
if [ ! -f "$stamp" ] || [ "$requirements" -nt "$stamp" ]; then
  echo "prognoz: installing Python requirements into .venv…"
  .venv/bin/python -m pip install -q --disable-pip-version-check -r "$requirements"
  touch "$stamp"
fi
