import { CfnOutput, Duration, Fn, Stack, type StackProps } from 'aws-cdk-lib';
import { FlowLogDestination, FlowLogTrafficType, SubnetType, Vpc } from 'aws-cdk-lib/aws-ec2';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import {
  AUTHORIZER_ENTRY,
  EVENT_STREAM,
  entryOf,
  SYNC_WAIT,
  UNMATCHED_ENTRY,
  type HandlerName,
} from '../shared/api/routes.ts';
import { checkModelNames, modelStackIdOf } from '../shared/catalog/resource-names.ts';
import { fleetClusterName } from '../shared/fleet-config.ts';
import type { ModelDefinition } from '../shared/catalog/registry.ts';
import { LambdaIntegration } from 'aws-cdk-lib/aws-apigateway';
import { ApiDocs } from './constructs/api-docs.ts';
import { ConsoleSite, type ConsoleDomain } from './constructs/console-site.ts';
import { AlarmTopic, OperationalAlarms } from './constructs/alarms.ts';
import { OwnerSignIn } from './constructs/owner-sign-in.ts';
import { DataStore } from './constructs/data-store.ts';
import { ModelStack } from './constructs/model-stack.ts';
import { PredictionApi } from './constructs/prediction-api.ts';
import { ServiceDashboard } from './constructs/service-dashboard.ts';
import {
  bindApiFunction,
  bindAuthorizer,
  bindFinalize,
  bindUnconfigured,
  type ApiAccess,
  type ApiResources,
} from './constructs/process-bindings.ts';
import { PrognozFunction } from './constructs/prognoz-function.ts';
import { Sweeper } from './constructs/sweeper.ts';
import { WaiterQueues } from './constructs/waiter-queues.ts';
import { WebhookDelivery } from './constructs/webhook-delivery.ts';
import { WorkflowArns } from './constructs/workflow-arns.ts';

export interface PrognozStackProps extends StackProps {
  /** Minimum warm tasks per model id, overriding the registry (CDK context `prognoz:minWarmTasks`). */
  readonly minWarmTasks?: Readonly<Record<string, number>>;
  /** Who the alarms email (CDK context `prognoz:alarmEmail`). */
  readonly alarmEmail?: string;
  /** Put a WAF web ACL with a per-address rate rule in front of the API (CDK context `prognoz:waf`). */
  readonly waf?: boolean;
  /** The console at a domain of its own, with TLS 1.2 at least (CDK context `prognoz:consoleDomain` and `prognoz:consoleCertificateArn`). */
  readonly consoleDomain?: ConsoleDomain;
  /** Keep the owner index of stacks deployed before it held keys alone: the first of an upgrade's two deploys (CDK context `prognoz:keepLegacyOwnerIndex`). */
  readonly keepLegacyOwnerIndex?: boolean;
  /** The models to serve: the catalog's offered ones (the manifest, and a local run's `--model` folders; infra/app.ts). */
  readonly models: readonly ModelDefinition[];
}

/** What most routes do with the API's resources: read and write the table, read stored objects. */
const DATA: ApiAccess = { data: true };

/** Composes the constructs of the request path and the data (architecture: Request path, Data); no logic of its own. */
export class PrognozStack extends Stack {
  /**
   * The network's two zones, as CloudFormation names them when it deploys: in a concrete
   * environment (the CDK CLI always gives one) the CDK would look them up in the account while
   * synthesizing, which needs the deployer's credentials before anything is deployed and makes the
   * template depend on a cache file (cdk.context.json).
   */
  override get availabilityZones(): string[] {
    return [0, 1].map((index) => Fn.select(index, Fn.getAzs()));
  }

  constructor(scope: Construct, id: string, props: PrognozStackProps) {
    super(scope, id, props);
    const data = new DataStore(this, 'Data', { keepLegacyOwnerIndex: props.keepLegacyOwnerIndex === true });
    const { table, bucket } = data;
    const webhooks = new WebhookDelivery(this, 'Webhooks', { table, bucket });
    const waiterQueues = new WaiterQueues(this);

    const finalize = new PrognozFunction(this, 'Finalize', {
      entry: 'functions/workflow/finalize.ts',
      timeout: Duration.seconds(20),
    }).fn;
    bindFinalize(finalize, { table, webhookQueue: webhooks.queue, waiterQueues });

    // Public subnets and no NAT gateway: model instances reach AWS APIs and file inputs directly,
    // accept no inbound traffic, and nothing costs money while the fleet is scaled to zero.
    const vpc = new Vpc(this, 'Network', {
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [{ name: 'public', subnetType: SubnetType.PUBLIC }],
    });
    // What the firewall refused, for an investigation: rejected traffic only (cheap), kept 90 days.
    vpc.addFlowLog('RejectedTraffic', {
      trafficType: FlowLogTrafficType.REJECT,
      destination: FlowLogDestination.toCloudWatchLogs(
        new LogGroup(this, 'RejectedTraffic', { retention: RetentionDays.THREE_MONTHS }),
      ),
    });
    const alarmTopic = new AlarmTopic(this, 'AlarmTopic', {
      ...(props.alarmEmail === undefined ? {} : { email: props.alarmEmail }),
    }).topic;

    const workflowArns = new WorkflowArns(this);
    const models = new Map<string, ModelStack>();
    const served = props.models;
    checkModelNames(
      this.stackName,
      served.map((model) => model.id),
    );
    for (const model of served) {
      const minWarmTasks = props.minWarmTasks?.[model.id];
      models.set(
        model.id,
        new ModelStack(this, modelStackIdOf(model.id), {
          model,
          vpc,
          table,
          bucket,
          webhookQueue: webhooks.queue,
          waiterQueues,
          finalize,
          alarmTopic,
          clusterName: fleetClusterName(this.stackName, model),
          stateMachineName: workflowArns.nameOf(model),
          ...(minWarmTasks === undefined ? {} : { minWarmTasks }),
        }),
      );
    }
    const deadJobQueues = [...models.values()].map((stack) => stack.queue.deadLetterQueue);

    const sweeper = new Sweeper(this, 'Sweeper', {
      table,
      webhookQueue: webhooks.queue,
      workflows: workflowArns,
      waiterQueues,
      deadJobQueues,
      fleets: [...models].map(([modelId, stack]) => ({
        modelId,
        queue: stack.queue.queue,
        cluster: stack.fleet.cluster,
        service: stack.fleet.service,
      })),
    });
    const apiResources: ApiResources = {
      table,
      bucket,
      webhookQueue: webhooks.queue,
      workflows: workflowArns,
      waiterQueues,
    };
    // Every authenticated route counts its requests (rate limits) and may keep a request for
    // diagnostics, so each writes to the table; none reaches beyond it unless told here.
    const routeFunction = (
      name: HandlerName,
      id: string,
      access: ApiAccess = DATA,
      timeout = Duration.seconds(10),
      memorySize?: number,
    ) => {
      const fn = new PrognozFunction(this, id, {
        entry: entryOf(name),
        timeout,
        ...(memorySize === undefined ? {} : { memorySize }),
      }).fn;
      bindApiFunction(fn, apiResources, access);
      return fn;
    };
    const handlers: Record<HandlerName, ReturnType<typeof routeFunction>> = {
      // Sync waits last up to SYNC_WAIT.maxSeconds (Request-Timeout), plus the time to create.
      // A repeated create's start finds the existing execution and asks whether it still runs.
      'create-prediction': routeFunction(
        'create-prediction',
        'CreatePrediction',
        {
          ...DATA,
          keepsInputs: true,
          startsWorkflows: true,
          waitsForEndings: true,
          executionActions: ['states:DescribeExecution'],
        },
        Duration.seconds(SYNC_WAIT.handlerTimeoutSeconds),
      ),
      'get-prediction': routeFunction('get-prediction', 'GetPrediction'),
      'cancel-prediction': routeFunction('cancel-prediction', 'CancelPrediction', {
        ...DATA,
        sendsWebhooks: true,
        endsPredictions: true,
        executionActions: ['states:StopExecution'],
      }),
      'get-model': routeFunction('get-model', 'GetModel'),
      'list-models': routeFunction('list-models', 'ListModels'),
      // Replicate's catalog objects (models, versions, hardware, READMEs, examples, collections, search): one function.
      'replicate-catalog': routeFunction('replicate-catalog', 'ReplicateCatalog'),
      deployments: routeFunction('deployments', 'Deployments', { ...DATA, readsFleets: true, resizesFleets: true }),
      // The account and its tokens: two functions for five routes (the main stack's resources are counted).
      account: routeFunction('account', 'Account'),
      'account-tokens': routeFunction('account-tokens', 'AccountTokens'),
      'list-webhook-deliveries': routeFunction('list-webhook-deliveries', 'ListWebhookDeliveries'),
      'redeliver-webhook': routeFunction('redeliver-webhook', 'RedeliverWebhook', { ...DATA, sendsWebhooks: true }),
      'get-webhook-secret': routeFunction('get-webhook-secret', 'GetWebhookSecret'),
      'rotate-webhook-secret': routeFunction('rotate-webhook-secret', 'RotateWebhookSecret'),
      'list-account-deliveries': routeFunction('list-account-deliveries', 'ListAccountDeliveries'),
      'list-predictions': routeFunction('list-predictions', 'ListPredictions'),
      // A stream lasts as long as its prediction runs, up to Lambda's 15 minutes; clients reconnect.
      // A stream mostly waits between reads, billed by the second for as long as its prediction runs: little memory.
      'stream-prediction': routeFunction(
        'stream-prediction',
        'StreamPrediction',
        DATA,
        Duration.seconds(EVENT_STREAM.handlerTimeoutSeconds),
        EVENT_STREAM.memoryMiB,
      ),
      // An output file is streamed from the bucket: 100 MiB at a slow caller's pace takes a while.
      'get-output-file': routeFunction('get-output-file', 'GetOutputFile', DATA, Duration.seconds(300)),
      // Uploads write their bytes; a delete removes them. Every handler reads (and presigns) already.
      'upload-file': routeFunction('upload-file', 'UploadFile', { ...DATA, putsObjects: true }, Duration.seconds(60)),
      // A file's bytes are streamed from the bucket, as an output file's are: 100 MiB at a slow caller's pace.
      'read-files': routeFunction('read-files', 'ReadFiles', DATA, Duration.seconds(300)),
      'delete-file': routeFunction('delete-file', 'DeleteFile', { ...DATA, deletesObjects: true }),
      // The OpenAPI document is built from the code alone: its function reaches no data.
      'get-openapi': routeFunction('get-openapi', 'GetOpenApiDocument', {}),
    };
    const owners = new OwnerSignIn(this, 'OwnerSignIn');
    const authorizer = new PrognozFunction(this, 'Authorizer', { entry: AUTHORIZER_ENTRY }).fn;
    bindAuthorizer(authorizer, { table, owners });
    const unmatched = new PrognozFunction(this, 'UnmatchedRoute', { entry: UNMATCHED_ENTRY }).fn;
    bindUnconfigured(unmatched);

    const { api } = new PredictionApi(this, 'Api', { handlers, authorizer, unmatched, waf: props.waf ?? false });
    new ApiDocs(this, 'ApiDocs', {
      api,
      unmatched: new LambdaIntegration(unmatched, { scopePermissionToMethod: false }),
      accessLogs: data.accessLogs,
    });
    const site = new ConsoleSite(this, 'Console', {
      api,
      signInClient: owners.client,
      accessLogs: data.accessLogs,
      ...(props.consoleDomain === undefined ? {} : { customDomain: props.consoleDomain }),
    });
    new OperationalAlarms(this, 'Alarms', {
      topic: alarmTopic,
      webhookDeadLetters: webhooks.deadLetterQueue,
      sweeper: sweeper.fn.fn,
      api,
    });
    new ServiceDashboard(this, 'Dashboard', {
      models: [...models].map(([id, stack]) => ({
        id,
        queue: stack.queue.queue,
        stateMachine: stack.workflow.stateMachine,
        service: stack.fleet.service,
        clusterName: stack.fleet.cluster.clusterName,
      })),
      api,
      webhookDeadLetters: webhooks.deadLetterQueue,
    });

    new CfnOutput(this, 'ApiUrl', { value: `${api.url}api/v1/`, description: 'Base URL of the prediction API' });
    new CfnOutput(this, 'DocsUrl', {
      value: `${api.url}docs`,
      description: 'The API reference page (its document: ApiUrl + openapi.json)',
    });
    new CfnOutput(this, 'OwnerUserPoolId', {
      value: owners.userPool.userPoolId,
      description: "The account owners' user pool (the console signs in here)",
    });
    new CfnOutput(this, 'ConsoleClientId', { value: owners.client.userPoolClientId });
    new CfnOutput(this, 'ConsoleUrl', {
      value: site.url,
      description: 'The web console (sign in as an account owner)',
    });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'BucketName', { value: bucket.bucketName });
  }
}
