import { networkInterfaces } from 'node:os';
import * as z from 'zod';
import { WORKER_ENV } from '../shared/config/worker.ts';

/** The part of the ECS task metadata endpoint v4's container response read here (AWS's documented shape). */
const containerMetadata = z.object({
  Networks: z.array(z.object({ IPv4Addresses: z.array(z.string()).optional() })).optional(),
});

/** The value of WORKER_ENV.callbackHost that asks for this container's own bridge address. */
export const OWN_ADDRESS = 'auto';

export interface CallbackAddress {
  /** Where the receiver listens. */
  readonly listenHost: string;
  /** What coglet is told to post to. */
  readonly advertisedHost: string;
}

const isLoopback = (host: string) => host === 'localhost' || host === '::1' || host.startsWith('127.');

/** The first IPv4 address of this machine (or container) that is not loopback. */
export const firstExternalIpv4 = (): string | undefined =>
  Object.values(networkInterfaces())
    .flat()
    .find((address) => address !== undefined && address.family === 'IPv4' && !address.internal)?.address;

/**
 * Where the worker takes coglet's webhooks. Beside a local model server: on loopback. In an ECS
 * task on Docker's bridge, each container has its own network namespace, so the worker listens on
 * every address and tells coglet its container's own: from the task metadata endpoint (its URI,
 * where ECS gives one), or else the container's first external interface.
 */
export const callbackAddress = async (
  configured: string,
  metadataUri: string | null,
  fetchImpl: typeof fetch = fetch,
): Promise<CallbackAddress> => {
  if (configured !== OWN_ADDRESS)
    return { listenHost: isLoopback(configured) ? configured : '0.0.0.0', advertisedHost: configured };
  let fromMetadata: string | undefined;
  if (metadataUri) {
    const response = await fetchImpl(metadataUri, { signal: AbortSignal.timeout(5000) });
    if (!response.ok) throw new Error(`the task metadata endpoint answered ${response.status}`);
    const parsed = containerMetadata.parse(await response.json());
    fromMetadata = parsed.Networks?.flatMap((network) => network.IPv4Addresses ?? [])[0];
  }
  const advertisedHost = fromMetadata ?? firstExternalIpv4();
  if (advertisedHost === undefined)
    throw new Error(`${WORKER_ENV.callbackHost}=${OWN_ADDRESS}, but this container has no address beyond loopback`);
  return { listenHost: '0.0.0.0', advertisedHost };
};
