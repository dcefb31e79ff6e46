#!/usr/bin/env bash
# The whole test suite (`npm test`, and so `.ci/run`): static checks, then every test.
set -euo pipefail
cd "$(dirname "$0")/.."
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT

echo "== typecheck"; tsc --noEmit -p . && tsc --noEmit -p web/console
echo "== lint"; eslint .
echo "== format"; prettier --check --log-level warn .
echo "== Python lint and format (ruff)"; .venv/bin/ruff check --quiet . && .venv/bin/ruff format --check --quiet .
echo "== layer rules"; depcruise --config .dependency-cruiser.cjs infra functions shared worker local cli test bench web
set +e
# The fast stage first (`npm run test:unit`, under a minute): the domain, the use cases against the
# in-memory adapters, and every adapter's contract, in-memory and real (over the emulators).
# The model servers' tests (pytest) run beside it: each stage waits on its own processes part of the time.
(cd models && ../.venv/bin/python -m pytest --junitxml="$results/pytest.xml" > "$results/pytest.log" 2>&1) &
pytest_pid=$!
echo "== fast stage (vitest project unit: domain, use cases, adapter contracts)"
vitest run --project unit --reporter=default --reporter=json --outputFile.json="$results/unit.json"
unit_status=$?
wait "$pytest_pid"
pytest_status=$?
echo "== model servers (pytest)"
cat "$results/pytest.log"
# The synthesized stacks' assertions (up to three files at once), then the suites on the shared
# runtime, then those that start their own (each one file at a time): the machine's two cores are
# busy throughout, so running the chains side by side would not end sooner.
echo "== service (vitest: infra, end-to-end over HTTP against the local runtimes)"
vitest run --project infra --project e2e --project e2e-apart --maxWorkers=3 --reporter=default --reporter=json --outputFile.json="$results/vitest.json"
vitest_status=$?
set -e

node --input-type=module - "$results" <<'JS'
import { readFileSync } from 'node:fs';
const dir = process.argv[2];
const [unit, rest] = ['unit', 'vitest'].map((name) => JSON.parse(readFileSync(`${dir}/${name}.json`, 'utf8')));
const vitest = {
  numPassedTests: unit.numPassedTests + rest.numPassedTests,
  numFailedTests: unit.numFailedTests + rest.numFailedTests,
  testResults: [...unit.testResults, ...rest.testResults],
};
const junit = readFileSync(`${dir}/pytest.xml`, 'utf8');
const attr = (name) => Number(new RegExp(`<testsuite [^>]*\\b${name}="(\\d+)"`).exec(junit)?.[1] ?? 0);
const pyFailed = attr('failures') + attr('errors');
const pyPassed = attr('tests') - pyFailed - attr('skipped');
const passed = vitest.numPassedTests + pyPassed;
// A test file that fails without a failed test (it could not load) counts as a failure too.
const brokenFiles = vitest.testResults.filter((file) => file.status === 'failed' && !file.assertionResults.some((test) => test.status === 'failed')).length;
const failed = vitest.numFailedTests + brokenFiles + pyFailed;
// The names of what failed come last, so that the tail of a CI log says which test it was.
for (const file of vitest.testResults) {
  for (const test of file.assertionResults.filter((result) => result.status === 'failed')) {
    const why = String(test.failureMessages?.[0] ?? '').split('\n')[0].slice(0, 300);
    console.log(`FAILED ${file.name.replace(`${process.cwd()}/`, '')} > ${test.fullName}\n  ${why}`);
  }
}
for (const match of junit.matchAll(/<testcase [^>]*classname="([^"]*)" name="([^"]*)"[^>]*>\s*<(failure|error) message="([^"]*)"/g)) {
  console.log(`FAILED models ${match[1]}::${match[2]}\n  ${match[4].slice(0, 300)}`);
}
console.log(`\nvitest: ${vitest.numPassedTests} passed, ${vitest.numFailedTests} failed (${brokenFiles} files broken); pytest: ${pyPassed} passed, ${pyFailed} failed`);
console.log(`${passed} passed, ${failed} failed`);
JS
[ "$unit_status" = 0 ] && [ "$pytest_status" = 0 ] && [ "$vitest_status" = 0 ]
