export interface StreamedEvent {
  readonly event: string;
  readonly id: string;
  readonly data: string;
}

/** Reads a server-sent event stream to its end, as a client of `urls.stream` does. */
export const readStream = async (
  url: string,
): Promise<{ status: number; contentType: string | null; events: StreamedEvent[] }> => {
  const response = await fetch(url, { headers: { accept: 'text/event-stream' } });
  const text = await response.text();
  const events = text
    .split('\n\n')
    .filter((block) => block.trim() !== '' && !block.startsWith(':'))
    .map((block) => {
      const lines = block.split('\n');
      const field = (name: string) =>
        lines.filter((line) => line.startsWith(`${name}: `)).map((line) => line.slice(name.length + 2));
      return { event: field('event')[0] ?? '', id: field('id')[0] ?? '', data: field('data').join('\n') };
    });
  return { status: response.status, contentType: response.headers.get('content-type'), events };
};
