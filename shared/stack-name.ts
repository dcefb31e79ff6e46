/**
 * The name of the CloudFormation stack `cdk deploy` makes, and the prefix of every AWS name the
 * stack derives from a model id (shared/catalog/resource-names.ts): the local runtime checks ids
 * against it at start, as the synthesis does.
 */
export const STACK_NAME = 'Prognoz';
