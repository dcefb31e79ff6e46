import * as z from '../zod-mini.ts';
import { apiEnvironment } from './api.ts';
import { authorizerEnvironment } from './authorizer.ts';
import { finalizeEnvironment } from './finalize.ts';
import { sweeperEnvironment } from './sweeper.ts';
import { webhookSenderEnvironment } from './webhook-sender.ts';
import { workerEnvironment } from './worker.ts';

/**
 * Every kind of process of the service, by the schema of its environment. The stack tags each
 * function with its kind (infra/constructs/process-bindings.ts); the local runtime and the
 * template's tests read the tag.
 */
export const PROCESS_ENVIRONMENTS = {
  api: apiEnvironment.schema,
  authorizer: authorizerEnvironment.schema,
  'webhook-sender': webhookSenderEnvironment.schema,
  sweeper: sweeperEnvironment.schema,
  finalize: finalizeEnvironment.schema,
  worker: workerEnvironment.schema,
  /** A function that needs nothing of the deployment (the unmatched route answers from the route table alone). */
  unconfigured: z.object({}),
} as const satisfies Record<string, z.ZodMiniObject>;

export type ProcessKind = keyof typeof PROCESS_ENVIRONMENTS;

export const processKindOf = (tag: string | undefined): ProcessKind => {
  if (tag === undefined || !(tag in PROCESS_ENVIRONMENTS))
    throw new Error(`${tag ?? 'no kind'} is not a kind of process (${Object.keys(PROCESS_ENVIRONMENTS).join(', ')})`);
  return tag as ProcessKind;
};

/** The variables a kind of process reads. */
export const variablesOf = (kind: ProcessKind): readonly string[] => Object.keys(PROCESS_ENVIRONMENTS[kind].shape);

/**
 * The variables of a kind that may be left out (they have defaults, or are only for AWS): its
 * settings, which the stack need not set and which an operator may.
 */
export const settingsOf = (kind: ProcessKind): readonly string[] =>
  Object.entries(PROCESS_ENVIRONMENTS[kind].shape as Record<string, z.ZodMiniType>)
    .filter(([, value]) => value.safeParse(undefined).success)
    .map(([name]) => name);
