import type { APIGatewayProxyEvent } from 'aws-lambda';
import { PrognozError } from '../../shared/domain/errors.ts';
import { modelCreateBodySchema, versionCreateBodySchema } from '../../shared/api/request-schemas.ts';
import type { WebhookEvent } from '../../shared/domain/prediction.ts';
import { refusedBody, type ParsedBody } from './body.ts';
import { modelIdOf } from './model-path.ts';

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

/**
 * The interface's create (`POST /{company}/{model}`) takes the input as the body itself; Replicate's
 * (`POST /models/{company}/{model}/predictions`, `POST /predictions` with `version`) wrap it as
 * `{input, webhook, webhook_events_filter}` in JSON.
 */
export const readCreateAsk = (event: APIGatewayProxyEvent, body: ParsedBody): CreateAsk => {
  if (event.resource === '/api/v1/{company}/{model}') {
    const { webhook, ...input } = body.value;
    return {
      modelId: modelIdOf(event),
      input,
      inputIsForm: body.kind === 'form',
      webhookField: webhook,
      webhookEvents: null,
    };
  }
  if (body.kind !== 'json')
    throw new PrognozError('unsupported_media_type', 'this route takes a JSON body: {"input": {...}}');
  const byVersion = event.resource === '/api/v1/predictions' ? versionCreateBodySchema.safeParse(body.value) : null;
  const parsed = byVersion ?? modelCreateBodySchema.safeParse(body.value);
  if (!parsed.success) throw refusedBody('invalid_input', 'a create request', parsed.error);
  const { input, webhook, webhook_events_filter: filter } = parsed.data;
  return {
    modelId: byVersion?.data?.version ?? modelIdOf(event),
    input,
    inputIsForm: false,
    webhookField: webhook,
    webhookEvents: filter ? [...new Set(filter)] : null,
  };
};
