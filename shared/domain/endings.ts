/**
 * The errors a prediction ends with when the service, not the model, ends it: one wording for
 * each way, shared by the worker, Finalize, the sweeper and the tests that look for them.
 */
/** How each kind of ending begins, so that a reader (a dashboard, the chaos run) can tell them apart. */
export const ENDING_KINDS = {
  noCapacity: 'no capacity was found in time',
  lostNotResumed: 'no worker took this prediction up again',
  workerLost: 'the worker running this prediction was lost',
} as const;

export const ENDINGS = {
  noCapacity: (queueSeconds: number): string =>
    `${ENDING_KINDS.noCapacity}: the prediction waited ${queueSeconds} s in its model's queue (the model's queue limit) and no worker took it up`,
  workerLost: (attempts: number): string =>
    `${ENDING_KINDS.workerLost} ${attempts === 1 ? 'once' : `${attempts} times`} (it stopped, or its model server did); it was not run again`,
  lostNotResumed: (queueSeconds: number): string =>
    `${ENDING_KINDS.lostNotResumed} within ${queueSeconds} s after the worker running it was lost`,
  runTimeout: (runSeconds: number): string =>
    `the prediction did not finish within ${runSeconds} s, the time this model allows a run`,
  notStarted: 'the service could not start this prediction; please retry',
  workflowEnded: (status: string): string =>
    `the service lost track of this prediction: its workflow ended (${status}) before the prediction did`,
  deadJob: (receives: number): string =>
    `the job of this prediction was taken up ${receives} times and never finished; it was not run again`,
  outputTooLarge: (bytes: number, limit: number): string =>
    `the model's output is ${bytes} bytes of JSON, over the ${limit}-byte limit of a prediction's output; write large results to files the output links to`,
  outputFilesTooLarge: (bytes: number, limit: number): string =>
    `the model returned ${bytes} bytes of files, over the ${limit}-byte limit of a prediction's files`,
  outputInvalid: (reason: string): string => `the model returned output that does not match its schema: ${reason}`,
  modelStoppedItself: 'the model stopped this prediction on its own',
  restart: 'the local runtime stopped while this prediction was running; it was not finished',
  withdrawn: (model: string): string =>
    `model ${model} is no longer offered: this deployment (or local run) serves it no more, so the prediction was not finished`,
  setupFailed: (reason: string): string => `the model could not start (its setup failed): ${reason}`,
  deadline: (deadlineAt: string): string =>
    `the prediction's deadline (Cancel-After) passed at ${deadlineAt} before it finished`,
} as const;

/** Output sizes (JSON bytes): inline in the prediction item up to the first, in the outputs bucket up to the second. */
export const OUTPUT_LIMITS = {
  inlineBytes: 48 * 1024,
  // A GET answers with the output inside a Lambda response (6 MB buffered): room is kept for the rest.
  maxBytes: 5 * 1024 * 1024,
  /** The files a prediction returns (`cog.Path`), all together: each is kept in the outputs bucket and linked. */
  fileBytes: 100 * 1024 * 1024,
} as const;
