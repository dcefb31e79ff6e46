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
# Two chains side by side, each a line of stages that wait on their processes much of the time (the
# clean-clone CI run used about 1.2 of the machine's two cores when they ran one after another):
# - the fast stage (`npm run test:unit`, about a minute: the domain, the use cases against the
#   in-memory adapters, every adapter's contract), then the suites on the shared local runtime;
# - the model servers' tests (pytest), then the synthesized stacks' assertions (up to two files at
#   once), then the end-to-end suites that start their own runtime (one file at a time).
# Each chain's output is kept apart and shown whole when it ends, so that the log reads in order.
(
  cd models && ../.venv/bin/python -m pytest --junitxml="$results/pytest.xml" > "$results/pytest.log" 2>&1
  echo $? > "$results/pytest.status"
  cd .. && vitest run --project infra --project e2e-apart --maxWorkers=2 --reporter=default --reporter=json \
    --outputFile.json="$results/apart.json" > "$results/apart.log" 2>&1
  echo $? > "$results/apart.status"
) &
second_chain=$!
echo "== fast stage (vitest project unit: domain, use cases, adapter contracts)"
vitest run --project unit --reporter=default --reporter=json --outputFile.json="$results/unit.json"
unit_status=$?
echo "== service on the shared runtime (vitest project e2e: end-to-end over HTTP)"
vitest run --project e2e --reporter=default --reporter=json --outputFile.json="$results/e2e.json"
e2e_status=$?
wait "$second_chain"
echo "== model servers (pytest)"
cat "$results/pytest.log"
echo "== synthesized stacks, and the suites with a runtime of their own (vitest projects infra, e2e-apart)"
cat "$results/apart.log"
pytest_status=$(cat "$results/pytest.status" 2>/dev/null || echo 1)
apart_status=$(cat "$results/apart.status" 2>/dev/null || echo 1)
set -e

node --input-type=module - "$results" <<'JS'
import { readFileSync } from 'node:fs';
const dir = process.argv[2];
// A run that could not write its report (it crashed) counts as one failure.
const reports = ['unit', 'e2e', 'apart'].map((name) => {
  try {
    return JSON.parse(readFileSync(`${dir}/${name}.json`, 'utf8'));
  } catch {
    return { numPassedTests: 0, numFailedTests: 1, testResults: [] };
  }
});
const vitest = {
  numPassedTests: reports.reduce((sum, report) => sum + report.numPassedTests, 0),
  numFailedTests: reports.reduce((sum, report) => sum + report.numFailedTests, 0),
  testResults: reports.flatMap((report) => report.testResults),
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
[ "$unit_status" = 0 ] && [ "$e2e_status" = 0 ] && [ "$pytest_status" = 0 ] && [ "$apart_status" = 0 ]
