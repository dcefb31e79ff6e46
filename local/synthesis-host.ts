import type { SynthesisMessage } from './synthesis-process.ts';

// The process synthesis-process.ts starts: synthesizes the CDK app, sends its template, and ends,
// taking the CDK's modules with it.
const send = (message: SynthesisMessage) =>
  new Promise<void>((resolve, reject) =>
    process.send?.(message, (error: Error | null) => (error ? reject(error) : resolve())),
  );

try {
  // Imported here, so that an app that fails as it loads (a catalog it cannot read) says why too.
  const { synthesizeTemplate } = await import('./synthesize.ts');
  await send({ type: 'template', template: synthesizeTemplate() });
} catch (error) {
  process.exitCode = 1;
  await send({
    type: 'failed',
    message: error instanceof Error ? (error.stack ?? error.message) : String(error),
  }).catch(() => undefined);
}
// A runtime that ended meanwhile has closed the channel already: disconnecting again would throw.
if (process.connected) process.disconnect();
