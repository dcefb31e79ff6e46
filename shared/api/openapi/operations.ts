import * as z from 'zod';
import type { ZodOpenApiRequestBodyObject } from 'zod-openapi';
import type { ErrorCode } from '../../domain/errors.ts';
import { predictionFinishedBodySchema } from '../error-body-schema.ts';
import { accountChangeSchema, accountViewSchema } from '../account-view.ts';
import { fileViewSchema } from '../file-view-schema.ts';
import { modelListSchema, modelViewSchema } from '../model-view-schema.ts';
import { predictionListBodySchema, predictionViewSchema } from '../prediction-view-schema.ts';
import { deploymentChangeSchema, deploymentListSchema, deploymentSchema } from '../deployment-view.ts';
import {
  hardwareListSchema,
  modelVersionListSchema,
  modelVersionSchema,
  replicateModelSchema,
} from '../replicate-models.ts';
import { modelCreateBodySchema, versionCreateBodySchema } from '../request-schemas.ts';
import {
  authenticatedHeadersSchema,
  commonHeadersSchema,
  createHeadersSchema,
  deliveriesQuerySchema,
  listQuerySchema,
  streamQuerySchema,
  outputFileQuerySchema,
  uploadFormSchema,
} from './request-parameters.ts';
import type { OperationSpec, RouteKey, SuccessResponse } from './operation-spec.ts';
import { READ_API_OPERATIONS } from './read-api-operations.ts';
import { fileId, modelPath, predictionId } from './path-params.ts';
import { createdTokenSchema, createTokenBodySchema, tokenListSchema } from '../token-views.ts';
import {
  ACCOUNT_DELIVERIES_PAGE_SIZE,
  accountDeliveriesSchema,
  redeliverySchema,
  rotatedSecretSchema,
  webhookDeliveriesSchema,
  webhookSecretSchema,
} from '../webhook-views.ts';

const outputFilePath = z.object({
  id: z.string().describe('The prediction id.'),
  claim: z.string().describe('The run that made the file.'),
  file: z.string().describe("The file's name, such as `output-0.png`."),
});
const versionPath = modelPath.extend({
  versionCompany: z
    .string()
    .describe("The version id's first segment: the model's company.")
    .meta({ examples: ['prognoz'] }),
  versionModel: z
    .string()
    .describe("The version id's second segment: the model's name.")
    .meta({ examples: ['echo'] }),
});

const predictionHeaders = z.object({
  Location: z.url().describe('The prediction (GET).'),
  'Idempotent-Replayed': z
    .literal('true')
    .optional()
    .describe('This answer is that of an earlier request with the same Idempotency-Key.'),
});

const created: SuccessResponse = {
  status: 201,
  description:
    'Accepted: the prediction, queued (or, with `Prefer: wait`, as it stands when it ended or the wait ran out). A repeat with the same Idempotency-Key answers the first.',
  schema: predictionViewSchema,
  headers: predictionHeaders,
};

/** What every create may answer besides its own body's complaints. */
const CREATE_ERRORS: readonly ErrorCode[] = [
  'invalid_json',
  'invalid_body',
  'invalid_header',
  'webhook_conflict',
  'insufficient_funds',
  'monthly_limit_reached',
  'model_not_found',
  'route_not_found',
  'method_not_allowed',
  'payload_too_large',
  'unsupported_media_type',
  'invalid_input',
  'idempotency_key_reused',
];

const jsonBody = (schema: z.core.$ZodType, description: string): ZodOpenApiRequestBodyObject => ({
  required: true,
  description,
  content: { 'application/json': { schema } },
});

/** A model's input as the spec's create takes it: the body itself, plus `webhook`. */
export const specCreateBody = (
  input: z.core.$ZodType,
  example?: Readonly<Record<string, unknown>>,
): ZodOpenApiRequestBodyObject => ({
  required: true,
  description:
    "The model's input as the body itself, plus an optional `webhook`. JSON, or the same fields as a form (values are converted to the types the model's schema declares).",
  content: {
    'application/json': { schema: input, ...(example ? { example } : {}) },
    'application/x-www-form-urlencoded': { schema: input, ...(example ? { example } : {}) },
  },
});

/** Any model's input: the per-model paths (document.ts) carry each model's own schema. */
const anyModelInput = z
  .record(z.string(), z.unknown())
  .describe("The model's input (its `…Input` component), plus an optional `webhook` (an https URL).")
  .meta({ examples: [{ text: 'hello' }] });

export const OPERATIONS: Readonly<Record<RouteKey, OperationSpec>> = {
  'POST /api/v1/{company}/{model}': {
    operationId: 'createPrediction',
    summary: 'Create a prediction',
    description: "Runs the model on the input. Each model's own path below carries its input schema.",
    tag: 'Predictions',
    requestParams: { path: modelPath, header: createHeadersSchema },
    requestBody: specCreateBody(anyModelInput),
    success: created,
    errors: CREATE_ERRORS,
  },
  'GET /api/v1/{company}/{model}': {
    operationId: 'getModel',
    summary: 'A model: price and JSON Schema',
    tag: 'Model catalog',
    requestParams: { path: modelPath, header: authenticatedHeadersSchema },
    success: {
      status: 200,
      description: 'The model, its price and its input and output JSON Schema.',
      schema: modelViewSchema,
    },
    errors: ['model_not_found', 'route_not_found'],
  },
  'GET /api/v1/models': {
    operationId: 'listModels',
    summary: 'The models this deployment serves',
    tag: 'Model catalog',
    requestParams: { header: authenticatedHeadersSchema },
    success: { status: 200, description: 'Every model, with its price and links.', schema: modelListSchema },
    errors: [],
  },
  'GET /api/v1/models/{company}/{model}': {
    operationId: 'getModelObject',
    summary: "A model as Replicate's clients read it",
    description:
      "Replicate's model object, its one version within (`latest_version`, with the input and output schemas the service validates with). Models come from the deployment's manifest: this API does not create or change them.",
    tag: 'Model catalog',
    requestParams: { path: modelPath, header: authenticatedHeadersSchema },
    success: { status: 200, description: 'The model.', schema: replicateModelSchema },
    errors: ['model_not_found'],
  },
  'GET /api/v1/models/{company}/{model}/versions': {
    operationId: 'listModelVersions',
    summary: "A model's versions",
    description: "Each model has one version, whose id is the model's own (`company/model`).",
    tag: 'Model catalog',
    requestParams: { path: modelPath, header: authenticatedHeadersSchema },
    success: { status: 200, description: 'The one version, as a page.', schema: modelVersionListSchema },
    errors: ['model_not_found'],
  },
  'GET /api/v1/models/{company}/{model}/versions/{versionCompany}/{versionModel}': {
    operationId: 'getModelVersion',
    summary: "A model's version",
    description: "The version id is the model's own, `company/model`: its path has two segments.",
    tag: 'Model catalog',
    requestParams: { path: versionPath, header: authenticatedHeadersSchema },
    success: { status: 200, description: 'The version.', schema: modelVersionSchema },
    errors: ['model_not_found', 'version_not_found'],
  },
  'GET /api/v1/hardware': {
    operationId: 'listHardware',
    summary: 'The machines the fleets run on',
    description: "The instance types of the models' fleets, once each, as Replicate's `hardware.list()` reads them.",
    tag: 'Model catalog',
    requestParams: { header: authenticatedHeadersSchema },
    success: { status: 200, description: 'A bare list, as Replicate answers.', schema: hardwareListSchema },
    errors: [],
  },
  'GET /api/v1/predictions/{id}': {
    operationId: 'getPrediction',
    summary: 'A prediction',
    tag: 'Predictions',
    requestParams: { path: predictionId, header: authenticatedHeadersSchema },
    success: { status: 200, description: 'The prediction as it stands.', schema: predictionViewSchema },
    errors: ['prediction_not_found'],
  },
  'POST /api/v1/predictions/{id}/cancel': {
    operationId: 'cancelPrediction',
    summary: 'Cancel a prediction',
    description: 'Canceled, also when it already was; 409 with the prediction when it had finished otherwise.',
    tag: 'Predictions',
    requestParams: { path: predictionId, header: authenticatedHeadersSchema },
    success: { status: 200, description: 'The prediction, canceled.', schema: predictionViewSchema },
    errors: ['prediction_not_found', 'prediction_finished'],
    errorBodies: { prediction_finished: predictionFinishedBodySchema(predictionViewSchema) },
  },
  'GET /api/v1/predictions': {
    operationId: 'listPredictions',
    summary: "The caller's predictions, newest first",
    tag: 'Predictions',
    requestParams: { query: listQuerySchema, header: authenticatedHeadersSchema },
    success: {
      status: 200,
      description: 'A page of predictions (at most 100), with links to the pages either side.',
      schema: predictionListBodySchema,
    },
    errors: ['invalid_query'],
  },
  'POST /api/v1/predictions': {
    operationId: 'createPredictionByVersion',
    summary: "Create a prediction, naming the model as Replicate's `version`",
    tag: 'Predictions',
    requestParams: { header: createHeadersSchema },
    requestBody: jsonBody(versionCreateBodySchema, '`{version, input, webhook?, webhook_events_filter?}`.'),
    success: created,
    errors: CREATE_ERRORS,
  },
  'POST /api/v1/models/{company}/{model}/predictions': {
    operationId: 'createModelPrediction',
    summary: "Create a prediction (Replicate's form)",
    tag: 'Predictions',
    requestParams: { path: modelPath, header: createHeadersSchema },
    requestBody: jsonBody(modelCreateBodySchema, '`{input, webhook?, webhook_events_filter?}`.'),
    success: created,
    errors: CREATE_ERRORS,
  },
  'POST /api/v1/deployments/{company}/{model}/predictions': {
    operationId: 'createDeploymentPrediction',
    summary: 'Create a prediction on a deployment',
    description: "Each model's fleet is a deployment of the model's name: the same create as the model's.",
    tag: 'Deployments',
    requestParams: { path: modelPath, header: createHeadersSchema },
    requestBody: jsonBody(modelCreateBodySchema, '`{input, webhook?, webhook_events_filter?}`.'),
    success: created,
    errors: CREATE_ERRORS,
  },
  'GET /api/v1/deployments': {
    operationId: 'listDeployments',
    summary: "The models' fleets, as deployments",
    description:
      "Each model's fleet as a Replicate deployment of the model's name: its hardware, the bounds its scaler keeps it within, and the instances it runs now.",
    tag: 'Deployments',
    requestParams: { header: authenticatedHeadersSchema },
    success: { status: 200, description: "Every deployment, in the catalog's order.", schema: deploymentListSchema },
    errors: [],
  },
  'GET /api/v1/deployments/{company}/{model}': {
    operationId: 'getDeployment',
    summary: 'A deployment',
    tag: 'Deployments',
    requestParams: { path: modelPath, header: authenticatedHeadersSchema },
    success: { status: 200, description: 'The deployment as its fleet stands now.', schema: deploymentSchema },
    errors: ['deployment_not_found'],
  },
  'PATCH /api/v1/deployments/{company}/{model}': {
    operationId: 'updateDeployment',
    summary: "Change a deployment's bounds",
    description:
      "An operator only (an owner in the owners' pool's `operators` group, signed in): an account's API token gets 403 and changes nothing. Sets the fleet's scalable target from now on, with no deploy; a later deploy leaves it as it is unless that deploy changes the fleet's first bounds (the manifest's minWarmTasks or maxTasks, or the prognoz:minWarmTasks context). Each change is a new release, recorded with who made it, when, and the bounds before and after (`npx prognoz deployments show`).",
    tag: 'Deployments',
    requestParams: { path: modelPath, header: authenticatedHeadersSchema },
    requestBody: jsonBody(
      deploymentChangeSchema,
      '`{min_instances, max_instances}`, either or both; `hardware` and `version` only as they are.',
    ),
    success: { status: 200, description: 'The deployment, changed.', schema: deploymentSchema },
    errors: [
      'operator_required',
      'deployment_not_found',
      'invalid_configuration',
      'invalid_json',
      'invalid_body',
      'unsupported_media_type',
      'payload_too_large',
    ],
  },
  'GET /api/v1/predictions/{id}/stream': {
    operationId: 'streamPrediction',
    summary: "A prediction's server-sent events",
    description:
      'Events `output`, `logs`, `error` and `done`, for as long as the prediction runs (reconnect after 15 minutes). Opened without a token: the key in `urls.stream` is the capability.',
    tag: 'Predictions',
    public: true,
    requestParams: { path: predictionId, query: streamQuerySchema, header: commonHeadersSchema },
    success: { status: 200, description: 'An event stream.', contentType: 'text/event-stream', schema: z.string() },
    errors: ['prediction_not_found'],
  },
  'GET /api/v1/predictions/{id}/output/{claim}/{file}': {
    operationId: 'getOutputFile',
    summary: 'A file the model returned',
    description:
      "The bytes of one output file, with its content type; a `Range` header gets part of it (206). Its URL is in the prediction's `output` (https, as Replicate's clients expect of a file) and serves for as long as the prediction's data is kept. Opened without a token: the `key` in the URL is the capability.",
    tag: 'Predictions',
    public: true,
    requestParams: {
      path: outputFilePath,
      query: outputFileQuerySchema,
      header: commonHeadersSchema,
    },
    success: {
      status: 200,
      description: 'The file, with its own content type (an image, audio, …).',
      contentType: '*/*',
      schema: z.string().meta({ format: 'binary' }),
    },
    errors: ['file_not_found'],
  },
  'GET /api/v1/predictions/{id}/webhooks': {
    operationId: 'listWebhookDeliveries',
    summary: "A prediction's webhook delivery attempts",
    tag: 'Webhook settings',
    requestParams: { path: predictionId, header: authenticatedHeadersSchema },
    success: { status: 200, description: 'Every attempt, oldest first.', schema: webhookDeliveriesSchema },
    errors: ['prediction_not_found'],
  },
  'POST /api/v1/predictions/{id}/webhooks/redeliver': {
    operationId: 'redeliverWebhook',
    summary: 'Send a dead-lettered webhook again',
    description:
      'The same webhook id, fresh attempts. 409 when the last delivery did not dead-letter (it was delivered, or is still trying).',
    tag: 'Webhook settings',
    requestParams: { path: predictionId, header: authenticatedHeadersSchema },
    success: { status: 202, description: 'Queued again.', schema: redeliverySchema },
    errors: ['prediction_not_found', 'webhook_not_dead_lettered'],
  },
  'GET /api/v1/account': {
    operationId: 'getAccount',
    summary: 'Balance, spend and monthly limit',
    tag: 'Account',
    requestParams: { header: authenticatedHeadersSchema },
    success: { status: 200, description: 'The account behind the token.', schema: accountViewSchema },
    errors: [],
  },
  'PATCH /api/v1/account': {
    operationId: 'updateAccount',
    summary: 'Set or remove the monthly limit',
    description:
      'An account owner signed in to the console only: an API token gets 403 (a leaked token must not raise the limit). Creates beyond the limit are refused with 402.',
    tag: 'Account',
    requestParams: { header: authenticatedHeadersSchema },
    requestBody: jsonBody(
      accountChangeSchema,
      '`{monthly_limit}`: roubles with at most two decimals, or null for none.',
    ),
    success: { status: 200, description: 'The account, changed.', schema: accountViewSchema },
    errors: ['owner_sign_in_required', 'invalid_json', 'invalid_body', 'unsupported_media_type', 'payload_too_large'],
  },
  'GET /api/v1/account/tokens': {
    operationId: 'listApiTokens',
    summary: "The account's API tokens",
    description:
      'Their names and first characters, never the tokens. An account owner signed in to the console only: an API token gets 403.',
    tag: 'Account',
    requestParams: { header: authenticatedHeadersSchema },
    success: { status: 200, description: 'Newest first.', schema: tokenListSchema },
    errors: ['owner_sign_in_required'],
  },
  'POST /api/v1/account/tokens': {
    operationId: 'createApiToken',
    summary: 'Create an API token',
    description:
      'The token is in this answer alone; only its SHA-256 is kept. An account owner signed in to the console only: an API token gets 403.',
    tag: 'Account',
    requestParams: { header: authenticatedHeadersSchema },
    requestBody: { required: true, content: { 'application/json': { schema: createTokenBodySchema } } },
    success: { status: 201, description: 'The new token.', schema: createdTokenSchema },
    errors: ['owner_sign_in_required', 'invalid_json', 'invalid_body', 'unsupported_media_type', 'payload_too_large'],
  },
  'DELETE /api/v1/account/tokens/{id}': {
    operationId: 'revokeApiToken',
    summary: 'Revoke an API token',
    description:
      'Refused from now on (on AWS within the authorizer cache time, 60 s). An account owner signed in to the console only: an API token gets 403.',
    tag: 'Account',
    requestParams: {
      path: z.object({ id: z.string().describe("The token's id, from the list.") }),
      header: authenticatedHeadersSchema,
    },
    success: { status: 204, description: 'Revoked.' },
    errors: ['owner_sign_in_required', 'token_not_found'],
  },
  'GET /api/v1/webhooks/default/secret': {
    operationId: 'getWebhookSecret',
    summary: 'The secret that signs webhooks',
    tag: 'Webhook settings',
    requestParams: { header: authenticatedHeadersSchema },
    success: { status: 200, description: "The account's signing secret.", schema: webhookSecretSchema },
    errors: [],
  },
  'GET /api/v1/webhooks/default/deliveries': {
    operationId: 'listAccountWebhookDeliveries',
    summary: "Recent webhook deliveries across the account's predictions",
    description: `Every attempt, newest first, ${ACCOUNT_DELIVERIES_PAGE_SIZE} a page, each with its prediction; \`next\` links to older ones.`,
    tag: 'Webhook settings',
    requestParams: { query: deliveriesQuerySchema, header: authenticatedHeadersSchema },
    success: { status: 200, description: 'A page of attempts.', schema: accountDeliveriesSchema },
    errors: ['invalid_query'],
  },
  'POST /api/v1/webhooks/default/secret/rotate': {
    operationId: 'rotateWebhookSecret',
    summary: 'Rotate the signing secret',
    description:
      "A new secret signs from now on; for a day `webhook-signature` carries the previous secret's signature too, so receivers switch without losing a delivery.",
    tag: 'Webhook settings',
    requestParams: { header: authenticatedHeadersSchema },
    success: { status: 200, description: 'The new secret.', schema: rotatedSecretSchema },
    errors: [],
  },
  'POST /api/v1/files': {
    operationId: 'uploadFile',
    summary: 'Upload a file to use as an input',
    description: "Kept for the retention period; its `urls.get` may be given as any file input. Replicate's file API.",
    tag: 'Files',
    requestParams: { header: authenticatedHeadersSchema },
    requestBody: { required: true, content: { 'multipart/form-data': { schema: uploadFormSchema } } },
    success: { status: 201, description: 'The file.', schema: fileViewSchema },
    errors: ['invalid_body', 'payload_too_large', 'unsupported_media_type'],
  },
  'GET /api/v1/files/{id}': {
    operationId: 'getFile',
    summary: 'A file, with a fresh download address',
    tag: 'Files',
    requestParams: { path: fileId, header: authenticatedHeadersSchema },
    success: { status: 200, description: 'The file.', schema: fileViewSchema },
    errors: ['file_not_found'],
  },
  'DELETE /api/v1/files/{id}': {
    operationId: 'deleteFile',
    summary: 'Delete a file',
    tag: 'Files',
    requestParams: { path: fileId, header: authenticatedHeadersSchema },
    success: { status: 204, description: 'Deleted.' },
    errors: ['file_not_found'],
  },
  'GET /api/v1/openapi.json': {
    operationId: 'getOpenApiDocument',
    summary: 'This document',
    tag: 'Reference',
    public: true,
    requestParams: { header: commonHeadersSchema },
    success: {
      status: 200,
      description: 'The OpenAPI 3.1 document of this deployment (its models included).',
      schema: z.record(z.string(), z.unknown()),
    },
    errors: [],
  },
  ...READ_API_OPERATIONS,
};
