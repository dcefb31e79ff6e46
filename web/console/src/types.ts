/** The API's shapes, as the service defines them (type-only: nothing of the service is bundled). */
export type { AccountView } from '../../../shared/api/account-view.ts';
export type { ModelSummary, ModelView } from '../../../shared/api/model-view.ts';
export type { DeploymentView } from '../../../shared/api/deployment-view.ts';
export type { PredictionListBody } from '../../../shared/api/prediction-view-schema.ts';
export type { PredictionView } from '../../../shared/api/prediction-view.ts';
export type { WebhookDeliveries } from '../../../shared/api/webhook-views.ts';
