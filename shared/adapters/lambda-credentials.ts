/**
 * What a Lambda bundle's SDK clients get in place of `@aws-sdk/credential-provider-node` (the
 * bundle aliases it: LAMBDA_BUNDLING in infra/constructs/prognoz-function.ts). Lambda gives a
 * function its role's credentials in the environment, so the default chain's other providers —
 * SSO, INI files, processes, web identity, the container and instance endpoints — and the clients
 * they load would only add to every cold start (bench §4). The worker, the local runtime and the
 * CLI are not bundled this way: they keep the whole chain.
 */
export { fromEnv as defaultProvider } from '@aws-sdk/credential-provider-env';
