import type { APIGatewayProxyEvent } from 'aws-lambda';
import { PrognozError } from '../../shared/domain/errors.ts';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../../shared/domain/prediction.ts';
import type { ParsedBody } from './body.ts';

/** What a create asks for, whichever of the create routes it came by. */
export interface CreateAsk {
  readonly modelId: string;
  /** The model's input as sent; a form body's values are still strings. */
  readonly input: Record<string, unknown>;
  readonly inputIsForm: boolean;
  /** The body's `webhook`, when it has one (headers may give it too). */
  readonly webhookField: unknown;
  readonly webhookEvents: readonly WebhookEvent[] | null;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const invalidField = (field: string, message: string) => new PrognozError('invalid_input', `${field} ${message}`, { fields: [{ field, message }] });

const parseEventsFilter = (raw: unknown): readonly WebhookEvent[] | null => {
  if (raw === undefined || raw === null) return null;
  const known = WEBHOOK_EVENTS as readonly unknown[];
  if (!Array.isArray(raw) || raw.length === 0 || raw.some((event) => !known.includes(event))) {
    throw invalidField('webhook_events_filter', `must be a non-empty list of ${WEBHOOK_EVENTS.join(', ')}`);
  }
  return [...new Set(raw as WebhookEvent[])];
};

/**
 * The spec's create (`POST /{company}/{model}`) takes the input as the body itself; Replicate's
 * (`POST /models/{company}/{model}/predictions`, `POST /predictions` with `version`) wrap it as
 * `{input, webhook, webhook_events_filter}` in JSON.
 */
export const readCreateAsk = (event: APIGatewayProxyEvent, body: ParsedBody): CreateAsk => {
  const params = event.pathParameters ?? {};
  if (event.resource === '/api/v1/{company}/{model}') {
    const { webhook, ...input } = body.value;
    return { modelId: `${params.company ?? ''}/${params.model ?? ''}`, input, inputIsForm: body.kind === 'form', webhookField: webhook, webhookEvents: null };
  }
  if (body.kind !== 'json') throw new PrognozError('unsupported_media_type', 'this route takes a JSON body: {"input": {...}}');
  const { input = {}, webhook, webhook_events_filter: filter, version } = body.value;
  if (!isObject(input)) throw invalidField('input', 'must be an object of the model\'s inputs');
  let modelId = `${params.company ?? ''}/${params.model ?? ''}`;
  if (event.resource === '/api/v1/predictions') {
    if (typeof version !== 'string' || !/^[^/\s]+\/[^/\s]+$/.test(version)) {
      throw invalidField('version', 'must name the model as "company/model" (a model has one version)');
    }
    modelId = version;
  }
  return { modelId, input, inputIsForm: false, webhookField: webhook, webhookEvents: parseEventsFilter(filter) };
};
