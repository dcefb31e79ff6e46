import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { checkWebhookHost, guardedPoster } from '../../shared/adapters/webhook-transport.ts';
import { isPublicAddress, refusedAddress } from '../../shared/domain/addresses.ts';

describe('address classes', () => {
  it.each([
    ['8.8.8.8', true],
    ['2606:4700:4700::1111', true],
    ['10.1.2.3', false],
    ['172.20.0.1', false],
    ['192.168.0.10', false],
    ['127.0.0.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['::1', false],
    ['fe80::1', false],
    ['fd00::1', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:8.8.8.8', true],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  it('lets the local runtime reach loopback, and nothing else that is private', () => {
    expect(refusedAddress('127.0.0.1', { allowLoopback: true })).toBeNull();
    expect(refusedAddress('::1', { allowLoopback: true })).toBeNull();
    expect(refusedAddress('10.0.0.1', { allowLoopback: true })).not.toBeNull();
    expect(refusedAddress('127.0.0.1', { allowLoopback: false })).not.toBeNull();
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
      expect(await guardedPoster(cloud)(`http://localhost:${port}/hook`, request)).toMatchObject({ error: expect.stringContaining('127.0.0.1') as string });
      expect(await guardedPoster(cloud)(`http://127.0.0.1:${port}/hook`, request)).toMatchObject({ error: expect.any(String) as string });
      expect(reached).toBe(false);
      expect(await guardedPoster({ allowLoopback: true })(`http://localhost:${port}/hook`, request)).toEqual({ status: 204 });
      expect(reached).toBe(true);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
