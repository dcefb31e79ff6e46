import { Json } from './ui.tsx';

interface Segment {
  readonly start: number;
  readonly end: number;
  readonly text: string;
  readonly speaker?: string;
  readonly language?: string;
}

const isTranscription = (
  output: unknown,
): output is { segments: Segment[]; transcription?: string; translation?: string | null } =>
  typeof output === 'object' && output !== null && Array.isArray((output as { segments?: unknown }).segments);

const clock = (secondsIn: number): string => {
  const whole = Math.floor(secondsIn);
  const minutes = Math.floor(whole / 60);
  const rest = (secondsIn - minutes * 60).toFixed(1).padStart(4, '0');
  return `${minutes}:${rest}`;
};

/** A file a model returned, as the API links it: `…/predictions/{id}/output/{claim}/{file}?key=…`. */
const OUTPUT_FILE = /\/predictions\/[^/]+\/output\/[^/]+\/[^/?]+\.([a-z0-9]+)\?key=/i;
const IMAGE = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'bmp', 'svg']);
const AUDIO = new Set(['wav', 'mp3', 'ogg', 'oga', 'flac', 'm4a', 'aac', 'opus', 'weba']);
const VIDEO = new Set(['mp4', 'webm', 'mov', 'ogv', 'm4v']);

/** Every output file URL in an output, in order, wherever it sits. */
const filesIn = (value: unknown): string[] => {
  if (typeof value === 'string') return OUTPUT_FILE.test(value) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap(filesIn);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(filesIn);
  return [];
};

/**
 * The file on this page's own origin: the API beside the console serves it there (on AWS through
 * the console's distribution; locally on the same port, over the page's http rather than the
 * https the link names for Replicate's clients).
 */
const onThisOrigin = (url: string): string => {
  const parsed = new URL(url);
  return `${window.location.origin}${parsed.pathname}${parsed.search}`;
};

/** An output file as what it is: an image shown, audio and video playable, anything else a link. */
const OutputFile = ({ url, index }: { url: string; index: number }) => {
  const extension = (OUTPUT_FILE.exec(url)?.[1] ?? '').toLowerCase();
  const name = new URL(url).pathname.split('/').pop() ?? `file ${index + 1}`;
  const src = onThisOrigin(url);
  const media = IMAGE.has(extension) ? (
    <img src={src} alt={`Output file ${name}`} loading="lazy" />
  ) : AUDIO.has(extension) ? (
    <audio controls preload="metadata" src={src} aria-label={`Output audio ${name}`} />
  ) : VIDEO.has(extension) ? (
    <video controls preload="metadata" src={src} aria-label={`Output video ${name}`} />
  ) : null;
  return (
    <figure class="output-file">
      {media}
      <figcaption>
        <a href={src} target="_blank" rel="noopener noreferrer" download={name}>
          {name}
        </a>
      </figcaption>
    </figure>
  );
};

/** A model's output: its files shown as what they are, a transcription as its text by segment, anything else as JSON. */
export const OutputView = ({ output }: { output: unknown }) => {
  const files = filesIn(output);
  if (files.length > 0)
    return (
      <div class="output-files">
        {files.map((url, index) => (
          <OutputFile key={url} url={url} index={index} />
        ))}
        <details>
          <summary>JSON</summary>
          <Json value={output} label="Output as JSON" />
        </details>
      </div>
    );
  if (isTranscription(output))
    return (
      <div class="transcript">
        <ol aria-label="Transcription by segment">
          {output.segments.map((segment, index) => (
            <li key={index}>
              <span class="times">
                {clock(segment.start)}–{clock(segment.end)}
              </span>
              {segment.speaker ? <span class="speaker">{segment.speaker}</span> : null}
              {segment.language ? <span class="language">{segment.language}</span> : null}
              <span class="text">{segment.text}</span>
            </li>
          ))}
        </ol>
        {output.translation ? (
          <>
            <h3>Translation</h3>
            <p>{output.translation}</p>
          </>
        ) : null}
        <details>
          <summary>JSON</summary>
          <Json value={output} label="Output as JSON" />
        </details>
      </div>
    );
  if (typeof output === 'string')
    return (
      <pre class="code" tabIndex={0} aria-label="Output">
        {output}
      </pre>
    );
  return <Json value={output} label="Output" />;
};
