import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { checkWebhookHost, guardedPoster } from '../../shared/adapters/webhook-poster.ts';
import {
  addressVerdict,
  isLoopbackAddress,
  isPublicAddress,
  refusedAddress,
  refusedAddresses,
  type AddressVerdict,
} from '../../shared/domain/addresses.ts';
import fixture from '../fixtures/address-cases.json' with { type: 'json' };

/** The cases of test/fixtures/address-cases.json. */
const cases = fixture.cases.map(({ address, verdict }) => [address, verdict as AddressVerdict] as const);

describe('address verdicts, shared with the Python fetcher', () => {
  it('has cases for every verdict', () => {
    expect(new Set(cases.map(([, verdict]) => verdict))).toEqual(new Set(['public', 'loopback', 'private']));
  });

  it.each(cases)('%s is %s', (address, verdict) => {
    expect(addressVerdict(address)).toBe(verdict);
    expect(isPublicAddress(address)).toBe(verdict === 'public');
    expect(isLoopbackAddress(address)).toBe(verdict === 'loopback');
  });

  it.each(cases)(
    '%s (%s) is refused by policy: cloud always unless public, local runtime unless public or loopback',
    (address, verdict) => {
      expect(refusedAddress(address, { allowLoopback: false }) === null).toBe(verdict === 'public');
      expect(refusedAddress(address, { allowLoopback: true }) === null).toBe(verdict !== 'private');
    },
  );

  it('lets the local runtime reach loopback, and nothing else that is private', () => {
    expect(refusedAddress('127.0.0.1', { allowLoopback: true })).toBeNull();
    expect(refusedAddress('::1', { allowLoopback: true })).toBeNull();
    expect(refusedAddress('10.0.0.1', { allowLoopback: true })).toContain('10.0.0.1');
    expect(refusedAddress('127.0.0.1', { allowLoopback: false })).not.toBeNull();
  });

  it('refuses a host by the first of its addresses that is refused, however many are public', () => {
    const cloud = { allowLoopback: false };
    expect(refusedAddresses(['93.184.216.34', '2606:2800:220:1::1'], cloud)).toBeNull();
    expect(refusedAddresses(['93.184.216.34', '10.0.0.1', '127.0.0.1'], cloud)).toContain('10.0.0.1');
    expect(refusedAddresses([], cloud)).toBeNull();
  });
});

describe('webhook hosts outside the local runtime', () => {
  const cloud = { allowLoopback: false };

  it('are refused at registration when they resolve to a non-public address', async () => {
    expect(await checkWebhookHost('https://10.9.8.7/hook', cloud)).toContain('10.9.8.7');
    expect(await checkWebhookHost('https://localhost/hook', cloud)).toContain('127.0.0.1');
    expect(await checkWebhookHost('https://[::1]/hook', cloud)).not.toBeNull();
  });

  it('are refused again when sending, against the address actually connected to', async () => {
    let reached = false;
    const server = createServer((_, res) => {
      reached = true;
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const request = { headers: {}, body: '{}', timeoutMs: 2000 };
    try {
      expect(await guardedPoster(cloud)(`http://localhost:${port}/hook`, request)).toMatchObject({
        error: expect.stringContaining('127.0.0.1') as string,
      });
      expect(await guardedPoster(cloud)(`http://127.0.0.1:${port}/hook`, request)).toMatchObject({
        error: expect.any(String) as string,
      });
      expect(reached).toBe(false);
      expect(await guardedPoster({ allowLoopback: true })(`http://localhost:${port}/hook`, request)).toEqual({
        status: 204,
      });
      expect(reached).toBe(true);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
