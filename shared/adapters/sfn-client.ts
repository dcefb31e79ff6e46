import type { SFNClient } from '@aws-sdk/client-sfn';

/**
 * The Step Functions SDK, imported at its first use rather than at a function's cold start, as
 * S3's is (s3-client.ts): most of the functions' requests never start or end an execution (bench §4).
 */
const sfnSdk = () => import('@aws-sdk/client-sfn');

let sfnClient: Promise<SFNClient> | undefined;

/** The process's Step Functions client, with its production defaults; its endpoint comes from `AWS_ENDPOINT_URL_SFN` (aws-clients.ts). */
export const stepFunctions = (): Promise<SFNClient> =>
  (sfnClient ??= sfnSdk().then(({ SFNClient }) => new SFNClient({})));

/** `given` (a test's, an emulator's), or else the process's own client. */
const sfnOr = (given: SFNClient | undefined) => (): Promise<SFNClient> =>
  given === undefined ? stepFunctions() : Promise.resolve(given);

/**
 * What an adapter calls before each request: the SDK's module (its commands) and `given` or else
 * the process's own client, both loaded at the first call and kept.
 */
export const sfnSdkAndClient = (given?: SFNClient) => {
  const client = sfnOr(given);
  return () => Promise.all([sfnSdk(), client()]);
};
