import { lazySdk } from './lazy-sdk.ts';

/** How the process's S3 client is made, beyond the SDK's defaults. */
export interface S3Settings {
  /** Buckets are addressed by path, not by host name: an emulator on one host and port (the local runtime's). */
  readonly forcePathStyle: boolean;
}

let settings: S3Settings = { forcePathStyle: false };
let made = false;

/**
 * Sets how the process's S3 client is made: for its composition root, from its configuration,
 * before the client's first use: the one client serves the whole process, and once it is made
 * only the same settings may be given again.
 */
export const configureS3 = (given: S3Settings): void => {
  if (made && given.forcePathStyle !== settings.forcePathStyle)
    throw new Error('the S3 client is configured otherwise after it was made: configure it where the process starts');
  settings = given;
};

/**
 * The S3 SDK, loaded at its first use: of the clients the functions use it takes the longest to
 * load (bench §4), and most of their requests never reach S3 (a small output is kept in the
 * prediction's item, and most routes have no files).
 */
const s3Sdk = lazySdk(
  () => import('@aws-sdk/client-s3'),
  ({ S3Client }) => {
    made = true;
    return new S3Client({ forcePathStyle: settings.forcePathStyle });
  },
);

/** The process's S3 client. */
export const s3 = s3Sdk.client;
export const s3Or = s3Sdk.clientOr;
export const s3SdkAndClient = s3Sdk.sdkAndClient;
