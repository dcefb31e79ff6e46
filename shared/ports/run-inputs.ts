/**
 * A run's file inputs, fetched for the model server before it runs and let go of after (the
 * worker's folder of fetched files, served to the model server: worker/run-inputs.ts).
 */
export interface RunInputs {
  /**
   * The input the model server is given: each file input fetched through the address guard and
   * replaced by the address the model server reads it at, each omitted input that may be null
   * given as null. Rejects with InputFetchFailed, naming the input, when one cannot be fetched.
   */
  prepare(
    predictionId: string,
    input: Readonly<Record<string, unknown>>,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>>;
  /** The run is over: its files are not served any more, and are removed. */
  release(predictionId: string): Promise<void>;
}

/** A file input could not be fetched (or the address guard refused it): the model never ran. */
export class InputFetchFailed extends Error {
  override readonly name = 'InputFetchFailed';
}
