import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callbackAddress, firstExternalIpv4, OWN_ADDRESS } from '../../worker/callback-address.ts';
import { CogCallbacks } from '../../worker/cog-callbacks.ts';

/** A stand-in for the ECS task metadata endpoint v4 (only an ECS task has the real one). */
let metadata: Server;
let metadataUrl = '';
let answer: { status: number; body: unknown } = { status: 200, body: {} };
beforeAll(async () => {
  metadata = createServer((_req, res) => res.writeHead(answer.status).end(JSON.stringify(answer.body)));
  await new Promise<void>((resolve) => metadata.listen(0, '127.0.0.1', resolve));
  metadataUrl = `http://127.0.0.1:${(metadata.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => metadata.close(resolve)));

describe("where coglet posts the worker's webhooks", () => {
  it('beside a local model server: loopback, as configured', async () => {
    expect(await callbackAddress('127.0.0.1', null)).toEqual({ listenHost: '127.0.0.1', advertisedHost: '127.0.0.1' });
    expect(await callbackAddress('10.0.0.7', null)).toEqual({ listenHost: '0.0.0.0', advertisedHost: '10.0.0.7' });
  });

  it("in an ECS task on Docker's bridge: the container's own address, from the task metadata endpoint", async () => {
    answer = {
      status: 200,
      body: { DockerId: 'abc', Networks: [{ NetworkMode: 'bridge', IPv4Addresses: ['172.17.0.3'] }] },
    };
    expect(await callbackAddress(OWN_ADDRESS, metadataUrl)).toEqual({
      listenHost: '0.0.0.0',
      advertisedHost: '172.17.0.3',
    });
  });

  it('refuses to guess when the metadata endpoint fails, and uses the first external interface where there is none', async () => {
    answer = { status: 500, body: {} };
    await expect(callbackAddress(OWN_ADDRESS, metadataUrl)).rejects.toThrow(/500/);
    const external = firstExternalIpv4();
    if (external === undefined) {
      await expect(callbackAddress(OWN_ADDRESS, null)).rejects.toThrow(/no address beyond loopback/);
    } else {
      expect(await callbackAddress(OWN_ADDRESS, null)).toEqual({ listenHost: '0.0.0.0', advertisedHost: external });
    }
  });

  it('takes a run’s webhook posted to the advertised address from another address of the machine', async () => {
    const external = firstExternalIpv4();
    const callbacks = new CogCallbacks();
    const host = external ?? '127.0.0.1';
    await callbacks.listen(0, { listenHost: '0.0.0.0', advertisedHost: host });
    try {
      const run = callbacks.watch('run-1');
      expect(run.url).toMatch(new RegExp(`^http://${host.replace(/\./g, '\\.')}:\\d+/runs/run-1$`));
      const posted = await fetch(run.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ status: 'succeeded', output: 'ok' }),
      });
      expect(posted.status).toBe(200);
      expect((await run.done).output).toBe('ok');
    } finally {
      await callbacks.close();
    }
  });
});
