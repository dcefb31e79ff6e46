import { createHash, randomBytes, randomInt } from 'node:crypto';

/**
 * API tokens: `pgz_` + 30 random base62 characters + a 6-character base62 CRC32 of those 30.
 * The prefix makes leaked tokens easy to scan for; the checksum rejects a mistyped or made-up
 * token before any database lookup. Only a hash of the token is ever stored.
 */
export const TOKEN_PREFIX = 'pgz_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
const TOKEN_SHAPE = new RegExp(`^${TOKEN_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

const crc32 = (text: string): number => {
  let crc = 0xffffffff;
  for (const byte of Buffer.from(text, 'utf8')) crc = (CRC_TABLE[(crc ^ byte) & 0xff] ?? 0) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
};

const base62 = (value: number, width: number): string => {
  let out = '';
  let rest = value;
  for (let i = 0; i < width; i++) {
    out = (BASE62[rest % 62] ?? '0') + out;
    rest = Math.floor(rest / 62);
  }
  return out;
};

const checksumOf = (body: string): string => base62(crc32(body), CHECKSUM_LENGTH);

export const generateToken = (pick: (max: number) => number = randomInt): string => {
  const body = Array.from({ length: RANDOM_LENGTH }, () => BASE62[pick(62)] ?? '0').join('');
  return `${TOKEN_PREFIX}${body}${checksumOf(body)}`;
};

/** Shape and checksum only: true means the token may exist, false that it cannot. */
export const looksLikeToken = (candidate: string): boolean => {
  if (!TOKEN_SHAPE.test(candidate)) return false;
  const body = candidate.slice(TOKEN_PREFIX.length, TOKEN_PREFIX.length + RANDOM_LENGTH);
  return candidate.slice(TOKEN_PREFIX.length + RANDOM_LENGTH) === checksumOf(body);
};

/** A short, non-secret handle to tell tokens apart in listings (`pgz_AbC…`). */
export const tokenHint = (token: string): string => `${token.slice(0, TOKEN_PREFIX.length + 4)}…`;

/**
 * A webhook signing secret, shown to its account owner and used as is (interface: Webhook signing). The
 * `whsec_<base64>` form is the one Standard Webhooks verifiers expect.
 */
export const generateSigningSecret = (random: (size: number) => Buffer = randomBytes): string =>
  `whsec_${random(32).toString('base64')}`;

/** Only this hash is ever stored; the token itself never is. */
export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/**
 * A token's last use is recorded at most this often: a busy token would otherwise write its item
 * on every request. Its `last_used_at` is therefore right to within these minutes.
 */
export const TOKEN_USE_RECORDED_EVERY_MS = 5 * 60_000;

/** Whether a use at `nowMs` is worth recording over the one recorded at `lastUsedMs` (null: none yet). */
export const tokenUseIsStale = (lastUsedMs: number | null, nowMs: number): boolean =>
  lastUsedMs === null || lastUsedMs < nowMs - TOKEN_USE_RECORDED_EVERY_MS;
