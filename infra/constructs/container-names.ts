/**
 * Names the fleet's task definition gives its containers, apart from the construct so that the
 * local runtime, which reads them in the synthesized template, need not load the CDK.
 */
/** The worker's container in its model's task (the local runtime reads its environment there). */
export const WORKER_CONTAINER = 'Worker';
