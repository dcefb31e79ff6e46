/**
 * `npm run bench:cost [-- predictions]`: the cost section of the bench alone (bench/cost.ts),
 * against a local runtime of its own. Prints its table and where the DynamoDB units go.
 */
import { startLocalRuntime } from '../local/runtime.ts';
import { createAccount, UNLIMITED_ACCOUNT } from './accounts.ts';
import { AWS_PRICES } from './aws-prices.ts';
import { lambdaFunctions } from './bundles.ts';
import { measureCosts } from './cost.ts';
import { localProcesses } from './local-endpoints.ts';
import { n, table } from './markdown.ts';
import { dynamoUnitsByCall } from './report-dynamo.ts';

const runtime = await startLocalRuntime({ port: 0, log: () => undefined });
try {
  const apiToken = await createAccount(
    { tableName: runtime.tableName, dynamoEndpoint: runtime.dynamoEndpoint },
    UNLIMITED_ACCOUNT,
  );
  const origin = new URL(runtime.apiUrl).origin;
  const echoUrl = (await localProcesses(origin)).find((p) => p.name === 'model:prognoz/echo')?.url;
  if (!echoUrl) throw new Error('the echo model server is not running');
  const memoryByEntry = new Map(lambdaFunctions().map((fn) => [fn.entry, fn.memoryMiB]));
  const scenarios = await measureCosts(
    { target: { apiUrl: runtime.apiUrl, apiToken }, origin },
    echoUrl,
    Number(process.argv[2] ?? 5),
    (entry) => memoryByEntry.get(entry) ?? 512,
    AWS_PRICES,
  );
  console.log(
    table(
      ['scenario', 'DynamoDB calls', 'RRU', 'WRU', 'SQS requests', 'S3 requests', '$ DynamoDB', '$ total / 1,000'],
      scenarios.map((sc) => [
        sc.scenario,
        n(Object.values(sc.perPrediction.dynamoCalls).reduce((a, b) => a + b, 0)),
        n(sc.perPrediction.dynamoReadUnits),
        n(sc.perPrediction.dynamoWriteUnits),
        n(Object.values(sc.perPrediction.sqsRequests).reduce((a, b) => a + b, 0)),
        n(Object.values(sc.perPrediction.s3Requests).reduce((a, b) => a + b, 0)),
        n(sc.dollarsPerThousand.dynamodb),
        n(sc.dollarsPerThousand.total),
      ]),
    ),
  );
  console.log(['', ...dynamoUnitsByCall(scenarios)].join('\n'));
} finally {
  await runtime.stop();
}
