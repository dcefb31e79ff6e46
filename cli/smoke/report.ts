import { duration, type StepReport } from './step.ts';

const LABEL = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP' } as const;

/** `PASS  create and poll  (2.31 s)  succeeded: create answered 45 ms, …`, one line a step. */
export const formatStep = (report: StepReport, nameWidth: number): string => {
  const { outcome } = report;
  const head = `${LABEL[outcome.kind]}  ${report.name.padEnd(nameWidth)}  ${duration(report.ms).padStart(9)}  `;
  switch (outcome.kind) {
    case 'pass': {
      const figures = outcome.figures.map((figure) => `${figure.name} ${figure.value}`).join(', ');
      return `${head}${outcome.summary}${figures === '' ? '' : ` (${figures})`}`;
    }
    case 'fail':
      return `${head}${outcome.reason}`;
    case 'skip':
      return `${head}not run: ${outcome.reason}`;
  }
};

export const formatSummary = (reports: readonly StepReport[]): string => {
  const count = (kind: StepReport['outcome']['kind']) => reports.filter((r) => r.outcome.kind === kind).length;
  const skipped = count('skip');
  return `${count('pass')} passed, ${count('fail')} failed${skipped === 0 ? '' : `, ${skipped} not run`}`;
};

/** Non-zero when any step failed; a step not run is not a failure. */
export const exitCodeOf = (reports: readonly StepReport[]): number =>
  reports.some((report) => report.outcome.kind === 'fail') ? 1 : 0;
