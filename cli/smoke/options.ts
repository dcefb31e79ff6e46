import { parseArgs } from 'node:util';
import * as z from 'zod';
import { err, ok, type Result } from '../../shared/domain/result.ts';
import { isLoopbackHost } from '../../shared/domain/webhook-url.ts';

export const USAGE = `npm run smoke -- --base-url URL --token TOKEN [options]

Checks a running prognoz end to end: create and poll, a synchronous create, the event stream,
cancel, and a signed webhook. Prints PASS, FAIL or SKIP for each; exits 1 when any failed.

  --base-url URL        the API: the stack's ApiUrl output, or http://127.0.0.1:8080/api/v1/
  --token TOKEN         an API token (npx prognoz tokens create ACCOUNT); else $PROGNOZ_API_TOKEN
  --model OWNER/NAME    the model to run (default prognoz/echo)
  --input JSON          its input for the quick steps (default {"text":"smoke"})
  --busy-input JSON     an input that keeps it busy, for the cancel step (default {"text":"smoke","sleep":60})
  --webhook-url URL     the public address that reaches the smoke's webhook receiver (a tunnel);
                        without it the webhook step runs only against a service on loopback
  --listen [HOST:]PORT  where the receiver listens (default 127.0.0.1, any free port)
  --timeout SECONDS     how long a step waits for a prediction (default 600: a cold fleet starts in minutes)`;

const inputSchema = z.record(z.string(), z.unknown());

const jsonInput = (flag: string) =>
  z.string().transform((raw, context) => {
    try {
      return inputSchema.parse(JSON.parse(raw));
    } catch {
      context.addIssue({ code: 'custom', message: `${flag} must be a JSON object` });
      return z.NEVER;
    }
  });

const httpUrl = (flag: string) =>
  z.url({ protocol: /^https?$/, error: `${flag} must be an http(s) URL` }).transform((raw) => new URL(raw));

/** `PORT` or `HOST:PORT`, an IPv6 host in brackets. */
const LISTEN = /^(?:(.+):)?(\d{1,5})$/;

const listenSchema = z
  .string()
  .regex(LISTEN, '--listen must be PORT or HOST:PORT')
  .transform((raw) => {
    const [, host, port] = LISTEN.exec(raw) ?? [];
    return { host: host?.replace(/^\[|\]$/g, '') ?? '127.0.0.1', port: Number(port) };
  })
  .refine((listen) => listen.port <= 65_535, '--listen: a port is at most 65535');

const optionsSchema = z.object({
  baseUrl: httpUrl('--base-url').transform((url) => {
    // The stack's ApiUrl ends `/api/v1/`; an origin alone (ConsoleUrl, the local front) gets it added.
    const base = new URL(url);
    if (base.pathname === '/') base.pathname = '/api/v1/';
    else if (!base.pathname.endsWith('/')) base.pathname += '/';
    return base;
  }),
  token: z.string({ error: 'give an API token: --token TOKEN, or PROGNOZ_API_TOKEN' }).min(1),
  model: z.string().regex(/^[\w.-]+\/[\w.-]+$/, '--model must be OWNER/NAME'),
  input: jsonInput('--input'),
  busyInput: jsonInput('--busy-input'),
  webhookUrl: httpUrl('--webhook-url').optional(),
  listen: listenSchema,
  timeoutSeconds: z
    .string()
    .regex(/^[1-9]\d*$/, '--timeout is a whole number of seconds')
    .transform(Number),
});

export type SmokeOptions = z.infer<typeof optionsSchema>;

/** The command line (and PROGNOZ_API_TOKEN) as options, or what is wrong with it. */
export const parseSmokeOptions = (
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Result<SmokeOptions, string> => {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        'base-url': { type: 'string' },
        token: { type: 'string' },
        model: { type: 'string', default: 'prognoz/echo' },
        input: { type: 'string', default: '{"text":"smoke"}' },
        'busy-input': { type: 'string', default: '{"text":"smoke","sleep":60}' },
        'webhook-url': { type: 'string' },
        listen: { type: 'string', default: '127.0.0.1:0' },
        timeout: { type: 'string', default: '600' },
      },
    }));
  } catch (error) {
    return err(error instanceof Error ? error.message : String(error));
  }
  const parsed = optionsSchema.safeParse({
    baseUrl: values['base-url'] ?? '',
    token: values.token ?? env.PROGNOZ_API_TOKEN,
    model: values.model,
    input: values.input,
    busyInput: values['busy-input'],
    webhookUrl: values['webhook-url'],
    listen: values.listen,
    timeoutSeconds: values.timeout,
  });
  return parsed.success ? ok(parsed.data) : err(parsed.error.issues.map((issue) => issue.message).join('; '));
};

/** How the webhook step runs: a receiver here, reached at `url` (null: its own loopback address), or not at all. */
export type WebhookPlan =
  | { readonly kind: 'receive'; readonly listen: SmokeOptions['listen']; readonly url: URL | null }
  | { readonly kind: 'skip'; readonly reason: string };

/**
 * A service on loopback is the local runtime, which delivers plain http to loopback; a deployed
 * service can reach this machine only through an address the deployer gives (a tunnel).
 */
export const webhookPlan = (options: Pick<SmokeOptions, 'baseUrl' | 'webhookUrl' | 'listen'>): WebhookPlan => {
  if (options.webhookUrl) return { kind: 'receive', listen: options.listen, url: options.webhookUrl };
  if (isLoopbackHost(options.baseUrl.hostname)) return { kind: 'receive', listen: options.listen, url: null };
  return {
    kind: 'skip',
    reason: `${options.baseUrl.host} cannot reach a receiver on this machine; give --webhook-url, a public https address (a tunnel) that reaches --listen PORT`,
  };
};
