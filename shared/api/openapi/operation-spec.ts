import type { z } from 'zod';
import type { ZodOpenApiParameters, ZodOpenApiRequestBodyObject } from 'zod-openapi';
import type { ErrorCode } from '../../domain/errors.ts';
import type { ROUTES } from '../routes.ts';

type Route = (typeof ROUTES)[number];
/** `GET /api/v1/predictions/{id}`: one for each route of the table. */
type KeyOf<R> = R extends { readonly method: infer M extends string; readonly path: infer P extends string }
  ? `${M} ${P}`
  : never;
export type RouteKey = KeyOf<Route>;

export interface SuccessResponse {
  readonly status: 200 | 201 | 202 | 204;
  readonly description: string;
  /** The JSON body; none for 204, or when `contentType` says otherwise. */
  readonly schema?: z.ZodType;
  readonly contentType?: string;
  readonly headers?: z.ZodObject;
}

/** The document's sections, in the order the reference page shows them. */
export const TAGS = [
  { name: 'Predictions' },
  { name: 'Model catalog', description: 'Each model also has its own path below, with its input schema.' },
  {
    name: 'Deployments',
    description:
      "Each model's fleet, as a Replicate deployment of the model's name: its hardware, bounds and instances.",
  },
  { name: 'Files' },
  { name: 'Account' },
  {
    name: 'Webhook settings',
    description: 'The signing secret and the delivery log; what a delivery carries is under Webhooks.',
  },
  { name: 'Reference' },
] as const;
type Tag = (typeof TAGS)[number]['name'];

/** One route as the OpenAPI document describes it; document.ts adds what every operation shares. */
export interface OperationSpec {
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tag: Tag;
  readonly requestParams?: ZodOpenApiParameters;
  readonly requestBody?: ZodOpenApiRequestBodyObject;
  readonly success: SuccessResponse;
  /** The errors this route answers beyond those of every (authenticated) request. */
  readonly errors: readonly ErrorCode[];
  /** An error whose body carries more than the error (cancel's 409 carries the prediction). */
  readonly errorBodies?: Partial<Record<ErrorCode, z.ZodType>>;
  /** Reached without a token. */
  readonly public?: boolean;
}
