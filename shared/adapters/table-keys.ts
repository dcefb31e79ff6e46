import { predictionIdSchema, type PredictionId } from '../domain/ids.ts';

/** Every key format of the single table lives here (architecture: Data). */
export const TABLE_KEY = { partition: 'pk', sort: 'sk' } as const;
/**
 * The owner index holds the keys and what never changes after a write (`model`), so that a
 * prediction's claim and end, a token's use or revocation write nothing to it: a listing reads
 * the items themselves (architecture: Data).
 */
export const OWNER_INDEX = {
  name: 'by-owner-keys',
  partition: 'gsi1pk',
  sort: 'gsi1sk',
  projected: ['model'],
} as const;
/**
 * The owner index of stacks deployed before it held keys alone (every attribute projected, so
 * every write of a prediction wrote it too): kept beside the new one for one deploy when
 * upgrading, for CloudFormation adds or removes only one index per update.
 */
export const LEGACY_OWNER_INDEX_NAME = 'by-owner';

export const predictionKey = (id: string) => ({ pk: `PREDICTION#${id}`, sk: 'PREDICTION' });
/** The prediction id back from its partition key (what a keys-only index gives). */
export const predictionIdOfKey = (pk: string): PredictionId => predictionIdSchema.parse(pk.replace(/^PREDICTION#/, ''));
/** A webhook delivery attempt, beside its prediction: `at` (stored form) and the attempt's own id order them. */
export const ATTEMPT_PREFIX = 'ATTEMPT#';
export const attemptKey = (predictionId: string, at: string, attemptId: string) => ({
  pk: predictionKey(predictionId).pk,
  sk: `${ATTEMPT_PREFIX}${at}#${attemptId}`,
});
/** An uploaded file's record; its owner is an attribute, checked on every read. */
export const fileKey = (id: string) => ({ pk: `FILE#${id}`, sk: 'FILE' });
/** The same file in its owner's index partition, newest last: `GET /files` lists them. */
export const FILE_INDEX_PREFIX = 'FILE#';
export const fileIndexKey = (owner: string, createdAt: string, id: string) => ({
  gsi1pk: accountIndexPartition(owner),
  gsi1sk: `${FILE_INDEX_PREFIX}${createdAt}#${id}`,
});
export const accountKey = (id: string) => ({ pk: `ACCOUNT#${id}`, sk: 'ACCOUNT' });
/** An account's claim on its username: one account per handle. */
export const usernameKey = (username: string) => ({ pk: `USERNAME#${username}`, sk: 'USERNAME' });
export const tokenKey = (tokenHash: string) => ({ pk: `TOKEN#${tokenHash}`, sk: 'TOKEN' });
/** An account owner's sign-in (their Cognito user id) pointing at the account. */
export const signInKey = (sub: string) => ({ pk: `SIGNIN#${sub}`, sk: 'SIGNIN' });
/** The same sign-in in the owner index, to list an account's owners (after its predictions' timestamps, apart from its tokens). */
export const SIGN_IN_INDEX_PREFIX = 'OWNER#';
/** An account's partition in the owner index: its predictions by time, its files (`FILE#`), tokens (`TOKEN#`) and owners (`OWNER#`). */
export const accountIndexPartition = (account: string): string => `ACCOUNT#${account}`;
export const signInIndexKey = (account: string, sub: string) => ({
  gsi1pk: accountIndexPartition(account),
  gsi1sk: `${SIGN_IN_INDEX_PREFIX}${sub}`,
});
export const TOKEN_INDEX_PREFIX = 'TOKEN#';
export const tokenIndexKey = (account: string, createdAt: string, tokenId: string) => ({
  gsi1pk: accountIndexPartition(account),
  gsi1sk: `${TOKEN_INDEX_PREFIX}${createdAt}#${tokenId}`,
});
/** An account's spend in one calendar month (`2026-11`). */
export const spendKey = (account: string, month: string) => ({ pk: `ACCOUNT#${account}`, sk: `SPEND#${month}` });
export const ownerIndexKey = (owner: string, createdAt: string) => ({
  gsi1pk: accountIndexPartition(owner),
  gsi1sk: createdAt,
});
/** Where a query of an account's owner-index partition resumes: just past one prediction's entry (its table key and index key together). */
export const ownerIndexStartKey = (owner: string, createdAt: string, predictionId: string) => ({
  ...predictionKey(predictionId),
  ...ownerIndexKey(owner, createdAt),
});

/**
 * The sweeper's index: only predictions that may still owe something are in it (a sparse index),
 * spread over shards so that no one partition takes every write of a busy deployment.
 */
export const SWEEP_INDEX = { name: 'by-sweep', partition: 'sweep_shard', sort: 'sweep_at' } as const;
export const SWEEP_SHARDS = 16;
/** A random UUID's shard among `shards` (at most 16): its first hex digit spreads items evenly. */
const shardOf = (uuid: string, shards: number): number => Number.parseInt(uuid.slice(0, 1), 16) % shards;
const sweepShardOf = (id: string): number => shardOf(id, SWEEP_SHARDS);
export const sweepShardKey = (shard: number): string => `SWEEP#${shard}`;
export const sweepIndexKey = (id: string, sweepAtMs: number) => ({
  sweep_shard: sweepShardKey(sweepShardOf(id)),
  sweep_at: sweepAtMs,
});
/**
 * The same index, other shards: ended predictions waiting for their data's removal at the end of
 * the retention period. Kept apart so that their numbers never delay a stuck prediction's sweep.
 */
export const dataShardKey = (shard: number): string => `DATA#${shard}`;
export const dataRemovalIndexKey = (id: string, removeAtMs: number) => ({
  sweep_shard: dataShardKey(sweepShardOf(id)),
  sweep_at: removeAtMs,
});

/** A model's examples (`GET /models/{owner}/{name}/examples`), one item each, in the order they were marked. */
export const examplesPartition = (model: string): string => `EXAMPLES#${model}`;
export const EXAMPLE_PREFIX = 'EXAMPLE#';
export const exampleKey = (model: string, addedAt: string, predictionId: string) => ({
  pk: examplesPartition(model),
  sk: `${EXAMPLE_PREFIX}${addedAt}#${predictionId}`,
});

/** A deployment's partition: its configuration's changes, one item each. */
export const deploymentPartition = (model: string): string => `DEPLOYMENT#${model}`;
/** Padded, so that the sort key orders releases by number. */
export const deploymentReleaseKey = (model: string, release: number) => ({
  pk: deploymentPartition(model),
  sk: `RELEASE#${String(release).padStart(10, '0')}`,
});

/** One fixed window of a rate limit (`TOKEN#…` or `ACCOUNT#…`) for the second `window`. */
export const rateWindowKey = (bucket: string, window: number) => ({ pk: `RATE#${bucket}`, sk: String(window) });

/** An account's claim on one `Idempotency-Key`, by the key's hash: keys are per account. */
export const idempotencyKey = (account: string, keyHash: string) => ({
  pk: `IDEMPOTENCY#${account}#${keyHash}`,
  sk: 'IDEMPOTENCY',
});

/**
 * An account's webhook delivery attempts across its predictions, by time (a sparse index: only
 * attempts carry its attributes). One partition per account would take every attempt of a busy
 * account, retries and `output`/`logs` events included, past the ~1,000 writes a second one
 * partition takes (architecture: Scale ceilings): attempts are spread over shards by their random id, and a listing
 * reads the shards' newest and merges them. The sort key, `<at>#<attempt id>`, is unique.
 */
export const DELIVERY_INDEX = {
  name: 'by-account-delivery',
  partition: 'delivery_shard',
  sort: 'delivery_at',
} as const;
export const DELIVERY_SHARDS = 8;
export const deliveryShardKey = (account: string, shard: number): string => `DELIVERIES#${account}#${shard}`;
/** Its `delivery_at` has the form the delivery log's port publishes (DELIVERY_POSITION), which cursors are checked against. */
export const deliveryIndexKey = (account: string, at: string, attemptId: string) => ({
  delivery_shard: deliveryShardKey(account, shardOf(attemptId, DELIVERY_SHARDS)),
  delivery_at: `${at}#${attemptId}`,
});
