import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { MODELS } from '../shared/models/registry.ts';
import { resourceNameOf } from '../shared/models/definition.ts';
import { AUTHORIZER_ENTRY, ROUTES, UNMATCHED_ENTRY, type HandlerName } from '../shared/api/routes.ts';
import { DataStore } from './constructs/data-store.ts';
import { ModelQueue } from './constructs/model-queue.ts';
import { PredictionApi } from './constructs/prediction-api.ts';
import { PredictionWorkflow } from './constructs/prediction-workflow.ts';
import { PrognozFunction } from './constructs/prognoz-function.ts';

/** Composes the constructs of DESIGN §2–§3; no logic of its own. */
export class PrognozStack extends Stack {
  public readonly workflows: ReadonlyMap<string, PredictionWorkflow>;

  constructor(scope: Construct, id: string, props: StackProps = {}) {
    super(scope, id, props);
    const { table } = new DataStore(this, 'Data');
    const tableEnv = { PROGNOZ_TABLE_NAME: table.tableName };

    const finalize = new PrognozFunction(this, 'Finalize', {
      entry: 'functions/workflow/finalize.ts',
      environment: tableEnv,
      timeout: Duration.seconds(20),
    }).fn;
    table.grantReadWriteData(finalize);

    const workflows = new Map<string, PredictionWorkflow>();
    for (const model of MODELS) {
      const name = resourceNameOf(model).replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase());
      const { queue } = new ModelQueue(this, `${name}Queue`, { model });
      workflows.set(model.id, new PredictionWorkflow(this, `${name}Workflow`, { model, table, queue, finalize }));
    }
    this.workflows = workflows;

    const apiEnv = {
      ...tableEnv,
      PROGNOZ_STATE_MACHINES: this.toJsonString(
        Object.fromEntries([...workflows].map(([model, workflow]) => [model, workflow.stateMachine.stateMachineArn])),
      ),
    };
    const routeFunction = (name: HandlerName, id: string, timeout = Duration.seconds(10)) => {
      const route = ROUTES.find((candidate) => candidate.handler === name);
      if (!route) throw new Error(`no route is handled by ${name}`);
      return new PrognozFunction(this, id, { entry: route.entry, environment: apiEnv, timeout }).fn;
    };
    const handlers: Record<HandlerName, ReturnType<typeof routeFunction>> = {
      // Sync waits last up to 30 s (DESIGN §6), plus the time to create.
      'create-prediction': routeFunction('create-prediction', 'CreatePrediction', Duration.seconds(35)),
      'get-prediction': routeFunction('get-prediction', 'GetPrediction'),
      'cancel-prediction': routeFunction('cancel-prediction', 'CancelPrediction'),
    };
    table.grantReadWriteData(handlers['create-prediction']);
    table.grantReadData(handlers['get-prediction']);
    table.grantReadWriteData(handlers['cancel-prediction']);
    for (const workflow of workflows.values()) {
      workflow.stateMachine.grantStartExecution(handlers['create-prediction']);
      workflow.stateMachine.grantExecution(handlers['cancel-prediction'], 'states:StopExecution');
    }
    const authorizer = new PrognozFunction(this, 'Authorizer', { entry: AUTHORIZER_ENTRY, environment: tableEnv }).fn;
    table.grantReadData(authorizer);
    const unmatched = new PrognozFunction(this, 'UnmatchedRoute', { entry: UNMATCHED_ENTRY }).fn;

    const { api } = new PredictionApi(this, 'Api', { handlers, authorizer, unmatched });

    new CfnOutput(this, 'ApiUrl', { value: `${api.url}api/v1/` });
    new CfnOutput(this, 'TableName', { value: table.tableName });
  }
}
