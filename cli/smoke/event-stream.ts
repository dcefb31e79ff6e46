/** One server-sent event (the text/event-stream format), with when it arrived. */
export interface ServerEvent {
  readonly event: string;
  readonly id: string;
  readonly data: string;
  /** Milliseconds from opening the stream to this event. */
  readonly atMs: number;
}

export interface ReadStream {
  readonly status: number;
  readonly contentType: string | null;
  readonly events: readonly ServerEvent[];
  /** The body when the answer is not an event stream (an error, as JSON). */
  readonly body: string | null;
}

/** An event block's fields; lines starting `:` are comments (keep-alives), and `data` lines join. */
const parseBlock = (block: string, atMs: number): ServerEvent | null => {
  const fields = { event: '', id: '', data: [] as string[] };
  for (const line of block.split(/\r?\n/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const name = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (name === 'event') fields.event = value;
    else if (name === 'id') fields.id = value;
    else if (name === 'data') fields.data.push(value);
  }
  if (fields.event === '' && fields.data.length === 0) return null;
  return { event: fields.event || 'message', id: fields.id, data: fields.data.join('\n'), atMs };
};

/**
 * Reads an event stream as it comes, until the event `last` (the stream's end: prognoz's `done`),
 * the server closing it, or `signal`.
 */
export const readEventStream = async (url: string, last: string, signal: AbortSignal): Promise<ReadStream> => {
  const started = performance.now();
  const response = await fetch(url, { headers: { accept: 'text/event-stream' }, signal });
  const contentType = response.headers.get('content-type');
  if (!response.ok || !contentType?.startsWith('text/event-stream') || !response.body)
    return { status: response.status, contentType, events: [], body: await response.text() };
  const events: ServerEvent[] = [];
  const decoder = new TextDecoder();
  let buffered = '';
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffered += decoder.decode(value, { stream: true });
      const blocks = buffered.split(/\r?\n\r?\n/);
      buffered = blocks.pop() ?? '';
      for (const block of blocks) {
        const event = parseBlock(block, performance.now() - started);
        if (event) events.push(event);
        if (event?.event === last) return { status: response.status, contentType, events, body: null };
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return { status: response.status, contentType, events, body: null };
};
