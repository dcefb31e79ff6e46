import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { App, Stack } from 'aws-cdk-lib';
import { startFauxqs } from 'fauxqs';
import { DataStore } from '../../infra/constructs/data-store.ts';
import type { CfnResource, CfnTemplate } from '../../local/cfn-template.ts';
import { startDynamoDbLocal } from '../../local/dynamodb-local.ts';
import { LOCAL_REGION, localStateMachineArn } from '../../local/paths.ts';
import { provisionBuckets, provisionTables } from '../../local/provision.ts';
import { LocalStepFunctions } from '../../local/stepfunctions/service.ts';
import { resourcesOfType } from '../../local/template.ts';

/**
 * The emulators the local runtime runs AWS's services with, for the adapters' contract tests:
 * DynamoDB Local, fauxqs (SQS and S3), and the local Step Functions endpoint. Tables and buckets
 * are made from the DataStore construct's own template by the local runtime's provisioning, so
 * the schema is written once.
 */
export interface EmulatedAws {
  readonly dynamo: DynamoDBDocumentClient;
  readonly s3: S3Client;
  readonly sqs: SQSClient;
  readonly sfn: SFNClient;
  /** The outputs bucket (DataStore's), in the S3 emulator. */
  readonly outputBucket: string;
  /** A state machine whose executions run until stopped. */
  readonly stateMachineArn: string;
  /** A new, empty table with the DataStore table's keys and indexes: a test sees only its own items. */
  readonly freshTable: () => Promise<string>;
  /** The DataStore table's resource as the template declares it. */
  readonly tableResource: CfnResource;
  /** Provisions `resource` as table `name`, as the local runtime does: made, or brought to its indexes when kept. */
  readonly provisionTable: (name: string, resource: CfnResource) => Promise<void>;
  /** A new, empty queue. */
  readonly freshQueue: () => Promise<string>;
  readonly stop: () => Promise<void>;
}

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

/** The single table's resource, as the stack synthesizes it. */
const dataStoreTemplate = (): CfnTemplate => {
  const app = new App();
  const stack = new Stack(app, 'ContractData');
  new DataStore(stack, 'Data', { retain: false });
  return app.synth().getStackArtifact(stack.artifactId).template as CfnTemplate;
};

export const startEmulatedAws = async (): Promise<EmulatedAws> => {
  const template = dataStoreTemplate();
  const [tableEntry] = resourcesOfType(template, 'AWS::DynamoDB::GlobalTable');
  if (!tableEntry) throw new Error('the DataStore construct declares no table');
  const [, tableResource] = tableEntry;
  const cleanups: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };
  try {
    const dynamoLocal = await startDynamoDbLocal({});
    cleanups.push(() => dynamoLocal.stop());
    const fauxqs = await startFauxqs({ port: 0, logger: false, defaultRegion: LOCAL_REGION });
    cleanups.push(() => fauxqs.stop());
    const dynamoClient = new DynamoDBClient({ endpoint: dynamoLocal.endpoint, region: LOCAL_REGION, credentials });
    const s3 = new S3Client({ endpoint: fauxqs.address, region: LOCAL_REGION, credentials, forcePathStyle: true });
    const sqs = new SQSClient({
      endpoint: fauxqs.address,
      region: LOCAL_REGION,
      credentials,
      useQueueUrlAsEndpoint: false,
    });
    const buckets = await provisionBuckets(template, s3);
    const outputBucket = [...buckets.entries()].find(([logicalId]) => logicalId.startsWith('DataOutputs'))?.[1];
    if (!outputBucket) throw new Error('the DataStore construct declares no outputs bucket');
    const stateMachineArn = localStateMachineArn('ContractWorkflow');
    const stepFunctions = new LocalStepFunctions(
      [
        {
          arn: stateMachineArn,
          definition: { StartAt: 'Run', States: { Run: { Type: 'Wait', Seconds: 86_400, End: true } } },
        },
      ],
      { dynamodb: dynamoClient, sqs, functions: new Map() },
    );
    const sfnEndpoint = await stepFunctions.listen();
    cleanups.push(() => stepFunctions.close());
    let made = 0;
    return {
      dynamo: DynamoDBDocumentClient.from(dynamoClient, {
        marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
      }),
      s3,
      sqs,
      sfn: new SFNClient({ endpoint: sfnEndpoint, region: LOCAL_REGION, credentials }),
      outputBucket,
      stateMachineArn,
      async freshTable() {
        const name = `Contract${++made}`;
        await provisionTables({ Resources: { [name]: tableResource } }, dynamoClient);
        return name;
      },
      tableResource,
      async provisionTable(name, resource) {
        await provisionTables({ Resources: { [name]: resource } }, dynamoClient);
      },
      async freshQueue() {
        const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `contract-${++made}` }));
        if (!QueueUrl) throw new Error('the SQS emulator gave no queue URL');
        return QueueUrl;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
};
