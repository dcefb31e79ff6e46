/**
 * AWS list prices the cost model uses: on-demand, US East (N. Virginia), first pricing tier, no
 * free tier, checked November 2026. The one place to change when AWS changes them.
 */
export const AWS_PRICES = {
  region: 'us-east-1',
  checked: '2026-11',
  currency: 'USD',
  /** API Gateway REST API, per million requests (first 333 million a month). */
  apiGatewayRestPerMillionRequests: 3.5,
  /** Lambda, per million requests. */
  lambdaPerMillionRequests: 0.2,
  /** Lambda on arm64 (Graviton), per GB-second of billed duration (first 6 billion GB-s). */
  lambdaArmPerGbSecond: 0.0000133334,
  /** Step Functions Standard workflows, per 1,000 state transitions. */
  stepFunctionsPerThousandTransitions: 0.025,
  /** DynamoDB on-demand, per million write request units (1 KB each; transactional ones count 2). */
  dynamoPerMillionWriteUnits: 0.625,
  /** DynamoDB on-demand, per million read request units (4 KB strongly consistent, or 2 eventually). */
  dynamoPerMillionReadUnits: 0.125,
  /** SQS standard queues, per million requests (each 64 KB of payload is one request). */
  sqsPerMillionRequests: 0.4,
  /** S3 Standard, per 1,000 PUT, COPY, POST or LIST requests (large outputs are written once). */
  s3PerThousandPuts: 0.005,
  /** S3 Standard, per 1,000 GET requests (a large output is read by every GET and webhook of it). */
  s3PerThousandGets: 0.0004,
} as const;

export type AwsPrices = typeof AWS_PRICES;
