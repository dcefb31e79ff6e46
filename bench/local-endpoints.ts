import type { MeterSnapshot } from '../local/meter.ts';
import type { ProcessStatus } from '../local/supervisor.ts';

/** One of the local runtime's /_local/ endpoints (outside the API, so not metered). */
export const localJson = async <T>(origin: string, name: string): Promise<T> =>
  (await (await fetch(`${origin}/_local/${name}`)).json()) as T;

export const meterSnapshot = (origin: string) => localJson<MeterSnapshot>(origin, 'meter');

/** The workers and model servers the runtime supervises. */
export const localProcesses = async (origin: string): Promise<ProcessStatus[]> =>
  (await localJson<{ processes: ProcessStatus[] }>(origin, 'processes')).processes;
