#!/usr/bin/env bash
# Runs before `npm start` and `npm test`: installs the project on a fresh clone (or after the
# lockfile changed), so that those two commands are all a newcomer needs.
set -euo pipefail
cd "$(dirname "$0")/.."
marker=node_modules/.package-lock.json
if [ ! -f "$marker" ] || [ package-lock.json -nt "$marker" ]; then
  echo "prognoz: installing dependencies (npm ci)…"
  npm ci --no-audit --no-fund
else
  bash scripts/setup-local.sh
fi
