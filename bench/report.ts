import type { IdleStartResult } from './idle-start.ts';
import type { AwsPrices } from './aws-prices.ts';
import { renderBundleBreakdown } from './bundle-breakdown.ts';
import type { ColdStartReport } from './cold-start.ts';
import type { ControlPlaneResult, SyncResult } from './control-plane.ts';
import { renderThroughput, type ThroughputResult } from './throughput.ts';
import type { ScenarioCost } from './cost.ts';
import type { PhasePeaks } from './memory.ts';
import type { LongResult, TranscriptionResult } from './transcription.ts';
import type { OutputFilesResult } from './output-files.ts';
import { dynamoUnitsByCall } from './report-dynamo.ts';
import { n, p50p99, table } from './markdown.ts';

export interface BenchReport {
  readonly date: string;
  readonly mode: 'quick' | 'full';
  readonly durationSeconds: number;
  readonly machine: Record<string, string | number>;
  readonly settings: Record<string, number>;
  readonly controlPlane: ControlPlaneResult;
  readonly sync: SyncResult;
  readonly transcription: TranscriptionResult;
  readonly longTranscription: LongResult & { readonly peaks: PhasePeaks };
  readonly coldStarts: ColdStartReport;
  /** Absent from reports written before output files were measured. */
  readonly outputFiles?: OutputFilesResult;
  /** Absent from reports written before deployments could scale to zero. */
  readonly idleStart?: readonly IdleStartResult[];
  /** Absent from reports written before many transcriptions shared one model server. */
  readonly throughput?: ThroughputResult;
  readonly costs: { prices: AwsPrices; scenarios: readonly ScenarioCost[] };
  readonly memory: { controlPlane: PhasePeaks; transcription: PhasePeaks };
}

const counts = (record: Record<string, number>) =>
  Object.entries(record)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => `${key} ${n(value)}`)
    .join(', ') || '—';
const sum = (record: Record<string, number>) => Object.values(record).reduce((a, b) => a + b, 0);

/** Section 4 (`npm run bench:cold` prints it alone). */
export const renderColdStarts = (c: ColdStartReport, node: string): string[] => {
  const out: string[] = ['## 4. Lambda cold start proxy', ''];
  out.push(
    `Each function bundled as the CDK app bundles it (esbuild, minified ESM, source maps read at a stack's first writing, the DynamoDB client bundled with the environment's credentials, the other SDK clients the runtime's), then imported in a fresh Node ${node} process with its deployed environment; ` +
      `median of ${c.runs}. A fresh Node process that imports nothing takes **${n(c.bareNodeMs)} ms**.`,
    '',
  );
  const floor = c.sdkFloor;
  if (floor) {
    out.push(
      `**The SDK's floor.** \`${floor.entry}\` alone, bundled and loaded as a function is (${n(floor.bundleKiB)} KiB, the AWS SDK's DynamoDB ` +
        `clients in it): what every function loads as it starts, before any code of its own. In runs alternating with a bare ` +
        `process (${n(floor.bareNodeMs)} ms), its load + init takes ${n(floor.loadInitMs)} ms and its fresh process **${n(floor.processMs)} ms, ` +
        `${n(floor.processMs / floor.bareNodeMs)}× bare Node**. "Above the floor" is a function's fresh process less the floor's, each of its runs paired with a floor run just before it (the median of the differences), the functions taken in turn round by round: what its own code costs.`,
      '',
    );
  }
  if (c.floorWays) {
    out.push(
      `**Its cuts**, each way of bundling it measured in runs interleaved with the others' and a bare process's (${n(c.floorWays[0]?.bareNodeMs ?? 0)} ms):`,
      '',
      table(
        ['the floor bundled with', 'bundle KiB', 'fresh process ms', '× bare Node'],
        c.floorWays.map((way) => [
          way.what,
          n(way.bundleKiB),
          n(way.processMs),
          `${n(way.processMs / way.bareNodeMs)}×`,
        ]),
      ),
      '',
    );
  }
  out.push(
    table(
      [
        'function',
        'bundle KiB',
        'memory MiB',
        'load + init ms',
        'fresh process ms',
        '× bare Node',
        ...(floor ? ['above the floor ms'] : []),
      ],
      c.functions.map((f) => [
        `\`${f.entry}\``,
        n(f.bundleKiB),
        String(f.memoryMiB),
        n(f.loadInitMs),
        n(f.processMs),
        `${n(f.processMs / c.bareNodeMs)}×`,
        ...(floor ? [n(f.aboveFloorMs ?? f.processMs - floor.processMs)] : []),
      ]),
    ),
  );
  if (c.largestBundle) out.push('', ...renderBundleBreakdown(c.largestBundle.entry, c.largestBundle.breakdown));
  return out;
};

export const renderReport = (r: BenchReport): string => {
  const m = r.machine;
  const plane = r.controlPlane;
  const out: string[] = [];
  out.push(`# prognoz benchmark — ${r.date.slice(0, 10)} (${r.mode})`);
  out.push('');
  out.push(
    `Machine: **${m.cores} cores** (${m.cpu}), ${m.memoryGiB} GiB, ${m.os}; **Node ${m.node}**, ${m.python}; commit \`${m.commit}\`. ` +
      `The whole run took ${n(r.durationSeconds)} s. Every comparison is made in this same run, on this machine: read the ratios, not the absolute figures.`,
  );

  out.push('', '## 1. Control plane — local runtime, `prognoz/echo` with `sleep: 0`', '');
  out.push(
    `Closed loop: each client creates a prediction (async), polls it every ${plane.pollMs} ms until it ends, and starts the next; ${plane.secondsPerLevel} s per level. ` +
      'The bare server is Node’s own HTTP server answering a fixed prediction-shaped JSON body to the same POST-then-GET shape: this machine’s ceiling. Latencies in ms, p50 / p99. ' +
      'Every API request costs the local runtime a few DynamoDB Local calls (the item; the rate window, which a busy API process counts several requests at a time; the authorizer’s only once a minute per token, as its cache does on AWS), ' +
      'ordered only where they touch the same items (`local/dynamodb-request-order.ts`); the API front runs every handler in one Node process, and lets at most as many GETs run at once as the machine has cores (`local/read-turns.ts`): a poll waits its turn, while creates and the work behind them never wait for polls.',
  );
  out.push('');
  out.push(
    table(
      [
        'clients',
        'predictions/s',
        'failed',
        'requests/s',
        'create',
        'get',
        'create → terminal (client)',
        'create → terminal (recorded)',
        'DynamoDB calls/s',
        'bare requests/s',
        'bare POST',
        'bare GET',
        'req/s ÷ bare',
        'create p50 ÷ bare',
      ],
      plane.levels.map(({ prognoz, bare, ratios }) => [
        String(prognoz.concurrency),
        n(prognoz.completedPerSecond),
        String(Object.values(prognoz.failed).reduce((a, b) => a + b, 0)),
        n(prognoz.requestsPerSecond),
        p50p99(prognoz.createMs),
        p50p99(prognoz.getMs),
        p50p99(prognoz.terminalMs),
        p50p99(prognoz.serverTerminalMs),
        n(prognoz.dynamoCallsPerSecond),
        n(bare.requestsPerSecond),
        p50p99(bare.postMs),
        p50p99(bare.getMs),
        n(ratios.requestsPerSecond, 2),
        `${n(ratios.createP50)}×`,
      ]),
    ),
  );

  for (const { prognoz } of plane.levels) {
    for (const [how, count] of Object.entries(prognoz.failed))
      out.push('', `- ${prognoz.concurrency} clients: ${count} ended ${how}`);
  }

  const s = r.sync;
  out.push('', '## 2. Synchronous overhead — `Prefer: SYNC`', '');
  out.push(
    `${s.requests} synchronous predictions one after another; overhead = latency − the prediction's own \`runtime\`, request by request. ms, p50 / p99.`,
    '',
  );
  out.push(
    table(['latency', 'model runtime', 'overhead'], [[p50p99(s.latencyMs), p50p99(s.modelMs), p50p99(s.overheadMs)]]),
  );

  const t = r.transcription;
  out.push('', `## 3. Transcription — \`${t.model}\``, '');
  out.push(
    'Four sides, interleaved clip by clip and repeat by repeat (the order turned each repeat), medians of ' +
      `${t.repeats}: **model runtime** — the prediction's own \`runtime\` (the worker's time on the run: the audio fetched from the caller's address, then the model server's run); **predict_time** — the model server's own measure of the predictor's run (\`metrics.predict_time\`, from coglet). The benchmark learns of each end from the completion webhook, so nothing polls the API while the model runs. ` +
      "**alone** — the same model server started on its own, no service around it (its `predict_time`): the model server without the local runtime's other processes sharing the cores; " +
      '**direct** — the same transcription (`Transcriber.transcribe`: VAD, a language per stretch, translation) called in a plain Python process, no model server; ' +
      `**raw** — faster-whisper as it comes, \`WhisperModel.transcribe(audio)\` with its defaults (one language for the whole file, no VAD). Same model and settings on every side (${Object.entries(
        t.settings,
      )
        .map(([k, v]) => `${k} ${String(v)}`)
        .join(', ')}). ` +
      'RTF = seconds per second of audio. Word error rates against what is said: of the whole clip, and part by part (a segment counts in the part its middle falls in).',
    '',
  );
  out.push(
    table(
      [
        'clip',
        'audio s',
        'model runtime s',
        'predict_time s',
        'direct s',
        'runtime ÷ direct',
        'predict_time ÷ direct',
        'alone s',
        'alone ÷ direct',
        'raw s',
        'runtime ÷ raw',
        'RTF prognoz / raw',
        'to webhook s',
        'recorded s',
        'languages prognoz / raw',
      ],
      t.clips.map((c) => [
        c.name,
        n(c.audioSeconds),
        n(c.modelRuntimeSeconds),
        n(c.predictSeconds),
        n(c.directSeconds),
        `${n(c.runtimeOverDirect)}×`,
        `${n(c.predictOverDirect)}×`,
        n(c.aloneSeconds),
        `${n(c.aloneOverDirect)}×`,
        n(c.rawSeconds),
        `${n(c.runtimeOverRaw)}×`,
        `${n(c.serviceRtf)} / ${n(c.rawRtf)}`,
        n(c.serviceSeconds),
        n(c.serviceRecordedSeconds),
        `${c.languages} / ${c.rawLanguage}`,
      ]),
    ),
  );
  out.push(
    '',
    'Word error rate, prognoz / raw faster-whisper: of the whole clip (everything said against everything heard, in order), then part by part:',
    '',
  );
  out.push(
    table(
      ['clip', 'part', 'prognoz', 'raw', 'prognoz ≤ raw'],
      t.clips.flatMap((c) => [
        [
          c.name,
          '**whole clip**',
          n(c.wer.prognoz, 3),
          n(c.wer.raw, 3),
          c.wer.prognoz <= c.wer.raw + 1e-9 ? 'yes' : '**no**',
        ],
        ...c.parts.map((w) => [
          c.name,
          w.label,
          n(w.prognoz, 3),
          n(w.raw, 3),
          w.prognoz <= w.raw + 1e-9 ? 'yes' : 'no',
        ]),
      ]),
    ),
  );
  const l = r.longTranscription;
  out.push(
    '',
    `Long audio: ${n(l.audioSeconds / 60)} min of speech (multilingual.mp3 and jfk.flac over and over) through the service: ${n(l.modelRuntimeSeconds)} s of model runtime, ` +
      `**RTF ${n(l.rtf, 3)}**, ${l.segments} segments; progress polled once a second moved through ${l.progressSteps} values; peak RSS of its model server ` +
      `${n(Object.entries(l.peaks).find(([role]) => role.startsWith('model:') && role.endsWith('(predictor process)'))?.[1] ?? null)} MiB (the predictor process, which holds the model). Model load (direct process): ${n(t.directLoadSeconds)} s.`,
  );

  out.push('', ...renderColdStarts(r.coldStarts, String(m.node)));

  const prices = r.costs.prices;
  out.push('', '## 5. Cost model — dollars per 1,000 predictions, GPU excluded', '');
  out.push(
    'Calls counted by the local runtime’s meter while it ran each scenario on the synthesized state machine (one prediction at a time): state transitions as Standard ' +
      'workflows bill them (states entered and retried), Lambda invocations and their wall time (as billed duration, at each function’s configured memory, arm64), DynamoDB ' +
      'request units (DynamoDB Local’s consumed capacity; transactions by DynamoDB’s rule of 2 units per item per KB), S3 requests, SQS requests (idle long polls left out: a cost of time, ' +
      `not of predictions), API Gateway requests. The authorizer runs as API Gateway's cache lets it, once a minute per token (the local API front caches its answers as the template configures): the scenarios' predictions follow one another within that minute. Prices: ${prices.region}, checked ${prices.checked} (\`bench/aws-prices.ts\`).`,
    '',
  );
  out.push(
    table(
      [
        'scenario',
        'state transitions',
        'API requests',
        'Lambda invocations',
        'Lambda GB-s',
        'DynamoDB calls',
        'RRU',
        'WRU',
        'SQS requests',
        'S3 requests',
        '$ API GW',
        '$ Lambda',
        '$ Step Functions',
        '$ DynamoDB',
        '$ SQS',
        '$ S3',
        '**$ total / 1,000**',
      ],
      r.costs.scenarios.map((sc) => {
        const p = sc.perPrediction;
        const d = sc.dollarsPerThousand;
        return [
          sc.scenario,
          n(p.stateTransitions),
          n(p.apiRequests),
          n(sum(p.lambdaInvocations)),
          n(p.lambdaGbSeconds),
          n(sum(p.dynamoCalls)),
          n(p.dynamoReadUnits),
          n(p.dynamoWriteUnits),
          n(sum(p.sqsRequests)),
          n(sum(p.s3Requests)),
          n(d.apiGateway),
          n(d.lambda),
          n(d.stepFunctions),
          n(d.dynamodb),
          n(d.sqs),
          n(d.s3),
          `**${n(d.total)}**`,
        ];
      }),
    ),
  );
  out.push('');
  for (const sc of r.costs.scenarios) {
    const p = sc.perPrediction;
    out.push(
      `- **${sc.scenario}** (${sc.description}; ${sc.predictions} predictions): Lambda ${counts(p.lambdaInvocations)}; DynamoDB ${counts(p.dynamoCalls)}; SQS ${counts(p.sqsRequests)}; S3 ${counts(p.s3Requests)}.`,
    );
  }
  out.push('', ...dynamoUnitsByCall(r.costs.scenarios));

  out.push('', '## 6. Memory — peak RSS, MiB', '');
  out.push('The kernel’s own high-water mark (VmHWM), reset at the start of each phase.', '');
  const roles = [...new Set([...Object.keys(r.memory.controlPlane), ...Object.keys(r.memory.transcription)])];
  out.push(
    table(
      ['process', 'during control plane (1, 2)', 'during transcription (3)'],
      roles.map((role) => [role, n(r.memory.controlPlane[role] ?? null), n(r.memory.transcription[role] ?? null)]),
    ),
  );
  if (r.outputFiles) {
    out.push('', '## 7. Output files — from the predictor’s `return` to its URL serving the file, ms', '');
    out.push(
      'A Cog predictor yields one file (`bench/file-stream`, test/fixtures/cog/file-stream); the caller waits (`Prefer: wait`), then downloads the https URL in the output. Measured from the time the predictor logged as it handed the file over; p50 / p99.',
      '',
    );
    out.push(
      table(
        ['file', 'to the URL in the prediction', 'to its first byte served', 'to the whole file downloaded'],
        r.outputFiles.sizes.map((size) => [
          size.megabytes >= 1 ? `${n(size.megabytes)} MB` : `${n(size.megabytes * 1024)} KB`,
          p50p99(size.toUrl),
          p50p99(size.toFirstByte),
          p50p99(size.toDownloaded),
        ]),
      ),
    );
  }

  if (r.idleStart) {
    out.push('', '## 8. First prediction after idle — min 0 vs min 1, create to end, ms', '');
    out.push(
      "Each deployment resized as an operator does (PATCH /deployments' use case), then left idle past the runtime's scale-in time: with min 0 its model server has stopped and the prediction waits for one to start (and load its model); with min 1 one stayed warm. Interleaved, alternating which goes first; p50 / p99.",
      '',
    );
    out.push(
      table(
        ['model', 'idle', 'min 0 (cold start)', 'min 1 (warm)', 'min 0 ÷ min 1 (p50)'],
        r.idleStart.map((row) => [
          `\`${row.model}\``,
          `${n(row.idleSeconds)} s`,
          p50p99(row.coldMs),
          p50p99(row.warmMs),
          `${n(row.coldMs.p50 / row.warmMs.p50)}×`,
        ]),
      ),
    );
  }

  if (r.throughput) out.push('', ...renderThroughput(r.throughput));

  out.push('');
  return out.join('\n');
};
