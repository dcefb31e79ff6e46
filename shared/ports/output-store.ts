/** Where outputs too large for the prediction item are kept (DESIGN §3: the outputs bucket). */
export interface OutputStore {
  /** Stores one attempt's output (JSON text) and returns its key. */
  put(predictionId: string, claim: string, json: string): Promise<string>;
  /** The JSON text stored under `key`. */
  get(key: string): Promise<string>;
}
