import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  AuthorizationType,
  EndpointType,
  IdentitySource,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  RequestAuthorizer,
  ResponseTransferMode,
  ResponseType,
  RestApi,
  type IResource,
} from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import {
  integrationTimeoutOf,
  isPublicRoute,
  isStreamingRoute,
  ROUTES,
  type HandlerName,
} from '../../shared/api/routes.ts';
import { AWS_UPLOAD_LIMIT_NOTE, BINARY_MEDIA_TYPES } from '../../shared/api/uploads.ts';
import type { ErrorCode } from '../../shared/domain/errors.ts';

export interface PredictionApiProps {
  /** The handler of each route name of shared/api/routes.ts. */
  readonly handlers: Readonly<Record<HandlerName, IFunction>>;
  readonly authorizer: IFunction;
  /** Answers every request no route takes (404, or 405 with Allow). */
  readonly unmatched: IFunction;
  /** Steady-state requests per second for the whole API: a coarse outer shield. Default: 200. */
  readonly rateLimit?: number;
  /** A WAF web ACL in front of the stage, with a per-address rate rule. Default: none. */
  readonly waf?: boolean;
}

/** Requests one address may make in any 5 minutes before the WAF blocks it (WAF's own window). */
export const WAF_REQUESTS_PER_ADDRESS = 3000;

/** The access log's fields: who asked what, how it went, and how long it took. */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    ip: '$context.identity.sourceIp',
    userAgent: '$context.identity.userAgent',
    requestTime: '$context.requestTimeEpoch',
    method: '$context.httpMethod',
    path: '$context.path',
    status: '$context.status',
    responseLength: '$context.responseLength',
    latencyMs: '$context.responseLatency',
    integrationLatencyMs: '$context.integrationLatency',
    account: '$context.authorizer.principalId',
    errorType: '$context.error.responseType',
    wafStatus: '$context.waf.status',
  }),
);

/** An answer API Gateway gives itself, in the API's error shape. */
export const errorTemplate = (code: ErrorCode, message: string) =>
  JSON.stringify({ error: { code, message, request_id: '$context.requestId' } });

const GATEWAY_ANSWERS: readonly {
  id: string;
  type: ResponseType;
  statusCode?: string;
  code: ErrorCode;
  message: string;
}[] = [
  // A request without the identity header.
  {
    id: 'MissingToken',
    type: ResponseType.UNAUTHORIZED,
    statusCode: '401',
    code: 'missing_token',
    message: 'an API token is required: `Authorization: Bearer <API_TOKEN>`',
  },
  // A request over Lambda's 6 MB of event (one over API Gateway's 10 MB gets its own text).
  {
    id: 'RequestTooLarge',
    type: ResponseType.REQUEST_TOO_LARGE,
    statusCode: '413',
    code: 'payload_too_large',
    message: `the request is too large: ${AWS_UPLOAD_LIMIT_NOTE}`,
  },
  // The stage's throttle, the outer shield above the per-token limits.
  {
    id: 'Throttled',
    type: ResponseType.THROTTLED,
    statusCode: '429',
    code: 'rate_limited',
    message: 'too many requests to this API; retry in a second',
  },
  // Any other request API Gateway refuses itself (its status kept): malformed, or refused before a route.
  {
    id: 'Default4xx',
    type: ResponseType.DEFAULT_4XX,
    code: 'malformed_request',
    message: 'the request was refused before it reached the service',
  },
  // A function that crashed or timed out (its status kept: 502, 504).
  {
    id: 'Default5xx',
    type: ResponseType.DEFAULT_5XX,
    code: 'internal_error',
    message: 'the service failed to handle this request; retry later and quote the request id',
  },
];

/** The public REST API (interface: Routes) under /api/v1/, with the Bearer-token authorizer. */
export class PredictionApi extends Construct {
  public readonly api: RestApi;

  constructor(scope: Construct, id: string, props: PredictionApiProps) {
    super(scope, id);
    const rate = props.rateLimit ?? 200;
    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.THREE_MONTHS });
    this.api = new RestApi(this, 'Api', {
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      deployOptions: {
        stageName: 'prod',
        throttlingRateLimit: rate,
        throttlingBurstLimit: rate * 2,
        // Execution logs of errors only, never request or response bodies (no data tracing);
        // access logs say who asked what.
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: ACCESS_LOG_FORMAT,
      },
      // API Gateway writes logs through one role per account and region (its account setting):
      // the stack sets it, and keeps it when it goes, since other APIs of the account may use it.
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      // Uploads (POST /files) reach their handler base64-encoded, bytes intact, instead of as text.
      binaryMediaTypes: [...BINARY_MEDIA_TYPES],
    });
    const authorizer = new RequestAuthorizer(this, 'BearerAuthorizer', {
      handler: props.authorizer,
      identitySources: [IdentitySource.header('Authorization')],
      resultsCacheTtl: Duration.seconds(60),
    });
    // Where API Gateway answers itself, it answers in the API's error shape too.
    for (const answer of GATEWAY_ANSWERS) {
      this.api.addGatewayResponse(answer.id, {
        type: answer.type,
        ...(answer.statusCode ? { statusCode: answer.statusCode } : {}),
        templates: { 'application/json': errorTemplate(answer.code, answer.message) },
      });
    }

    // One invoke permission per function for the whole API, not two per method: the fallback alone
    // answers on every resource, and the stack must stay within CloudFormation's 500 resources.
    const unmatched = new LambdaIntegration(props.unmatched, { scopePermissionToMethod: false });
    const resources = new Map<string, IResource>();
    // API Gateway has no QUERY method: a QUERY route takes its resource's ANY, and its function answers other methods 405.
    const queried = new Set<string>(ROUTES.filter((route) => route.method === 'QUERY').map((route) => route.path));
    const resourceAt = (path: string): IResource => {
      const found = resources.get(path);
      if (found) return found;
      const parentPath = path.slice(0, path.lastIndexOf('/')) || '/';
      const parent = parentPath === '/' ? this.api.root : resourceAt(parentPath);
      const created = parent.addResource(path.slice(path.lastIndexOf('/') + 1));
      if (!queried.has(path)) created.addMethod('ANY', unmatched, { authorizationType: AuthorizationType.NONE });
      resources.set(path, created);
      return created;
    };
    for (const route of ROUTES) {
      const streaming = isStreamingRoute(route.handler);
      const integration = new LambdaIntegration(props.handlers[route.handler], {
        scopePermissionToMethod: false,
        // Streamed responses may take up to 15 minutes, so a 60 s sync wait needs no quota increase;
        // the integration outlasts the function, which outlasts the longest wait (an event stream
        // ends itself before its function must).
        ...(streaming
          ? {
              responseTransferMode: ResponseTransferMode.STREAM,
              timeout: Duration.seconds(integrationTimeoutOf(route.handler)),
            }
          : {}),
      });
      resourceAt(route.path).addMethod(
        route.method === 'QUERY' ? 'ANY' : route.method,
        integration,
        isPublicRoute(route) ? { authorizationType: AuthorizationType.NONE } : { authorizer },
      );
    }
    this.api.root.addProxy({ defaultIntegration: unmatched, anyMethod: true });
    if (props.waf === true) this.protectWithWaf();
  }

  /** A regional web ACL on the stage: a per-address rate rule and AWS's list of bad addresses. */
  private protectWithWaf(): void {
    const visibility = (name: string) => ({
      cloudWatchMetricsEnabled: true,
      sampledRequestsEnabled: true,
      metricName: `prognoz-${name}`,
    });
    const acl = new CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('api'),
      customResponseBodies: {
        rateLimited: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify({
            error: { code: 'rate_limited', message: 'too many requests from this address; retry in a few minutes' },
          }),
        },
      },
      rules: [
        {
          name: 'per-address-rate',
          priority: 0,
          action: { block: { customResponse: { responseCode: 429, customResponseBodyKey: 'rateLimited' } } },
          statement: { rateBasedStatement: { limit: WAF_REQUESTS_PER_ADDRESS, aggregateKeyType: 'IP' } },
          visibilityConfig: visibility('per-address-rate'),
        },
        {
          name: 'aws-ip-reputation',
          priority: 1,
          overrideAction: { none: {} },
          statement: {
            managedRuleGroupStatement: { vendorName: 'AWS', name: 'AWSManagedRulesAmazonIpReputationList' },
          },
          visibilityConfig: visibility('aws-ip-reputation'),
        },
      ],
    });
    new CfnWebACLAssociation(this, 'WebAclAssociation', {
      resourceArn: this.api.deploymentStage.stageArn,
      webAclArn: acl.attrArn,
    });
  }
}
