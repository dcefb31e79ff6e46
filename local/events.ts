import { randomUUID } from 'node:crypto';
import { invokeLocal, type LocalFunction } from './lambda-host.ts';
import { LOCAL_ACCOUNT, LOCAL_REGION } from './paths.ts';

/** An AWS::Events::Rule of the template, bound to the functions of its targets. */
export interface LocalRule {
  readonly name: string;
  /** `rate(…)` rules: how often they fire. */
  readonly everyMs?: number;
  /** Event-pattern rules: the pattern as the template gives it. */
  readonly pattern?: Record<string, unknown>;
  readonly targets: readonly LocalFunction[];
}

export interface BusEvent {
  readonly source: string;
  readonly 'detail-type': string;
  readonly resources: readonly string[];
  readonly detail: Record<string, unknown>;
}

const UNITS_MS: Readonly<Record<string, number>> = {
  minute: 60_000,
  minutes: 60_000,
  hour: 3_600_000,
  hours: 3_600_000,
  day: 86_400_000,
  days: 86_400_000,
};

/** `rate(1 minute)`, `rate(5 minutes)`, `rate(2 hours)` in milliseconds. */
export const rateToMs = (expression: string): number => {
  const match = /^rate\((\d+) (\w+)\)$/.exec(expression.trim());
  const unit = match?.[2] === undefined ? undefined : UNITS_MS[match[2]];
  if (!match || unit === undefined)
    throw new Error(`the local runtime understands rate(…) schedules only, not ${expression}`);
  return Number(match[1]) * unit;
};

/** One entry of a pattern's list: a value, or a `{ prefix }` a string value starts with. */
const matchesEntry = (entry: unknown, value: unknown): boolean => {
  if (typeof entry === 'object' && entry !== null && 'prefix' in entry)
    return typeof value === 'string' && value.startsWith(String(entry.prefix));
  return entry === value;
};

/**
 * EventBridge's matching for the patterns a template uses: every key of the pattern must be in
 * the event; a list matches when the event's value (or any of its values) is one of its entries
 * (or starts with an entry's `prefix`); an object matches the event's object at that key.
 */
export const matchesPattern = (pattern: Record<string, unknown>, event: Record<string, unknown>): boolean =>
  Object.entries(pattern).every(([key, expected]) => {
    const actual = event[key];
    if (Array.isArray(expected)) {
      const values = Array.isArray(actual) ? (actual as unknown[]) : [actual];
      return values.some((value) => expected.some((entry) => matchesEntry(entry, value)));
    }
    if (typeof expected === 'object' && expected !== null) {
      return (
        typeof actual === 'object' &&
        actual !== null &&
        matchesPattern(expected as Record<string, unknown>, actual as Record<string, unknown>)
      );
    }
    return actual === expected;
  });

/**
 * The EventBridge of the local runtime: schedule rules fire their targets on a timer (never two
 * runs of one rule at once), and events put on the bus go to the targets of every rule whose
 * pattern they match — the same functions, with the same event shapes, as on AWS.
 */
export class LocalEventBus {
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly rules: readonly LocalRule[],
    private readonly log: (line: string) => void,
  ) {}

  /** Starts the schedules; `everyMs` overrides every rate (the tests sweep more often than AWS can). */
  start(everyMs?: number): void {
    for (const rule of this.rules) {
      if (rule.everyMs === undefined) continue;
      let running = false;
      const fire = async () => {
        if (running) return;
        running = true;
        try {
          await this.deliver(
            rule,
            this.envelope({
              source: 'aws.events',
              'detail-type': 'Scheduled Event',
              resources: [`arn:aws:events:${LOCAL_REGION}:${LOCAL_ACCOUNT}:rule/${rule.name}`],
              detail: {},
            }),
          );
        } finally {
          running = false;
        }
      };
      this.timers.push(setInterval(() => void fire(), everyMs ?? rule.everyMs));
    }
  }

  /** Delivers an event to the targets of every pattern rule it matches (asynchronously, as Lambda targets are invoked). */
  put(event: BusEvent): void {
    const envelope = this.envelope(event);
    for (const rule of this.rules) {
      if (rule.pattern !== undefined && matchesPattern(rule.pattern, envelope)) void this.deliver(rule, envelope);
    }
  }

  stop(): void {
    for (const timer of this.timers) clearInterval(timer);
  }

  private envelope(event: BusEvent): Record<string, unknown> {
    return {
      version: '0',
      id: randomUUID(),
      account: LOCAL_ACCOUNT,
      region: LOCAL_REGION,
      time: new Date().toISOString(),
      ...event,
    };
  }

  /** Every target gets the same event, id and time included, as EventBridge delivers it. */
  private async deliver(rule: LocalRule, event: Record<string, unknown>): Promise<void> {
    for (const target of rule.targets) {
      try {
        await invokeLocal(target, event);
      } catch (error) {
        this.log(`[rule ${rule.name}] ${target.entry} failed: ${String(error)}`);
      }
    }
  }
}
