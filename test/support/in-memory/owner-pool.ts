import { randomUUID } from 'node:crypto';
import type { OwnerPool } from '../../../shared/ports/owner-pool.ts';
import { answer } from './answer.ts';

/**
 * The owners' user pool in memory: an invited user waits to choose a password
 * (FORCE_CHANGE_PASSWORD), one given a permanent password is CONFIRMED, as in Cognito.
 */
export const inMemoryOwnerPool = (): OwnerPool => {
  const users = new Map<string, { readonly sub: string; status: string }>();
  return {
    addUser: (email, firstPassword) =>
      answer(() => {
        const found = users.get(email);
        const user = found ?? { sub: randomUUID(), status: 'FORCE_CHANGE_PASSWORD' };
        if (firstPassword.kind === 'permanent') user.status = 'CONFIRMED';
        users.set(email, user);
        return { sub: user.sub, status: user.status, created: found === undefined };
      }),
    makeOperator: (email) =>
      answer(() => {
        if (!users.has(email)) throw new Error(`no user ${email}`);
      }),
    statusOf: (email) => answer(() => users.get(email)?.status ?? null),
  };
};
