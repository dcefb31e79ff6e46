import { lazySdk } from './lazy-sdk.ts';

/**
 * The S3 SDK, loaded at its first use: of the clients the functions use it takes the longest to
 * load (bench §4), and most of their requests never reach S3 (a small output is kept in the
 * prediction's item, and most routes have no files).
 */
const s3Sdk = lazySdk(
  () => import('@aws-sdk/client-s3'),
  // An emulator on one host and port (the local runtime's) is addressed by path, not by bucket host name.
  ({ S3Client }) => new S3Client({ forcePathStyle: process.env.PROGNOZ_S3_PATH_STYLE === 'true' }),
);

/** The process's S3 client. */
export const s3 = s3Sdk.client;
export const s3Or = s3Sdk.clientOr;
export const s3SdkAndClient = s3Sdk.sdkAndClient;
