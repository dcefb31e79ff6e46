/**
 * `npm run smoke -- --base-url URL --token TOKEN …`: checks a running prognoz (the local runtime,
 * or a deployment's ApiUrl) end to end, one named step at a time; exits 1 when any step failed.
 */
import { smokeClient } from './client.ts';
import { parseSmokeOptions, USAGE } from './options.ts';
import { exitCodeOf, formatStep, formatSummary } from './report.ts';
import { runStep, type StepReport } from './step.ts';
import { SMOKE_STEPS } from './steps/index.ts';

const parsed = parseSmokeOptions(process.argv.slice(2), process.env);
if (!parsed.ok) {
  console.error(`smoke: ${parsed.error}\n\n${USAGE}`);
  process.exit(2);
}
const options = parsed.value;
const context = { client: smokeClient(options.baseUrl, options.token), options };
const nameWidth = Math.max(...SMOKE_STEPS.map((step) => step.name.length));

console.log(`prognoz smoke test: ${options.baseUrl.href}, model ${options.model}\n`);
const reports: StepReport[] = [];
for (const step of SMOKE_STEPS) {
  const report = await runStep(step, context);
  reports.push(report);
  console.log(formatStep(report, nameWidth));
}
console.log(`\n${formatSummary(reports)}`);
process.exit(exitCodeOf(reports));
