import { describe, expect, it } from 'vitest';
import { formatTimestamp } from '../../shared/domain/clock.ts';
import { monthOf } from '../../shared/domain/money.ts';
import { generateToken, TOKEN_USE_RECORDED_EVERY_MS } from '../../shared/domain/tokens.ts';
import { AccountExists, UsernameTaken, type AccountStore } from '../../shared/ports/account-store.ts';
import { fakeClock } from '../support/in-memory/clock.ts';
import { freshOwner } from '../support/predictions.ts';

/** A store over accounts of its own. */
export type MakeAccountStore = () => Promise<AccountStore>;

/** What every AccountStore does, whatever keeps the accounts. */
export const describeAccountStoreContract = (name: string, make: MakeAccountStore) =>
  describe(`${name}: the account store`, () => {
    it('opens an account with its balance, limit and a signing secret', async () => {
      const accounts = await make();
      const clock = fakeClock();
      const id = freshOwner();
      await accounts.createAccount(id, clock.now(), { balanceKopecks: 500, monthlyLimitKopecks: 300 });
      expect(await accounts.getAccount(id, clock.now())).toEqual({
        id,
        username: id,
        name: id,
        createdAt: formatTimestamp(clock.now()),
        balanceKopecks: 500,
        availableKopecks: 500,
        heldKopecks: 0,
        monthlyLimitKopecks: 300,
        month: monthOf(clock.now()),
        spentThisMonthKopecks: 0,
      });
      const secrets = await accounts.signingSecrets(id, clock.now());
      expect(secrets).toMatchObject({ previous: null, previousValidUntilMs: null });
      expect(secrets?.current).toMatch(/^whsec_/);
      await expect(accounts.createAccount(id, clock.now())).rejects.toBeInstanceOf(AccountExists);
      expect(await accounts.getAccount(freshOwner(), clock.now())).toBeNull();
      expect(await accounts.monthlyLimitOf(freshOwner())).toBeNull();
      expect(await accounts.signingSecrets(freshOwner(), clock.now())).toBeNull();
    });

    it('gives an account the handle and name it was made with, one account per handle', async () => {
      const accounts = await make();
      const clock = fakeClock();
      const [first, second] = [freshOwner(), freshOwner()];
      const handle = `acme-${first}`;
      await accounts.createAccount(first, clock.now(), { username: handle, displayName: 'Acme, Inc.' });
      expect(await accounts.getAccount(first, clock.now())).toMatchObject({ username: handle, name: 'Acme, Inc.' });
      await expect(accounts.createAccount(second, clock.now(), { username: handle })).rejects.toBeInstanceOf(
        UsernameTaken,
      );
      // Nothing of the refused account was kept.
      expect(await accounts.getAccount(second, clock.now())).toBeNull();
      await accounts.createAccount(second, clock.now(), { username: `${handle}-2` });
      expect(await accounts.getAccount(second, clock.now())).toMatchObject({
        username: `${handle}-2`,
        name: `${handle}-2`,
      });
    });

    it('tops up and sets the monthly limit, refusing what is not a whole amount', async () => {
      const accounts = await make();
      const clock = fakeClock();
      const id = freshOwner();
      await accounts.createAccount(id, clock.now());
      await accounts.topUp(id, 250);
      await accounts.setMonthlyLimit(id, 1000);
      expect(await accounts.getAccount(id, clock.now())).toMatchObject({
        balanceKopecks: 250,
        availableKopecks: 250,
        monthlyLimitKopecks: 1000,
      });
      expect(await accounts.monthlyLimitOf(id)).toEqual({ monthlyLimitKopecks: 1000 });
      await accounts.setMonthlyLimit(id, null);
      expect(await accounts.getAccount(id, clock.now())).toMatchObject({ monthlyLimitKopecks: null });
      expect(await accounts.monthlyLimitOf(id)).toEqual({ monthlyLimitKopecks: null });
      await expect(accounts.topUp(id, 0)).rejects.toThrow();
      await expect(accounts.topUp(id, 1.5)).rejects.toThrow();
      await expect(accounts.setMonthlyLimit(id, -1)).rejects.toThrow();
      await expect(accounts.topUp(freshOwner(), 100)).rejects.toThrow();
    });

    it('knows a token by itself alone, until it is revoked', async () => {
      const accounts = await make();
      const clock = fakeClock();
      const id = freshOwner();
      await accounts.createAccount(id, clock.now(), { ratePerSecond: 7 });
      const token = generateToken();
      const listed = await accounts.addToken(id, token, clock.now(), 'laptop');
      expect(listed).toMatchObject({ name: 'laptop', revoked: false, lastUsedAt: null });
      expect(token.startsWith(listed.hint.replace('…', ''))).toBe(true);
      expect(await accounts.accountForToken(token)).toEqual({
        account: id,
        tokenId: listed.id,
        ratePerSecond: 7,
        lastUsedMs: null,
      });
      expect(await accounts.listTokens(id)).toEqual([listed]);
      expect(await accounts.accountForToken(generateToken())).toBeNull();
      expect(await accounts.revokeToken(id, 'no-such-token')).toBe(false);
      expect(await accounts.revokeToken(freshOwner(), listed.id)).toBe(false);
      expect(await accounts.revokeToken(id, listed.id)).toBe(true);
      expect(await accounts.accountForToken(token)).toBeNull();
      expect(await accounts.listTokens(id)).toEqual([{ ...listed, revoked: true }]);
    });

    it("records a token's use at most once in its interval", async () => {
      const accounts = await make();
      const clock = fakeClock();
      const id = freshOwner();
      await accounts.createAccount(id, clock.now());
      const token = generateToken();
      await accounts.addToken(id, token, clock.now());
      expect(await accounts.recordTokenUse(token, clock.now())).toBe(true);
      const firstUse = clock.now();
      clock.advance(TOKEN_USE_RECORDED_EVERY_MS - 1);
      expect(await accounts.recordTokenUse(token, clock.now())).toBe(false);
      expect((await accounts.accountForToken(token))?.lastUsedMs).toBe(firstUse);
      clock.advance(2);
      expect(await accounts.recordTokenUse(token, clock.now())).toBe(true);
      expect((await accounts.listTokens(id))[0]?.lastUsedAt).toBe(formatTimestamp(clock.now()));
      expect(await accounts.recordTokenUse(generateToken(), clock.now())).toBe(false);
    });

    it('rotates the signing secret, the previous one signing on until its grace ends', async () => {
      const accounts = await make();
      const clock = fakeClock();
      const id = freshOwner();
      await accounts.createAccount(id, clock.now());
      const before = await accounts.signingSecrets(id, clock.now());
      const rotated = await accounts.rotateSigningSecret(id, clock.now(), 60_000);
      expect(rotated).toEqual({
        current: expect.stringMatching(/^whsec_/) as unknown,
        previous: before?.current,
        previousValidUntilMs: clock.now() + 60_000,
      });
      expect(rotated.current).not.toBe(before?.current);
      expect(await accounts.signingSecrets(id, clock.now() + 59_999)).toEqual(rotated);
      expect(await accounts.signingSecrets(id, clock.now() + 60_000)).toEqual({
        current: rotated.current,
        previous: null,
        previousValidUntilMs: null,
      });
      await expect(accounts.rotateSigningSecret(freshOwner(), clock.now(), 1000)).rejects.toThrow();
    });

    it('links owners to one account each', async () => {
      const accounts = await make();
      const clock = fakeClock();
      const [first, second] = [freshOwner(), freshOwner()];
      await accounts.createAccount(first, clock.now(), { ratePerSecond: 3 });
      await accounts.createAccount(second, clock.now());
      await accounts.linkOwner('sub-b', first, clock.now(), 'b@example.com');
      await accounts.linkOwner('sub-a', first, clock.now());
      expect(await accounts.ownersOf(first)).toEqual([
        { sub: 'sub-a', email: null, linkedAt: formatTimestamp(clock.now()) },
        { sub: 'sub-b', email: 'b@example.com', linkedAt: formatTimestamp(clock.now()) },
      ]);
      expect(await accounts.accountForOwner('sub-a')).toEqual({ account: first, ratePerSecond: 3 });
      await accounts.linkOwner('sub-a', second, clock.now());
      expect(await accounts.accountForOwner('sub-a')).toEqual({ account: second, ratePerSecond: null });
      expect((await accounts.ownersOf(first)).map((owner) => owner.sub)).toEqual(['sub-b']);
      expect(await accounts.accountForOwner('sub-unknown')).toBeNull();
    });
  });
