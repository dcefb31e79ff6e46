import path from 'node:path';

/** A key of cog.yaml as a path: `['build', 'system_packages', 1]` is the second system package. */
export type CogKeyPath = readonly (string | number)[];

/** `build.system_packages[1]`, as a person reads the key. */
export const keyLabel = (key: CogKeyPath): string =>
  key.reduce<string>(
    (label, part) => (typeof part === 'number' ? `${label}[${part}]` : label ? `${label}.${part}` : part),
    '',
  );

/** One thing wrong with a cog.yaml, where it is written. */
export interface CogIssue {
  readonly file: string;
  /** 1-based, of the key at fault; null when the fault is the file's as a whole (a missing key). */
  readonly line: number | null;
  readonly column: number | null;
  /** The key at fault and its value as written (`build.python_version "3.8"`), or null for the file. */
  readonly subject: string | null;
  readonly problem: string;
}

/** The file as the person who started prognoz names it: relative to where they are, when it is below there. */
const shownPath = (file: string): string => {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
};

/** `models/x/cog.yaml:3: build.python_version "3.8": <problem>`: the form editors and terminals link. */
export const formatIssue = (issue: CogIssue): string =>
  `${shownPath(issue.file)}${issue.line === null ? '' : `:${issue.line}`}: ${
    issue.subject === null ? '' : `${issue.subject}: `
  }${issue.problem}`;

/** What is wrong with a predictor's cog.yaml, or with what it asks of the machine: every issue, each at its line. */
export class CogConfigError extends Error {
  override readonly name = 'CogConfigError';

  constructor(readonly issues: readonly CogIssue[]) {
    super(issues.map(formatIssue).join('\n'));
  }
}
