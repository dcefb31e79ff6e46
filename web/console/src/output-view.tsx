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

/** A model's output: a transcription as its text by segment, with times and speakers; anything else as JSON. */
export const OutputView = ({ output }: { output: unknown }) => {
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
