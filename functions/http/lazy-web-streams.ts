/**
 * What middy's streaming mode imports from `node:stream/web`, put in that module's place in a
 * Lambda's bundle (LAMBDA_BUNDLING.alias). middy asks of an answer's body only whether it is a web
 * ReadableStream, and only once it has found it is neither text nor a Node stream, which every
 * answer of prognoz is. The class asked about is the global one, which Node loads at its first
 * use: a streaming route's cold start no longer loads the web streams (about 3 ms after the SDK's
 * floor, bench §4), and a web stream answered would still be told apart as before.
 */
export const ReadableStream = {
  [Symbol.hasInstance]: (value: unknown): boolean => value instanceof globalThis.ReadableStream,
};
