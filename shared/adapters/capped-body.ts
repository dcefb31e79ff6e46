import type { IncomingMessage } from 'node:http';

/**
 * Collects a request's body, keeping at most `maxBytes` of it: what comes past the limit is
 * counted, not kept. `done` gets what was kept, and whether the body was longer, once it ends.
 */
export const collectCappedBody = (
  req: IncomingMessage,
  maxBytes: number,
  done: (body: Buffer, tooLarge: boolean) => void,
): void => {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= maxBytes) chunks.push(chunk);
  });
  req.on('end', () => done(Buffer.concat(chunks), size > maxBytes));
};
