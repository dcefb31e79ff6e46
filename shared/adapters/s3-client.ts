import type { S3Client } from '@aws-sdk/client-s3';

/**
 * The S3 SDK, imported at its first use rather than at a function's cold start: of the clients
 * the functions use it takes the longest to load (bench §4), and most of their requests never
 * reach S3 (a small output is kept in the prediction's item, and most routes have no files).
 */
const s3Sdk = () => import('@aws-sdk/client-s3');

let s3Client: Promise<S3Client> | undefined;

/**
 * The process's S3 client, with its production defaults; its endpoint comes from
 * `AWS_ENDPOINT_URL_S3`, as the other clients' do (aws-clients.ts).
 */
export const s3 = (): Promise<S3Client> =>
  (s3Client ??= s3Sdk().then(
    // An emulator on one host and port (the local runtime's) is addressed by path, not by bucket host name.
    ({ S3Client }) => new S3Client({ forcePathStyle: process.env.PROGNOZ_S3_PATH_STYLE === 'true' }),
  ));

/** `given` (a test's, an emulator's), or else the process's own client. */
export const s3Or = (given: S3Client | undefined) => (): Promise<S3Client> =>
  given === undefined ? s3() : Promise.resolve(given);

/**
 * What an adapter calls before each request: the SDK's module (its commands) and `given` or else
 * the process's own client, both loaded at the first call and kept.
 */
export const s3SdkAndClient = (given?: S3Client) => {
  const client = s3Or(given);
  return () => Promise.all([s3Sdk(), client()]);
};
