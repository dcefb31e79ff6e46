import { lazySdk } from './lazy-sdk.ts';

/** The Step Functions SDK, loaded at its first use: most of the functions' requests never start or end an execution (bench §4). */
const sfnSdk = lazySdk(
  () => import('@aws-sdk/client-sfn'),
  ({ SFNClient }) => new SFNClient({}),
);

export const sfnSdkAndClient = sfnSdk.sdkAndClient;
