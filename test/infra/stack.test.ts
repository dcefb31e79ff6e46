import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../infra/app.ts';
import { wholeTemplate } from '../../local/synthesize.ts';
import {
  DELIVERY_INDEX,
  DELIVERY_SHARDS,
  LEGACY_OWNER_INDEX_NAME,
  OWNER_INDEX,
} from '../../shared/adapters/table-keys.ts';
import { EVENT_STREAM, isPublicRoute, ROUTES, SYNC_WAIT } from '../../shared/api/routes.ts';
import { PREDICTIONS_ENDED, WEBHOOK_ATTEMPTS, WORKERS_LOST } from '../../shared/metrics.ts';
import { RETRY_POLICY } from '../../shared/workflow/webhook-policy.ts';
import { testCatalog } from '../support/catalog.ts';

const { app, stack } = buildApp({ bundle: false });
/** Everything the stack deploys, its models' nested stacks included. */
const template = Template.fromJSON(wholeTemplate(app, stack));
type Resource = { Type: string; Properties: Record<string, unknown> };
const resources = (type: string) => Object.values(template.findResources(type)) as Resource[];

describe('the API', () => {
  it("has the routes under /api/v1/, each behind the Bearer-token authorizer but the stream, which its URL's key opens", () => {
    // The reference page's files come from S3 (an AWS integration, test/infra/api-docs.test.ts); every route from its function.
    const methods = resources('AWS::ApiGateway::Method').filter(
      (m) => m.Properties.HttpMethod !== 'ANY' && (m.Properties.Integration as { Type: string }).Type !== 'AWS',
    );
    const queries = ROUTES.filter((route) => route.method === 'QUERY');
    expect(methods.map((m) => m.Properties.HttpMethod).sort()).toEqual(
      ROUTES.filter((route) => route.method !== 'QUERY')
        .map((route) => route.method)
        .sort(),
    );
    // API Gateway has no QUERY: each QUERY route is its resource's ANY, to its function, behind the authorizer.
    const queried = resources('AWS::ApiGateway::Method').filter(
      (m) => m.Properties.HttpMethod === 'ANY' && JSON.stringify(m.Properties.Integration).includes('ReplicateCatalog'),
    );
    expect(queried).toHaveLength(queries.length);
    for (const method of queried) expect(method.Properties.AuthorizationType).toBe('CUSTOM');
    const open = methods.filter((method) => method.Properties.AuthorizationType === 'NONE');
    expect(open).toHaveLength(ROUTES.filter(isPublicRoute).length);
    const openHandlers = open.map((method) => JSON.stringify(method.Properties.Integration));
    expect(openHandlers.some((integration) => integration.includes('StreamPrediction'))).toBe(true);
    expect(openHandlers.some((integration) => integration.includes('GetOpenApiDocument'))).toBe(true);
    for (const method of methods.filter((m) => m.Properties.AuthorizationType !== 'NONE')) {
      expect(method.Properties.AuthorizationType).toBe('CUSTOM');
      expect(method.Properties.AuthorizerId).toBeDefined();
    }
    const paths = resources('AWS::ApiGateway::Resource').map((r) => r.Properties.PathPart);
    expect(paths).toEqual(
      expect.arrayContaining(['api', 'v1', 'predictions', '{id}', 'cancel', '{company}', '{model}', '{proxy+}']),
    );
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      IdentitySource: 'method.request.header.Authorization',
      AuthorizerResultTtlInSeconds: 60,
    });
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { EndpointConfiguration: { Types: ['REGIONAL'] } });
  });

  it('streams the create response, so the longest synchronous wait outlasts the 29 s buffered limit and never meets a 504', () => {
    template.hasResourceProperties('AWS::ApiGateway::Method', {
      HttpMethod: 'POST',
      Integration: Match.objectLike({
        ResponseTransferMode: 'STREAM',
        TimeoutInMillis: SYNC_WAIT.integrationTimeoutSeconds * 1000,
      }),
    });
    // The wait (Request-Timeout: 60) < the create function's timeout < the integration's timeout.
    const create = resources('AWS::Lambda::Function').find((fn) => JSON.stringify(fn).includes('create-prediction.ts'));
    expect(create?.Properties.Timeout).toBe(SYNC_WAIT.handlerTimeoutSeconds);
    expect(SYNC_WAIT.maxSeconds + 10).toBeLessThan(SYNC_WAIT.handlerTimeoutSeconds);
    expect(SYNC_WAIT.handlerTimeoutSeconds).toBeLessThan(SYNC_WAIT.integrationTimeoutSeconds);
  });

  it("streams a prediction's events through Lambda response streaming, for as long as a function may run, ending before it must", () => {
    template.hasResourceProperties('AWS::ApiGateway::Method', {
      HttpMethod: 'GET',
      AuthorizationType: 'NONE',
      Integration: Match.objectLike({
        ResponseTransferMode: 'STREAM',
        TimeoutInMillis: EVENT_STREAM.integrationTimeoutSeconds * 1000,
      }),
    });
    const stream = resources('AWS::Lambda::Function').find((fn) => JSON.stringify(fn).includes('stream-prediction.ts'));
    expect(stream?.Properties.Timeout).toBe(EVENT_STREAM.handlerTimeoutSeconds);
    expect(stream?.Properties.MemorySize).toBe(EVENT_STREAM.memoryMiB);
    expect(EVENT_STREAM.handlerTimeoutSeconds).toBeLessThanOrEqual(EVENT_STREAM.integrationTimeoutSeconds);
  });

  it('passes uploads to their handler base64-encoded, and answers a request too large for Lambda in the error shape', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { BinaryMediaTypes: ['multipart/form-data'] });
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'REQUEST_TOO_LARGE',
      StatusCode: '413',
      ResponseTemplates: { 'application/json': Match.stringLikeRegexp('"code":"payload_too_large".*4\\.5 MB') },
    });
  });

  const actionsOf = (entry: string): string[] => {
    const fn = resources('AWS::Lambda::Function').find((f) => JSON.stringify(f).includes(entry));
    const [role] = (fn?.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'];
    return resources('AWS::IAM::Policy')
      .filter((policy) => (policy.Properties.Roles as { Ref?: string }[]).some((attached) => attached.Ref === role))
      .flatMap(
        (policy) => (policy.Properties.PolicyDocument as { Statement: { Action: string | string[] }[] }).Statement,
      )
      .flatMap((statement) => [statement.Action].flat());
  };

  it('lets only the upload handler write files and only the delete handler remove them', () => {
    const s3ActionsOf = (entry: string): string[] => actionsOf(entry).filter((action) => action.startsWith('s3:'));
    expect(s3ActionsOf('upload-file.ts')).toContain('s3:PutObject');
    expect(s3ActionsOf('upload-file.ts')).not.toContain('s3:DeleteObject*');
    expect(s3ActionsOf('delete-file.ts')).toContain('s3:DeleteObject*');
    expect(s3ActionsOf('read-files.ts')).toEqual(['s3:GetObject']);
    expect(s3ActionsOf('read-files.ts')).not.toContain('s3:PutObject');
  });

  it("lets the authorizer update a token's last use, and write nothing else", () => {
    const dynamoActions = actionsOf('authorizer.ts').filter((action) => action.startsWith('dynamodb:'));
    expect(dynamoActions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:UpdateItem']));
    expect(dynamoActions.filter((action) => /Put|Delete|BatchWrite|Transact/.test(action))).toEqual([]);
  });

  it("lets only the deployments routes read and resize the fleets (and the sweeper wake them): ListServices held to the fleets' clusters, UpdateService to their services", () => {
    const fleetActions = (entry: string) => [
      ...new Set(actionsOf(entry).filter((action) => /^(ecs|application-autoscaling):/.test(action))),
    ];
    expect(fleetActions('deployments.ts').sort()).toEqual([
      'application-autoscaling:DescribeScalableTargets',
      'application-autoscaling:RegisterScalableTarget',
      'ecs:DescribeServices',
      'ecs:ListServices',
      'ecs:UpdateService',
    ]);
    // The sweeper sets a sleeping fleet's desired count itself, on each fleet's service by its ARN.
    expect(fleetActions('sweep.ts').sort()).toEqual(['ecs:DescribeServices', 'ecs:UpdateService']);
    const others = resources('AWS::Lambda::Function')
      .map((fn) => /[\w-]+\.ts/.exec(JSON.stringify(fn))?.[0])
      .filter((entry): entry is string => entry !== undefined && !['deployments.ts', 'sweep.ts'].includes(entry));
    expect(others).toEqual(
      expect.arrayContaining(['replicate-catalog.ts', 'create-prediction.ts', 'get-prediction.ts']),
    );
    for (const entry of others) expect(fleetActions(entry), entry).toEqual([]);
    const resizes = resources('AWS::IAM::Policy')
      .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement)
      .filter((statement) => [statement.Action].flat().includes('ecs:UpdateService'))
      .map((statement) => JSON.stringify(statement.Resource))
      .filter((resource) => resource.includes(':service/Prognoz-*/*'));
    expect(resizes).toHaveLength(1);
    const listServices = resources('AWS::IAM::Policy')
      .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement)
      .find((statement) => statement.Action === 'ecs:ListServices');
    expect(JSON.stringify(listServices?.Condition)).toContain(':cluster/Prognoz-*');
  });

  it('builds the OpenAPI document from the code alone: its function reaches no table and no bucket', () => {
    expect(actionsOf('get-openapi.ts').filter((action) => /^(dynamodb|s3):/.test(action))).toEqual([]);
  });

  it('lets API Gateway invoke each function with one permission for the whole API, not two per method (CloudFormation allows 500 resources)', () => {
    const permissions = resources('AWS::Lambda::Permission').filter(
      (p) => p.Properties.Principal === 'apigateway.amazonaws.com',
    );
    const invoked = new Set(permissions.map((p) => JSON.stringify(p.Properties.FunctionName)));
    expect(permissions).toHaveLength(invoked.size);
  });

  it('throttles at the stage as an outer shield', () => {
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: Match.arrayWith([Match.objectLike({ ThrottlingRateLimit: 200, ThrottlingBurstLimit: 400 })]),
    });
  });

  it('answers in the error shape the OpenAPI document promises even where API Gateway answers itself (throttled, a request it refuses, its own 5xx)', () => {
    for (const [type, code] of [
      ['THROTTLED', 'rate_limited'],
      ['DEFAULT_5XX', 'internal_error'],
      ['UNAUTHORIZED', 'missing_token'],
      ['DEFAULT_4XX', 'malformed_request'],
    ] as const) {
      template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: type,
        ResponseTemplates: {
          'application/json': Match.stringLikeRegexp(
            `^\\{"error":\\{"code":"${code}","message":"[^"]+","request_id":"\\$context.requestId"\\}\\}$`,
          ),
        },
      });
    }
  });
});

describe('the functions', () => {
  it('all run on Node ≥ 22, arm64, with their logs kept a month', () => {
    // Ours, not the CDK's own helpers (the reference page's bucket deployment and auto-delete).
    const functions = resources('AWS::Lambda::Function').filter(
      (fn) => (fn as { Metadata?: Record<string, unknown> }).Metadata?.['prognoz:entry'],
    );
    expect(functions.length).toBeGreaterThanOrEqual(7);
    for (const fn of functions) {
      expect(Number(/^nodejs(\d+)\.x$/.exec(String(fn.Properties.Runtime))?.[1])).toBeGreaterThanOrEqual(22);
      expect(fn.Properties.Architectures).toEqual(['arm64']);
    }
    for (const group of resources('AWS::Logs::LogGroup')) expect(group.Properties.RetentionInDays).toBeGreaterThan(0);
  });
});

describe('webhook delivery', () => {
  it('has a queue whose dead-letter queue takes a message after the first attempt and every retry', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: {
        deadLetterTargetArn: Match.anyValue(),
        maxReceiveCount: 1 + RETRY_POLICY.retryDelaysSeconds.length,
      },
    });
    expect(1 + RETRY_POLICY.retryDelaysSeconds.length).toBe(4);
  });

  it('feeds the sender with partial batch failures', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: RETRY_POLICY.batchSize,
    });
  });
});

describe('the table', () => {
  const indexNames = () =>
    (resources('AWS::DynamoDB::GlobalTable')[0]?.Properties.GlobalSecondaryIndexes as { IndexName: string }[]).map(
      (index) => index.IndexName,
    );

  it("indexes an account's predictions, tokens and owners by their keys and model alone: no later write of theirs writes the index", () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      GlobalSecondaryIndexes: Match.arrayWith([
        {
          IndexName: OWNER_INDEX.name,
          KeySchema: [
            { AttributeName: OWNER_INDEX.partition, KeyType: 'HASH' },
            { AttributeName: OWNER_INDEX.sort, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['model'] },
        },
      ]),
    });
    // A new stack has no index of the old shape: it is kept only for an upgrade's first deploy.
    expect(indexNames()).not.toContain(LEGACY_OWNER_INDEX_NAME);
  });

  it("indexes an account's webhook delivery attempts by time, over shards, for its delivery list", () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      GlobalSecondaryIndexes: Match.arrayWith([
        Match.objectLike({
          IndexName: DELIVERY_INDEX.name,
          KeySchema: [
            { AttributeName: DELIVERY_INDEX.partition, KeyType: 'HASH' },
            { AttributeName: DELIVERY_INDEX.sort, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        }),
      ]),
    });
    expect(DELIVERY_SHARDS).toBeGreaterThan(1);
  });
});

describe('the model fleet', () => {
  it('runs the worker and the model server as two containers of one task on EC2 capacity', () => {
    const task = resources('AWS::ECS::TaskDefinition')[0];
    expect(task?.Properties.RequiresCompatibilities).toEqual(['EC2']);
    expect(task?.Properties.NetworkMode).toBe('bridge');
    const names = (task?.Properties.ContainerDefinitions as { Name: string }[]).map((c) => c.Name).sort();
    expect(names).toEqual(['ModelServer', 'Worker']);
    template.hasResourceProperties('AWS::ECS::CapacityProvider', {
      AutoScalingGroupProvider: Match.objectLike({ ManagedScaling: Match.objectLike({ Status: 'ENABLED' }) }),
    });
    template.hasResourceProperties('AWS::ECS::Service', {
      LaunchType: Match.absent(),
      CapacityProviderStrategy: Match.anyValue(),
    });
  });

  it('scales on the queue backlog, from zero', () => {
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', {
      MinCapacity: 0,
      ScalableDimension: 'ecs:service:DesiredCount',
    });
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      PolicyType: 'StepScaling',
      StepScalingPolicyConfiguration: Match.objectLike({ AdjustmentType: 'ExactCapacity' }),
    });
    const backlogAlarms = resources('AWS::CloudWatch::Alarm').filter((alarm) =>
      JSON.stringify(alarm.Properties.Metrics ?? '').includes('ApproximateNumberOfMessagesVisible'),
    );
    expect(backlogAlarms.length).toBeGreaterThanOrEqual(2);
  });
});

describe('alarms', () => {
  it('watch dead letters, failed executions, API 5xx, lost workers and a failing sweeper', () => {
    const alarms = resources('AWS::CloudWatch::Alarm').map((alarm) => JSON.stringify(alarm.Properties));
    for (const metric of [
      'ApproximateNumberOfMessagesVisible',
      'ExecutionsFailed',
      '5XXError',
      WORKERS_LOST.name,
      'Errors',
    ]) {
      expect(
        alarms.some((alarm) => alarm.includes(metric)),
        metric,
      ).toBe(true);
    }
    // Lost workers are counted by model: each model's stack watches its own.
    for (const model of testCatalog.offered)
      expect(
        alarms.filter(
          (alarm) => alarm.includes(`"MetricName":"${WORKERS_LOST.name}"`) && alarm.includes(`"${model.id}"`),
        ),
        model.id,
      ).toHaveLength(1);
  });
});

describe('the dashboard', () => {
  it('shows creates, ends by status, each model’s queue and fleet, webhook dead letters, the API’s 4xx and 5xx, lost workers and webhook attempts', () => {
    const [dashboard] = resources('AWS::CloudWatch::Dashboard');
    const body = JSON.stringify(dashboard?.Properties.DashboardBody);
    for (const metric of [
      'ExecutionsStarted',
      PREDICTIONS_ENDED.name,
      'ApproximateNumberOfMessagesVisible',
      'ApproximateAgeOfOldestMessage',
      'RunningTaskCount',
      '4XXError',
      '5XXError',
      WORKERS_LOST.name,
      WEBHOOK_ATTEMPTS.name,
    ])
      expect(body, metric).toContain(metric);
    for (const model of testCatalog.offered) expect(body, model.id).toContain(model.id);
    // Ends are counted by the code that writes them, not by a filter on a log message
    // (test/infra/operational-metrics.test.ts checks each metric's dimensions and emitter).
    template.resourceCountIs('AWS::Logs::MetricFilter', 0);
  });
});

describe('security', () => {
  it('grants no `*` actions', () => {
    const statements = [
      ...resources('AWS::IAM::Policy').flatMap(
        (p) => (p.Properties.PolicyDocument as { Statement: unknown[] }).Statement,
      ),
      ...resources('AWS::IAM::Role').flatMap((r) =>
        ((r.Properties.Policies ?? []) as { PolicyDocument: { Statement: unknown[] } }[]).flatMap(
          (p) => p.PolicyDocument.Statement,
        ),
      ),
    ] as { Action: string | string[] }[];
    expect(statements.length).toBeGreaterThan(10);
    for (const statement of statements) {
      for (const action of [statement.Action].flat()) expect(action).not.toMatch(/^(\*|[\w-]+:\*)$/);
    }
  });

  it('encrypts data at rest and keeps it when the stack goes', () => {
    template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({ SSESpecification: Match.anyValue() }),
    });
    template.hasResource('AWS::S3::Bucket', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        BucketEncryption: Match.anyValue(),
        PublicAccessBlockConfiguration: Match.anyValue(),
      }),
    });
    for (const queue of resources('AWS::SQS::Queue')) expect(queue.Properties.SqsManagedSseEnabled).toBe(true);
  });

  it('outputs the API URL, the table and the bucket', () => {
    expect(Object.keys(Template.fromStack(stack).findOutputs('*'))).toEqual(
      expect.arrayContaining(['ApiUrl', 'BucketName', 'TableName']),
    );
  });
});
