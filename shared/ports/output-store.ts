/** Where outputs too large for the prediction item, and the files a model returns, are kept (architecture: Data). */
export interface OutputStore {
  /** Stores one attempt's output (JSON text) and returns its key. */
  put(predictionId: string, claim: string, json: string): Promise<string>;
  /** The JSON text stored under `key`. */
  get(key: string): Promise<string>;
  /** Stores the `index`th file one attempt returned, with its content type, and returns its key. */
  putFile(predictionId: string, claim: string, index: number, file: OutputFile): Promise<string>;
  /** The file under `key` (the bytes of `range`, an HTTP Range header, when given); null when there is none. */
  openFile(key: string, range?: string): Promise<OpenedFile | null>;
}

/** What the functions that only read outputs need (the API, the webhook sender): the worker alone writes them. */
export type OutputReader = Pick<OutputStore, 'get' | 'openFile'>;

export interface OutputFile {
  readonly contentType: string;
  readonly bytes: Uint8Array;
}

export interface OpenedFile {
  readonly body: NodeJS.ReadableStream;
  readonly contentType: string;
  readonly contentLength: number;
  readonly etag: string | null;
  /** `bytes start-end/size` when a range was asked for and served. */
  readonly contentRange: string | null;
}

/** Every key of a prediction's outputs begins with this: a reference to a file is honoured only under it. */
export const predictionOutputsPrefix = (predictionId: string): string => `outputs/${predictionId}/`;

/** Where the file `name` an attempt (`claim`) returned is kept; its URL names the same two parts. */
export const outputFileKey = (predictionId: string, claim: string, name: string): string =>
  `${predictionOutputsPrefix(predictionId)}${claim}/${name}`;
